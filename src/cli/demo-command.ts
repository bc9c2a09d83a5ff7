// `tapedeck demo`: the whole product in one command, with no API key. The
// real `claude` runs against the built-in mock model in a throwaway project
// with tapedeck installed; then the recorded session's summary is shown.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { findSession, inspectSession } from "../core/archive.ts";
import { startAnthropicMock } from "../demo/anthropic-mock.ts";
import { CLAUDE_BIN, type ClaudeResult, makeClaudeHome, runClaude } from "../demo/claude-offline.ts";
import { CliError, printJson } from "./common.ts";
import { builtFile } from "./paths.ts";
import { renderSummary } from "./summary.ts";

/** A credential-shaped string built at run time, so the demo can show it being redacted. */
function plantedKey(): string {
  return ["AKIA", "TAPEDECKDEMO", "2X7Q"].join("");
}

function step(text: string): void {
  process.stderr.write(`» ${text}\n`);
}

function check(result: ClaudeResult, what: string): void {
  if (result.code !== 0 || result.timedOut) {
    throw new CliError(
      `claude failed during "${what}" (exit ${result.code}${result.timedOut ? ", timed out" : ""})`,
    );
  }
}

async function demo(opts: { keep?: boolean; json?: boolean }): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "tapedeck-demo-"));
  const mock = await startAnthropicMock({ port: 0 });
  try {
    const { home, projectDir } = makeClaudeHome(join(work, "home"), join(work, "project"));
    step(
      `claude ${CLAUDE_BIN.includes("node_modules") ? "(from the dev dependencies)" : CLAUDE_BIN} against the built-in mock model at ${mock.url}`,
    );
    step(`project ${projectDir}`);
    const install = spawnSync(
      process.execPath,
      [builtFile("cli.js"), "install", "claude", "--project", projectDir, "--yes"],
      {
        encoding: "utf8",
      },
    );
    if (install.status !== 0) throw new CliError(`tapedeck install failed: ${install.stderr.trim()}`);
    process.stderr.write(`${install.stdout}\n`);
    const base = { home, cwd: projectDir, baseUrl: mock.url };
    step("turn 1: a prompt carrying a credential; Claude runs a shell command");
    const first = await runClaude({
      ...base,
      // The mock model runs the rest of the prompt as a Bash command, so the key
      // shows up in the prompt, the tool call and the tool's output.
      args: [`SCENARIO_BASH echo deploying with key ${plantedKey()}`],
    });
    check(first, "turn 1");
    const sessionId = first.sessionId;
    if (!sessionId) throw new CliError("claude did not report a session id");
    step("turn 2: a command that fails");
    check(await runClaude({ ...base, args: ["--resume", sessionId, "SCENARIO_FAIL"] }), "turn 2");
    step("turn 3: a subagent");
    check(
      await runClaude({ ...base, args: ["--resume", sessionId, "SCENARIO_AGENT echo from a subagent"] }),
      "turn 3",
    );
    const ref = findSession(projectDir, sessionId, "claude");
    const summary = inspectSession(ref);
    if (opts.json) printJson(summary);
    else process.stdout.write(`\n${renderSummary(summary, projectDir)}\n`);
    if (opts.keep) {
      process.stderr.write(`\nKept the demo project: cd ${projectDir} && tapedeck last\n`);
    } else {
      process.stderr.write(`\n(the demo project was temporary; pass --keep to look around in it)\n`);
    }
  } finally {
    await mock.close();
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
}

export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description("record a real Claude Code session against the built-in mock model (no API key) and show it")
    .option("--keep", "keep the temporary project and its archive")
    .option("--json", "print the session summary as JSON")
    .action(demo);
}
