// `tapedeck demo`: the whole product in one command, with no API key. The
// real `claude` runs against the built-in mock model in a throwaway project
// with tapedeck installed; then the recorded session's summary is shown.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { builtFile } from "../../core/base/built-file.ts";
import { findSession, inspectSession } from "../../core/read/sessions.ts";
import { startAnthropicMock } from "../../demo/anthropic-mock.ts";
import { CLAUDE_BIN_FOUND, type ClaudeResult, makeClaudeHome, runClaude } from "../../demo/claude-offline.ts";
import { installHint } from "../../providers/agent-cli.ts";
import { claudeCli } from "../../providers/claude/launch.ts";
import { CliError, note, printJson, say } from "../common.ts";
import { nextCommands, renderSummary } from "../summary.ts";

/** A credential-shaped string built at run time, so the demo can show it being redacted. */
function plantedKey(): string {
  return ["AKIA", "TAPEDECKDEMO", "2X7Q"].join("");
}

function step(text: string): void {
  note(`» ${text}\n`);
}

/**
 * The "Next:" lines. A kept project: the session's commands, pointed at it (the demo's HOME and project
 * stay together). A removed one: nothing there works any more, so what to do instead.
 */
function nextSteps(projectDir: string, keep: boolean): (id: string) => string[] {
  if (keep) return (id) => nextCommands(id, ` --project ${shellQuote(projectDir)}`);
  return () => [
    "tapedeck demo --keep              (keeps the demo project, to inspect and export its session)",
    "cd <your project> && tapedeck install claude   (records your own sessions)",
  ];
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function check(result: ClaudeResult, what: string): void {
  if (result.code !== 0 || result.timedOut) {
    throw new CliError(
      `claude failed during "${what}" (exit ${result.code}${result.timedOut ? ", timed out" : ""})`,
    );
  }
}

async function demo(opts: { keep?: boolean; json?: boolean }): Promise<void> {
  // Before anything is set up: without the agent there is no demo, and the user should know how to get it.
  const claudeBin = CLAUDE_BIN_FOUND;
  if (!claudeBin) throw new CliError(installHint(claudeCli));
  const work = mkdtempSync(join(tmpdir(), "tapedeck-demo-"));
  const mock = await startAnthropicMock({ port: 0 });
  try {
    const { home, projectDir } = makeClaudeHome(join(work, "home"), join(work, "project"));
    step(`claude ${claudeBin} against the built-in mock model at ${mock.url}`);
    step(`project ${projectDir}`);
    const install = spawnSync(
      process.execPath,
      [builtFile("cli.js"), "install", "claude", "--project", projectDir, "--yes"],
      {
        encoding: "utf8",
      },
    );
    if (install.status !== 0) throw new CliError(`tapedeck install failed: ${install.stderr.trim()}`);
    note(`${install.stdout}\n`);
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
    else say(`\n${renderSummary(summary, projectDir, { next: nextSteps(projectDir, !!opts.keep) })}\n`);
    if (opts.keep) {
      note(
        `\nKept the demo project: cd ${shellQuote(projectDir)} && tapedeck last   (remove it with: rm -rf ${shellQuote(work)})\n`,
      );
    } else {
      note(`\nThe demo project was temporary and is removed; pass --keep to look around in it.\n`);
    }
  } finally {
    await mock.close();
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  }
}

export function register(program: Command): void {
  program
    .command("demo")
    .description("record a real Claude Code session against the built-in mock model (no API key) and show it")
    .option("--keep", "keep the temporary project and its archive")
    .option("--json", "print the session summary as JSON")
    .action(demo);
}
