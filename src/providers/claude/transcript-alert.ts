// The transcript watch in the Claude adapter (hook hot path): at each main-thread Stop it notes how much of
// the transcript it has read and how many answers were recorded; at the SessionStart of a resume it checks
// the transcript against that (transcript-watch.ts quickCheck: one lstat, a substring count of a small file)
// and, on a loss, records a `provider_event` of type `transcript_loss` (what was expected, what was found)
// and keeps the alert in the session's provider state, where the status line reads it until the session
// ends. Nothing reaches the agent: the hook's stdout stays empty. Never throws.
import { join } from "node:path";
import { readConfigFile } from "../../core/archive/config.ts";
import type { NormalizedEvent, NormalizeResult } from "../../core/archive/event.ts";
import { resolveSessionRoot, SESSION_FILES, sessionDirName } from "../../core/archive/paths.ts";
import { readJsonOrUndefined } from "../../core/base/fsutil.ts";
import { derivedId } from "../shared.ts";
import { type QuickCheck, quickCheck, type TranscriptFinding } from "./transcript-watch.ts";

export const TRANSCRIPT_LOSS = "transcript_loss";

/** What the adapter keeps between hooks for the watch. */
export interface WatchState {
  /** Bytes of the transcript already read at a Stop: it was at least this long. */
  bytes: number;
  /** Main-thread answers (Stops with text) recorded. */
  answers: number;
}

export interface TranscriptAlert {
  finding: TranscriptFinding;
  at: string;
  session_id: string;
}

export interface WatchedState {
  watch?: WatchState;
  transcript_loss?: TranscriptAlert;
}

function isMainStop(e: NormalizedEvent): boolean {
  return e.kind === "assistant_message" && !e.agent_id;
}

function lossEvent(
  start: NormalizedEvent,
  id: string,
  path: string,
  watch: WatchState,
  check: QuickCheck,
): NormalizedEvent {
  return {
    kind: "provider_event",
    event_id: derivedId("provider_event", `${TRANSCRIPT_LOSS}:${start.event_id}`),
    payload: {
      hook_event_name: "SessionStart",
      type: TRANSCRIPT_LOSS,
      finding: check.finding,
      transcript_path: path,
      expected: { bytes_at_least: watch.bytes, answers: watch.answers },
      found: { bytes: check.bytes, ...(check.records !== undefined ? { records: check.records } : {}) },
      restore: `tapedeck restore ${id} --from auto`,
    },
  };
}

/**
 * Moves the watch along for this hook's events: `readOffset` is how far the usage reader got in the session's
 * transcript (after this hook's read). Returns the loss event to record, if any, and the next watch state.
 */
export function watchTranscript(
  result: NormalizeResult,
  previous: WatchedState | undefined,
  readOffset: number | undefined,
  now: () => string = () => new Date().toISOString(),
): { events: NormalizedEvent[]; state: WatchedState } {
  const state: WatchedState = { ...(previous?.watch ? { watch: previous.watch } : {}) };
  if (previous?.transcript_loss) state.transcript_loss = previous.transcript_loss;
  const events: NormalizedEvent[] = [];
  try {
    const path = result.context.transcript_path;
    const id = result.context.identity.provider_session_id;
    const start = result.events.find((e) => e.kind === "session_start" && !e.agent_id);
    if (start && path && id && previous?.watch) {
      if (start.payload.source === "resume") {
        const check = quickCheck(path, previous.watch.bytes, previous.watch.answers);
        if (check.finding !== "ok") {
          events.push(lossEvent(start, id, path, previous.watch, check));
          state.transcript_loss = { finding: check.finding, at: now(), session_id: id };
        } else delete state.transcript_loss;
        // What is there now is the baseline from here on: a loss is recorded once, a restore is not one.
        state.watch = { bytes: check.bytes, answers: previous.watch.answers };
      }
    }
    if (result.events.some(isMainStop)) {
      const before = state.watch ?? { bytes: 0, answers: 0 };
      state.watch = { bytes: Math.max(before.bytes, readOffset ?? 0), answers: before.answers + 1 };
    }
    if (result.events.some((e) => e.kind === "session_end" && !e.agent_id)) delete state.transcript_loss;
  } catch {
    // recording never hurts the agent: a watch that cannot look sees nothing
  }
  return { events, state };
}

/**
 * The status line's warning for a running session whose transcript was found lost at its resume; undefined
 * when there is none (or anything goes wrong: the status line must always print).
 */
export function transcriptAlertFor(project: string, sessionId: string): TranscriptAlert | undefined {
  try {
    const read = readConfigFile(project);
    if (read.state !== "ok") return undefined;
    const provider = read.config.providers.claude;
    if (!provider) return undefined;
    const root = resolveSessionRoot(project, provider.session_root, "claude");
    const path = join(root, sessionDirName(sessionId), SESSION_FILES.providerState);
    const state = readJsonOrUndefined<WatchedState>(path);
    const alert = state?.transcript_loss;
    return alert && typeof alert.finding === "string" ? alert : undefined;
  } catch {
    return undefined;
  }
}

/** The status line's suffix for an alert: short, and it says what to run. */
export function alertText(alert: TranscriptAlert): string {
  return ` · ⚠ transcript ${alert.finding}: tapedeck restore ${alert.session_id.slice(0, 8)}`;
}
