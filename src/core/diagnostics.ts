// Diagnostics never carry payload content: only a time, what happened, a
// count and an error *code*. Messages from errors are not copied because an
// error thrown while handling a payload may quote it.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { FILE_MODE } from "./fsutil.ts";

export interface DiagnosticEntry {
  what: "dropped" | "spooled" | "error" | "spool_unreadable";
  count?: number;
  stage?: string;
  code?: string;
}

export function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
    const name = (error as Error).name;
    if (typeof name === "string" && /^[A-Za-z]{1,40}$/.test(name)) return name;
  }
  return "unknown";
}

/** Appends one line; failing to write a diagnostic is itself swallowed. */
export function writeDiagnostic(dir: string, entry: DiagnosticEntry): void {
  try {
    appendFileSync(
      join(dir, "diagnostics.jsonl"),
      `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`,
      {
        mode: FILE_MODE,
      },
    );
  } catch {
    // nowhere left to report to; recording must not hurt the agent
  }
}
