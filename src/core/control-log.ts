// Who switched recording on or off, and how: one line per change in the
// project's `.tapedeck/control.jsonl`. An agent can stop its own recording
// through the MCP tool; this keeps that visible (`tapedeck status`).
import { closeSync, constants, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ensureTapedeckDir, tapedeckDir } from "./paths.ts";

export interface ControlChange {
  at: string;
  provider: string;
  action: "start" | "stop";
  /** `cli` (tapedeck record, install) or `mcp` (the agent's record_session call). */
  via: "cli" | "mcp";
}

const FILE = "control.jsonl";

/** Appends a change; never throws (switching recording must not fail for want of its log line). */
export function logControlChange(projectRoot: string, change: Omit<ControlChange, "at">): boolean {
  try {
    appendChange(projectRoot, change);
    return true;
  } catch {
    return false;
  }
}

function appendChange(projectRoot: string, change: Omit<ControlChange, "at">): void {
  const path = join(ensureTapedeckDir(projectRoot), FILE);
  const line = `${JSON.stringify({ at: new Date().toISOString(), ...change } satisfies ControlChange)}\n`;
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, line);
  } finally {
    closeSync(fd);
  }
}

/** The latest change for `provider`, if any was logged. */
export function lastControlChange(projectRoot: string, provider: string): ControlChange | undefined {
  let text: string;
  try {
    text = readFileSync(join(tapedeckDir(projectRoot), FILE), "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const c = JSON.parse(lines[i]!) as ControlChange;
      if (c && c.provider === provider) return c;
    } catch {
      // a torn or empty line
    }
  }
  return undefined;
}
