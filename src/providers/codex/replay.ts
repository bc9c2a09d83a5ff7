// Replaying prompts through Codex CLI (measured with 0.171.0 against the mock): `codex exec --json` starts a
// new thread (its id comes in `thread.started`), `codex exec resume --json <thread> <prompt>` continues it.
// CODEX_HOME holds everything codex reads and writes for the run: the user's config.toml is copied (the
// model provider and its settings are the user's), with the run's work tree trusted so its .codex/ layer
// (tapedeck's hooks) is read. Native memory off: `-c project_doc_max_bytes=0` drops the project's
// AGENTS.md (the mock saw it vanish); it does not cover $CODEX_HOME/AGENTS.md, which an off arm simply does
// not copy; `features.memories=false` keeps the memories feature off.

import { join } from "node:path";
import { ensureDir, writeFileAtomicSync } from "../../core/base/fsutil.ts";
import type {
  ArmSettings,
  HomeSource,
  PreparedHome,
  ReplayDriver,
  RunPaths,
  TurnOutcome,
} from "../../core/ports/replay-driver.ts";
import { copyUserFile, readUserFile } from "../replay-home.ts";
import { failureReason, processOutcome } from "../replay-outcome.ts";
import { codexCli } from "./launch.ts";

function userCodexHome(source: HomeSource): string {
  return source.userEnv.CODEX_HOME || join(source.userHome, ".codex");
}

function prepareHome(paths: RunPaths, source: HomeSource, settings: ArmSettings): PreparedHome {
  const root = join(paths.home, ".codex");
  ensureDir(root);
  const from = userCodexHome(source);
  const config = readUserFile(join(from, "config.toml"))?.toString("utf8") ?? "";
  // A table header at the end applies to the lines after it only: whatever table the user's file ends in
  // stays as it was. The key is a TOML basic string (JSON's escapes are valid TOML escapes).
  const trusted = `\n[projects.${JSON.stringify(paths.work)}]\ntrust_level = "trusted"\n`;
  const configPath = join(root, "config.toml");
  writeFileAtomicSync(configPath, `${config}${config.endsWith("\n") || config === "" ? "" : "\n"}${trusted}`);
  // config.toml can hold bearer tokens and headers: it goes with the credentials.
  const secrets = [configPath];
  const auth = copyUserFile(from, root, "auth.json");
  if (auth) secrets.push(auth);
  if (settings.nativeMemory) copyUserFile(from, root, "AGENTS.md");
  return { settingsRoot: root, env: { CODEX_HOME: root }, secrets };
}

function memoryArgs(settings: ArmSettings): string[] {
  return settings.nativeMemory ? [] : ["-c", "project_doc_max_bytes=0", "-c", "features.memories=false"];
}

interface CodexLine {
  type?: string;
  thread_id?: string;
  item?: { type?: string; text?: string };
  error?: { message?: string };
}

function lines(stdout: string): CodexLine[] {
  const out: CodexLine[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line) as CodexLine);
    } catch {
      // a warning line, not an event
    }
  }
  return out;
}

export const codexReplay: ReplayDriver = {
  provider: "codex",
  cli: codexCli,
  userMemoryFiles: ["AGENTS.md"],
  prepareHome,
  command(bin, turn, settings) {
    // Hooks run only once trusted, silently skipped otherwise; the run's hooks are tapedeck's own.
    const common = ["--json", "--dangerously-bypass-hook-trust", ...memoryArgs(settings)];
    if (settings.model) common.push("-m", settings.model);
    // A prompt of `-` is read from stdin: the prompt is never on the command line.
    const args = turn.sessionId
      ? ["exec", "resume", ...common, "--", turn.sessionId, "-"]
      : ["exec", ...common, "--", "-"];
    return { command: bin, args, input: turn.prompt };
  },
  parse(run, turn): TurnOutcome {
    const events = lines(run.stdout);
    const thread = events.find((e) => e.type === "thread.started")?.thread_id;
    const answer = events
      .filter((e) => e.type === "item.completed" && e.item?.type === "agent_message")
      .at(-1)?.item?.text;
    const failed = events.find((e) => e.type === "turn.failed");
    const completed = events.some((e) => e.type === "turn.completed");
    const ok = run.code === 0 && !run.timedOut && completed && !failed;
    return {
      ok,
      ...processOutcome(run),
      sessionId: thread ?? turn.sessionId,
      ...(answer !== undefined ? { answer } : {}),
      // turn.completed's usage is the thread's running total: the archive's per-response records count.
      error: ok
        ? undefined
        : failureReason(
            "codex",
            run,
            failed ? `codex: the turn failed (${(failed.error?.message ?? "").slice(0, 200)})` : undefined,
          ),
    };
  },
};
