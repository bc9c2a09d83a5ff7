// Runs an agent CLI to completion for the demo and the e2e tests.
import { spawn } from "node:child_process";

export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

/** What each offline runner (claude-, codex-, gemini-offline.ts) is given; its own doc says what it adds. */
export interface OfflineRunOptions {
  /** The run's HOME, as the runner's make...Home prepared it. */
  home: string;
  cwd: string;
  /** The agent's prompt and flags; the runner adds the flags it needs unless they are present. */
  args: string[];
  /** Set over the runner's own environment. */
  env?: Record<string, string>;
  /** The process group is killed with SIGKILL once it passes. */
  timeoutMs?: number;
}

/**
 * Spawns `command` with stdin closed (an open pipe would be read as more
 * prompt text) in its own process group, so a timeout kills the shells and
 * hooks the agent started too, and collects its output.
 */
export function runAgentProcess(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<AgentRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, opts.timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
    });
  });
}

/** stdout parsed as JSON, or undefined. */
export function parseJsonOutput(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/** A run of an agent that prints its result as one JSON object (print mode with JSON output). */
export interface JsonAgentRun extends AgentRun {
  /** stdout parsed, when it was JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: the CLIs' result objects are external, unversioned formats.
  json?: any;
  /** The result's `session_id`. */
  sessionId?: string;
}

/** runAgentProcess, then the result the agent printed: stdout parsed and the session it names. */
export async function runAgentForJson(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<JsonAgentRun> {
  const run = await runAgentProcess(command, args, opts);
  const json = parseJsonOutput(run.stdout);
  const sessionId =
    json && typeof json === "object" && typeof (json as { session_id?: unknown }).session_id === "string"
      ? (json as { session_id: string }).session_id
      : undefined;
  return { ...run, json, sessionId };
}
