// What every history reader's import is held to: the events the hooks would have recorded for the same
// turn (the same ids, payloads and usage), the same events however the file's reading is split or stopped
// and resumed, and none of them one that only the hooks write.
import { expect } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { type HistoryReader, type HistorySession, onlyHooksWrite } from "../../src/providers/history.ts";
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

/**
 * An import stopped part-way and run again from the same cursor: the stopped run's events (read from the
 * cursor to wherever it got, its end included) are all among the resumed run's, under the same ids, so the
 * store keeps each once. None of them is an event only the hooks write (onlyHooksWrite: how an older archive's
 * interrupted import is told from its hooks).
 */
export function expectResumedAlike(reader: HistoryReader, session: HistorySession, path: string): void {
  const lines = linesOf(path);
  const file = mainFile(path);
  for (let at = 0; at < lines.length; at += 1) {
    const state = at === 0 ? undefined : mapLines(reader, session, file, lines.slice(0, at)).state;
    const resumed = mapLines(reader, session, file, lines.slice(at), state).events;
    for (const e of resumed) {
      expect(onlyHooksWrite(reader, e), `${e.kind} ${String(e.payload.hook_event_name)}`).toBe(false);
    }
    const ids = new Set(resumed.map((e) => e.event_id));
    for (const to of new Set([at + 1, Math.ceil((at + lines.length) / 2), lines.length - 1])) {
      if (to <= at) continue;
      for (const e of mapLines(reader, session, file, lines.slice(at, to), state).events) {
        expect(ids.has(e.event_id), `cursor at line ${at}, stopped at ${to}: ${e.event_id}`).toBe(true);
      }
    }
  }
}

/** The hooks' own events of a turn, a resume or an end: each one an import never writes. */
export function expectOnlyHooksWrite(reader: HistoryReader, events: NormalizedEvent[]): void {
  expect(events.length).toBeGreaterThan(0);
  for (const e of events) {
    expect(onlyHooksWrite(reader, e), `${e.kind} ${String(e.payload.hook_event_name)}`).toBe(true);
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
