// What every history reader's import is held to: the events the hooks would have recorded for the same
// turn (the same ids, payloads and usage), and the same events however the file's reading is split.
import { expect } from "vitest";
import type { NormalizedEvent } from "../../src/core/event.ts";
import type { HistoryReader, HistorySession } from "../../src/providers/history.ts";
import { linesOf, mainFile, mapInTwo, mapLines } from "./history-helpers.ts";

/** Read in two imports split after any line, a file gives the events of one (`ordered`: in that order). */
export function expectEverySplitAlike(
  reader: HistoryReader,
  session: HistorySession,
  path: string,
  ordered: boolean,
): void {
  const lines = linesOf(path);
  const ids = (events: NormalizedEvent[]) => {
    const list = events.map((e) => e.event_id);
    return ordered ? list : new Set(list);
  };
  const whole = ids(mapLines(reader, session, mainFile(path), lines).events);
  for (let at = 1; at < lines.length; at += 1) {
    expect(ids(mapInTwo(reader, session, mainFile(path), lines, at)), `split at ${at}`).toEqual(whole);
  }
}

/** The captured hook payloads whose events an import of the same turn gives too, each with its kind. */
const HOOKED = [
  ["UserPromptSubmit.json", "user_prompt"],
  ["PreToolUse.json", "tool_call"],
  ["PostToolUse.json", "tool_result"],
] as const;

/**
 * An imported prompt, tool call and result are the events the hooks record: the same id and turn, and as
 * payload what `expected` makes of the hook's (less what the file lacks or the call beside it holds).
 */
export function expectHookEvents(
  events: NormalizedEvent[],
  hookEvent: (file: string) => NormalizedEvent,
  expected: (kind: string, hook: Record<string, unknown>) => unknown,
): void {
  for (const [file, kind] of HOOKED) {
    const hook = hookEvent(file);
    const imported = events.find((e) => e.kind === kind)!;
    expect(imported.event_id, file).toBe(hook.event_id);
    expect(imported.turn_id, file).toBe(hook.turn_id);
    expect(imported.payload, file).toEqual(expected(kind, hook.payload));
  }
}

/** The import's turn_usage events are the hook path's: one per response, under its id, with its counts. */
export function expectHookUsage(
  events: NormalizedEvent[],
  hook: Array<{ id: string; usage: unknown }>,
): NormalizedEvent[] {
  const usage = events.filter((e) => e.kind === "turn_usage");
  expect(usage.map((e) => e.event_id)).toEqual(hook.map((u) => `turn_usage:${u.id}`));
  expect(usage.map((e) => e.usage)).toEqual(hook.map((u) => u.usage));
  return usage;
}
