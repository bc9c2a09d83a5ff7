// Diagnostics never carry payload content: only a time, what happened, a
// count and an error *code*. Messages from errors are not copied because an
// error thrown while handling a payload may quote it.
//
// The file sits in the project's `.tapedeck` (or a session directory below
// it): it is appended only as a regular file, never through a symlink, and
// never into a directory that is itself a symlink, so a planted
// `diagnostics.jsonl -> ~/.bashrc` or symlinked `.tapedeck` gets nothing. Nor does a directory or a
// diagnostics file of another user (fsutil's owner rule): there is then nowhere safe to report to.
import { join } from "node:path";
import { appendRegularSync, lstatOrUndefined, ownedByUser } from "./fsutil.ts";

export interface DiagnosticEntry {
  what:
    | "dropped"
    | "spooled"
    | "error"
    | "spool_unreadable"
    | "spool_unsafe"
    | "config_invalid"
    /** the configured retention ran: count = sessions removed (retention.ts) */
    | "retention";
  count?: number;
  stage?: string;
  code?: string;
}

/**
 * The error's code (ENOENT, UND_ERR_SOCKET), else its class name (TypeError): identifiers too narrow to carry
 * payload text. Every other case, a thrown string or a getter that throws included, is "unknown". The one
 * helper for the hook path, the store and the proxy, so that their logs name the same failure the same way.
 */
export function errorCode(error: unknown): string {
  try {
    if (typeof error === "object" && error !== null) {
      const { code, name } = error as { code?: unknown; name?: unknown };
      if (typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
      if (typeof name === "string" && /^[A-Za-z]{1,40}$/.test(name)) return name;
    }
  } catch {
    // A hostile thrown object: reading its fields threw.
  }
  return "unknown";
}

/** Appends one line; failing to write a diagnostic is itself swallowed. */
export function writeDiagnostic(dir: string, entry: DiagnosticEntry): void {
  try {
    if (!isRealDirectoryChain(dir)) return;
    appendRegularSync(
      join(dir, "diagnostics.jsonl"),
      `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`,
    );
  } catch {
    // nowhere left to report to; recording must not hurt the agent
  }
}

/**
 * The directory, and each one up to and including the nearest `.tapedeck`
 * above it, is a real directory of the user's, writable by nobody else.
 * Outside a `.tapedeck` only the directory itself is checked (a configured
 * session root elsewhere).
 */
function isRealDirectoryChain(dir: string): boolean {
  let current = dir;
  for (let i = 0; i < 16; i += 1) {
    const st = lstatOrUndefined(current);
    if (!st || st.isSymbolicLink() || !st.isDirectory()) return false;
    if (!ownedByUser(st) || (st.mode & 0o022) !== 0) return false;
    if (current.endsWith("/.tapedeck") || !current.includes("/.tapedeck/")) return true;
    current = current.slice(0, current.lastIndexOf("/"));
  }
  return false;
}
