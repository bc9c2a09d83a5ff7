// Running a provider's history mapper over a file's lines, as the import does, for the readers' tests.
import { readFileSync } from "node:fs";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import type { HistoryFile, HistoryReader, HistorySession } from "../../src/providers/history.ts";

export function linesOf(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

export interface Mapped {
  events: NormalizedEvent[];
  state: Record<string, unknown>;
  malformed: number;
}

/** Maps `lines` (from `state`, as a later import continues), then the end of what is there. */
export function mapLines(
  reader: HistoryReader,
  session: HistorySession,
  file: HistoryFile,
  lines: string[],
  state?: Record<string, unknown>,
  from = 0,
): Mapped {
  const mapper = reader.mapper(session, file, state);
  const events: NormalizedEvent[] = [];
  let offset = from;
  for (const line of lines) {
    events.push(...mapper.line(Buffer.from(line), offset));
    offset += Buffer.byteLength(line) + 1;
  }
  events.push(...mapper.end());
  // The state goes through JSON on disk.
  return { events, state: JSON.parse(JSON.stringify(mapper.state())), malformed: mapper.malformed };
}

/** The same file read in two imports, split after line `at`: the second continues from the first's state. */
export function mapInTwo(
  reader: HistoryReader,
  session: HistorySession,
  file: HistoryFile,
  lines: string[],
  at: number,
): NormalizedEvent[] {
  const first = mapLines(reader, session, file, lines.slice(0, at));
  // The second read starts where the first stopped, at that byte of the file.
  const from = lines.slice(0, at).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  const second = mapLines(reader, session, file, lines.slice(at), first.state, from);
  return [...first.events, ...second.events];
}

/** The session's own file (not a subagent's). */
export function mainFile(path: string): HistoryFile {
  return { path, role: "main" };
}

/** A whole file mapped in one import. */
export function mapFile(reader: HistoryReader, session: HistorySession, path: string): Mapped {
  return mapLines(reader, session, mainFile(path), linesOf(path));
}

export function session(provider: string, id: string, files: HistoryFile[] = []): HistorySession {
  return { provider, sessionId: id, cwd: "/home/user/project", files };
}

/** Token sums over turn_usage events, as the manifest sums them. */
export function tokenSums(events: NormalizedEvent[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const e of events) {
    if (e.kind !== "turn_usage" || !e.usage) continue;
    for (const [k, v] of Object.entries(e.usage)) if (typeof v === "number") sums[k] = (sums[k] ?? 0) + v;
  }
  return sums;
}
