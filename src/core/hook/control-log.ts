// Who switched recording on or off, and how: one line per change in the
// project's `.tapedeck/control.jsonl`. An agent can stop its own recording
// through the MCP tool; this keeps that visible (`tapedeck status`).
import { fstatSync } from "node:fs";
import { join } from "node:path";
import { ensureTapedeckDir, tapedeckDir } from "../archive/paths.ts";
import { readRange } from "../base/byte-range.ts";
import { appendRegularSync, withRegularFile } from "../base/fsutil.ts";

export interface ControlChange {
  at: string;
  provider: string;
  action: "start" | "stop";
  /** `cli` (tapedeck record, install) or `mcp` (the agent's record_session call). */
  via: "cli" | "mcp";
}

const FILE = "control.jsonl";
/** The latest change is in the last lines: only this much of the end is read (a planted huge file stays unread). */
const TAIL_BYTES = 64 * 1024;

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
  appendRegularSync(path, line);
}

/** The file's last TAIL_BYTES, as text; a FIFO or symlink planted as the log reads as no log. */
function readTail(path: string): string | undefined {
  return withRegularFile(path, (fd) => {
    const size = fstatSync(fd).size;
    return readRange(fd, Math.max(0, size - TAIL_BYTES), size).toString("utf8");
  });
}

/** The latest change for `provider`, if any was logged. */
export function lastControlChange(projectRoot: string, provider: string): ControlChange | undefined {
  const text = readTail(join(tapedeckDir(projectRoot), FILE));
  if (text === undefined) return undefined;
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
