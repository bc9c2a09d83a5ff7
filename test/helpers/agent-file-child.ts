// A child process for the tests of hostile agent files: each scenario reads
// one file tapedeck does not write itself (a transcript, a rollout, an agent's
// settings, a repository's .git/HEAD) or its own diagnostics, so a read that
// blocks on a planted FIFO fails the test on the spawn timeout instead of
// hanging the run. It runs the scenarios given (a JSON list of argument lists) one after the other and prints
// one JSON line as each ends, tagged with its place in the list: a scenario that blocks leaves its line and
// those after it unwritten.
import { runDoctor } from "../../src/cli/commands/doctor/run.ts";
import { writeExportFile } from "../../src/cli/commands/export/export-file.ts";
import { restoreMirror } from "../../src/providers/claude/mirror/restore.ts";
import { loadMirrorSettings } from "../../src/providers/claude/mirror/settings.ts";
import { readNewUsage } from "../../src/providers/claude/transcript-usage.ts";
import { chatGptLogin, codexEndpoint } from "../../src/providers/codex/endpoint.ts";
import { codexHookTrust } from "../../src/providers/codex/installer.ts";
import { readRollout } from "../../src/providers/codex/rollout.ts";
import { readConfigText } from "../../src/providers/codex/toml-blocks.ts";
import { geminiAfterInstall } from "../../src/providers/gemini/installer.ts";
import { readSettingsFile } from "../../src/providers/settings-file.ts";

async function run(scenario: string, a = "", b = "", c = ""): Promise<unknown> {
  switch (scenario) {
    case "transcript":
      return readNewUsage(a, 0, []).offset;
    case "rollout":
      return readRollout(a).offset;
    case "settings":
      return readSettingsFile(a);
    case "toml":
      return readConfigText(a);
    case "codex-trust":
      return codexHookTrust(a, b).warnings;
    case "codex-endpoint":
      return { login: chatGptLogin(a), endpoint: codexEndpoint([], { cwd: b, env: { CODEX_HOME: a } }) };
    case "gemini":
      return geminiAfterInstall(a);
    case "mirror-settings":
      return loadMirrorSettings({ configPath: a, env: {} }).warnings;
    case "restore":
      return restoreMirror({ sessionId: "sess-1", projectDir: a, mirrorDir: b, claudeHome: c }).records;
    case "export":
      writeExportFile(a, "exported\n", true);
      return "written";
    case "doctor": {
      const report = await runDoctor({ project: a, ...(b ? { settings: b } : {}) });
      return report.providers.flatMap((p) => p.checks.map((check) => check.message));
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

async function outcome(args: string[]): Promise<Record<string, unknown>> {
  try {
    const [scenario = "", ...rest] = args;
    return { ok: true, result: await run(scenario, ...rest) };
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    return { ok: false, code: error.code ?? error.name, message: String(error.message) };
  }
}

const scenarios = JSON.parse(process.argv[2] ?? "[]") as string[][];
for (const [i, args] of scenarios.entries()) {
  process.stdout.write(`${JSON.stringify({ scenario: i, ...(await outcome(args)) })}\n`);
}
