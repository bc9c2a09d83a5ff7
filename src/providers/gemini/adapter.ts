// The Gemini CLI adapter: stateless mapping (normalize.ts) plus the per-session
// state that Gemini's hooks make necessary (enrich).
//
// enrich runs in the same hook process right after normalize, with the
// session's provider state (provider-state.json) read before the events are
// appended and written back after them. It does four things:
//
// 1. Tool pairing. Gemini has no tool call ids. A tool_call and its
//    tool_result/tool_error get the same synthetic tool_use_id:
//      sha256(session, epoch, turn, key, ordinal)
//    where key = sha256(tool_name, canonical tool_input) and ordinal counts the
//    BeforeTool hooks with that key in the current turn. BeforeTool takes the
//    next ordinal and pushes it on the key's open stack; AfterTool pops the
//    most recent open ordinal of its key (or, when none is open, takes a new
//    one). So a call and its result agree, two identical calls in one turn
//    differ, and a call that never got a result (blocked by another hook)
//    does not steal the result of the identical retry that follows it.
//    Two identical calls running in parallel are interchangeable: each result
//    gets one of the two ids, possibly swapped. The event ids of tool events
//    are re-derived from the tool_use_id, so two identical calls in the same
//    millisecond are still two events.
// 2. Turns. Each BeforeAgent starts a turn: its id (from the session, epoch
//    and the prompt's timestamp) is put on every event until the next one,
//    except session_start/session_end.
// 3. Compaction. PreCompress(auto) fires before every model call, so it is
//    only remembered. At the next BeforeModel, a compaction is recorded when
//    the request shows one: a `<state_snapshot>` message not seen before in
//    this session (what Gemini's compression writes), or fewer messages than
//    the previous request. Both need a previous request as a baseline (so a
//    session first recorded after it was compressed is not misread), and a
//    PreCompress since that request. /compress (trigger manual) is recorded at
//    once by normalize, and the request after it is not counted again.
// 4. Streams that never finished. A response's turn_usage comes from its final
//    AfterModel chunk. If a response was left without one (cancelled,
//    errored), the usage of its last chunk is recorded, marked
//    `complete: false`, when the next model call, prompt, turn end or session
//    boundary shows that the response is over.
//
// 5. Token counts the hooks leave out. At AfterAgent and SessionEnd, the
//    model messages the chat file gained since the last read add a
//    turn_usage each with their cache-read and reasoning counts
//    (chat-usage.ts): AfterModel never carries them.
// 6. What the model said before a tool call. No hook hands it over whole
//    (chat-text.ts), and AfterAgent's reply repeats it with the answer. An
//    AfterModel chunk with text marks the response as having said something;
//    at the BeforeTool that follows, the chat file's new model messages of
//    the turn become assistant_messages recorded before the tool_call. Once a
//    turn has recorded texts of its own, its AfterAgent answer is the chat's
//    texts since then (`text_from: "chat_file"`), not the reply that repeats
//    them; without a readable chat file, the reply as it came. A turn
//    without a text before a call reads nothing more than before.
//
// enrich completes normalize's events in place (tool_use_id, event_id,
// turn_id) and returns the events it adds. Without enrich, normalize's events
// still stand on their own, unpaired.
//
// Known limit: the recorder reads the state before taking the session lock
// and writes it after, so hooks that run concurrently (parallel tool calls)
// can lose one another's update; pairing then degrades (an id may repeat)
// but no event is lost.
import type { NormalizedEvent, NormalizeResult } from "../../core/archive/event.ts";
import type { Usage } from "../../core/archive/schemas.ts";
import { digest, idFor, isRecord } from "../shared.ts";
import type { Enriched, EnrichScope, ProviderAdapter } from "../types.ts";
import { type ChatCursor, loadChatCursor } from "./chat-file.ts";
import { readChatTexts } from "./chat-text.ts";
import { readChatUsage } from "./chat-usage.ts";
import { geminiIdentity } from "./identity.ts";
import { type GeminiObservation, normalizeGeminiHook } from "./normalize.ts";

/** Per tool key in the current turn: BeforeTool hooks seen, and ordinals still waiting for a result. */
interface ToolSlot {
  n: number;
  open: number[];
}

interface OpenResponse {
  timestamp?: string;
  turn?: string;
  model?: string;
  message_count?: number;
  usage?: Usage;
  usage_metadata?: Record<string, unknown>;
}

export interface GeminiState {
  version: 1;
  /** SessionStart hooks seen: a resumed session is a new epoch. */
  epoch: number;
  turn?: string;
  tools: Record<string, ToolSlot>;
  /** Messages in the previous BeforeModel request (the baseline for compaction). */
  messages?: number;
  /** Fingerprint of the latest `<state_snapshot>` seen in a request. */
  snapshot?: string;
  /** Timestamp of a PreCompress(auto) since the previous BeforeModel. */
  precompress?: string;
  /** A /compress was recorded since the previous BeforeModel. */
  manual?: boolean;
  /** The last chunk of a response whose final chunk has not come. */
  response?: OpenResponse;
  /** How far the chat file has been read for token counts. */
  chat?: ChatCursor;
  /** Model messages stamped from here on are not recorded yet: the turn's start, then its latest AfterAgent. */
  said_since?: string;
  /** An AfterModel chunk said something since the last read of what was said. */
  spoke?: boolean;
  /** Texts the turn recorded on their own (before a call, or an earlier answer): the reply repeats them. */
  told?: number;
  /** How far the chat file has been read for what was said. */
  text?: ChatCursor;
}

const TOOL_KEYS_KEPT = 256;
const OPEN_KEPT = 32;

export function initialGeminiState(): GeminiState {
  return { version: 1, epoch: 0, tools: {} };
}

/** The stored state, or a fresh one; anything malformed is dropped, never trusted. */
export function loadGeminiState(raw: Record<string, unknown> | undefined): GeminiState {
  const state = initialGeminiState();
  if (raw?.version !== 1) return state;
  if (isCount(raw.epoch)) state.epoch = raw.epoch;
  if (isShortString(raw.turn)) state.turn = raw.turn;
  if (isRecord(raw.tools)) {
    for (const [key, slot] of Object.entries(raw.tools)) {
      if (isRecord(slot) && isCount(slot.n) && Array.isArray(slot.open) && slot.open.every(isCount)) {
        state.tools[key] = { n: slot.n, open: slot.open.slice(-OPEN_KEPT) };
      }
    }
  }
  if (isCount(raw.messages)) state.messages = raw.messages;
  if (isShortString(raw.snapshot)) state.snapshot = raw.snapshot;
  if (isShortString(raw.precompress)) state.precompress = raw.precompress;
  if (raw.manual === true) state.manual = true;
  const response = loadOpenResponse(raw.response);
  if (response) state.response = response;
  const chat = loadChatCursor(raw.chat);
  if (chat) state.chat = chat;
  if (isShortString(raw.said_since)) state.said_since = raw.said_since;
  if (raw.spoke === true) state.spoke = true;
  if (isCount(raw.told)) state.told = raw.told;
  const text = loadChatCursor(raw.text);
  if (text) state.text = text;
  return state;
}

function loadOpenResponse(raw: unknown): OpenResponse | undefined {
  if (!isRecord(raw)) return undefined;
  const open: OpenResponse = {};
  if (isShortString(raw.timestamp)) open.timestamp = raw.timestamp;
  if (isShortString(raw.turn)) open.turn = raw.turn;
  if (isShortString(raw.model)) open.model = raw.model;
  if (isCount(raw.message_count)) open.message_count = raw.message_count;
  if (isRecord(raw.usage_metadata)) open.usage_metadata = raw.usage_metadata;
  if (isRecord(raw.usage) && raw.usage.source === "gemini-hook") {
    const usage: Usage = { source: "gemini-hook" };
    if (open.model !== undefined) usage.model = open.model;
    for (const field of USAGE_COUNTS) {
      const value = raw.usage[field];
      if (isCount(value)) (usage as Record<string, unknown>)[field] = value;
    }
    open.usage = usage;
  }
  return open.usage !== undefined || open.timestamp !== undefined ? open : undefined;
}

const USAGE_COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "reasoning_output_tokens",
  "total_tokens",
] as const;

/**
 * The stateful step for one hook: completes `result.events` in place and
 * returns the events it adds with the next state. `result.observation` is what
 * normalize saw in the payload; without it there is nothing to do.
 */
export function enrichGemini(
  result: NormalizeResult<GeminiObservation>,
  previous: Record<string, unknown> | undefined,
  scope: EnrichScope = {},
): Enriched | undefined {
  const observation = result.observation;
  if (!observation || observation.hook === "unknown") return undefined;
  const state = loadGeminiState(previous);
  const identity = result.context.identity;
  const session = identity.provider_session_id ?? identity.session_id;
  const extra: NormalizedEvent[] = [];
  let before: NormalizedEvent[] = [];
  const closeResponse = () => {
    const open = state.response;
    state.response = undefined;
    if (open) extra.push(unfinishedResponse(open, session));
  };

  switch (observation.hook) {
    case "SessionStart":
      closeResponse();
      state.epoch += 1;
      state.turn = undefined;
      startSaying(state, undefined);
      state.tools = {};
      state.precompress = undefined;
      state.manual = undefined;
      // A resumed session continues its history; any other start (startup,
      // clear) begins a new one, so the old request is no baseline.
      if (observation.source !== "resume") {
        state.messages = undefined;
        state.snapshot = undefined;
      }
      break;
    case "BeforeAgent":
      closeResponse();
      state.turn = `turn-${digest(["turn", session, state.epoch, observation.timestamp ?? result.events[0]?.event_id ?? null]).slice(0, 24)}`;
      startSaying(state, observation.timestamp);
      state.tools = {};
      break;
    case "BeforeModel":
      closeResponse();
      detectCompaction(state, observation, session, extra);
      break;
    case "AfterModel":
      if (observation.spoke) state.spoke = true;
      if (observation.final) {
        state.response = undefined;
      } else {
        const open: OpenResponse = {};
        if (observation.timestamp !== undefined) open.timestamp = observation.timestamp;
        if (state.turn !== undefined) open.turn = state.turn;
        if (observation.model !== undefined) open.model = observation.model;
        if (observation.message_count !== undefined) open.message_count = observation.message_count;
        if (observation.usage !== undefined) open.usage = observation.usage;
        if (observation.usage_metadata !== undefined) open.usage_metadata = observation.usage_metadata;
        state.response = open;
      }
      break;
    case "PreCompress":
      if (observation.trigger === "manual") {
        state.manual = true;
        state.precompress = undefined;
      } else if (observation.trigger === "auto") {
        state.precompress = observation.timestamp ?? state.precompress ?? "unknown";
      }
      break;
    case "BeforeTool":
      before = saidBefore(state, result.context.transcript_path, session);
      pairTools(result.events, state, session);
      break;
    case "AfterTool":
      pairTools(result.events, state, session);
      break;
    case "AfterAgent":
    case "SessionEnd": {
      if (observation.hook === "AfterAgent")
        answerOnly(result.events, state, result.context.transcript_path, session, observation.timestamp);
      closeResponse();
      const chatPath = result.context.transcript_path;
      if (chatPath) {
        const read = readChatUsage(chatPath, state.chat, session, scope.recordingSince);
        for (const event of read.events) {
          if (state.turn !== undefined) event.turn_id = state.turn;
          extra.push(event);
        }
        if (read.cursor) state.chat = read.cursor;
      }
      break;
    }
    default:
      break;
  }

  if (state.turn !== undefined) {
    for (const event of result.events) {
      if (event.kind !== "session_start" && event.kind !== "session_end") event.turn_id ??= state.turn;
    }
    for (const event of [...before, ...extra]) {
      if (event.kind !== "turn_usage") event.turn_id ??= state.turn;
    }
  }
  const enriched: Enriched = { events: extra, state: state as unknown as Record<string, unknown> };
  if (before.length > 0) enriched.before = before;
  return enriched;
}

/** A turn starts (at its prompt's time) or none is known (a session start): nothing of it said yet. */
function startSaying(state: GeminiState, at: string | undefined): void {
  state.said_since = at;
  state.spoke = undefined;
  state.told = undefined;
}

/** Where the next read of what was said starts: its own cursor, or where the usage read got to if further. */
function textCursor(state: GeminiState, path: string): ChatCursor | undefined {
  const own = state.text?.path === path ? state.text : undefined;
  const usage = state.chat?.path === path ? state.chat : undefined;
  if (usage && usage.offset > (own?.offset ?? -1))
    return { path, offset: usage.offset, seen: own?.seen ?? [] };
  return own;
}

/** The turn's model messages not recorded yet, from the chat file; undefined when it cannot be read. */
function readSaid(
  state: GeminiState,
  path: string | null | undefined,
  session: string,
): NormalizedEvent[] | undefined {
  if (!path || state.said_since === undefined) return undefined;
  const read = readChatTexts(path, textCursor(state, path), session, state.said_since);
  if (!read) return undefined;
  state.text = read.cursor;
  return read.events;
}

/** BeforeTool after a response that said something: what it said, recorded before the call. */
function saidBefore(state: GeminiState, path: string | null | undefined, session: string): NormalizedEvent[] {
  if (!state.spoke) return [];
  const said = readSaid(state, path, session);
  if (!said) return [];
  state.spoke = undefined;
  if (said.length > 0) state.told = (state.told ?? 0) + said.length;
  return said;
}

/**
 * AfterAgent: Gemini's reply is every text of the turn. Once the turn recorded some on their own, the answer
 * is what the chat file says since; the reply as it came when the file cannot be read, or nothing was told.
 */
function answerOnly(
  events: NormalizedEvent[],
  state: GeminiState,
  path: string | null | undefined,
  session: string,
  at: string | undefined,
): void {
  const answer = events.find((e) => e.kind === "assistant_message");
  if (answer && state.told) {
    const said = readSaid(state, path, session);
    if (said) {
      answer.payload.text = said.map((e) => e.payload.text).join("\n");
      answer.payload.text_from = "chat_file";
    }
  }
  // What a hook that sends the agent back to work gets next repeats this answer too.
  state.told = (state.told ?? 0) + 1;
  state.spoke = undefined;
  if (at !== undefined) state.said_since = at;
}

function detectCompaction(
  state: GeminiState,
  observation: GeminiObservation,
  session: string,
  extra: NormalizedEvent[],
): void {
  const before = state.messages;
  const after = observation.message_count;
  if (after === undefined) return;
  let detectedBy: string | undefined;
  if (before !== undefined) {
    if (observation.snapshot !== undefined && observation.snapshot !== state.snapshot) {
      detectedBy = "state_snapshot";
    } else if (after < before) {
      detectedBy = "message_count";
    }
  }
  if (detectedBy !== undefined && state.precompress !== undefined && !state.manual) {
    const at = state.precompress;
    const event: NormalizedEvent = {
      kind: "compaction",
      event_id: idFor("compaction", ["auto", session, at, observation.timestamp ?? null]),
      payload: {
        hook_event_name: "PreCompress",
        trigger: "auto",
        phase: "post",
        detected_by: detectedBy,
        messages_before: before,
        messages_after: after,
      },
    };
    if (at !== "unknown") event.payload.pre_compress_at = at;
    const timestamp = observation.timestamp ?? (at !== "unknown" ? at : undefined);
    if (timestamp !== undefined) event.timestamp = timestamp;
    extra.push(event);
  }
  state.messages = after;
  if (observation.snapshot !== undefined) state.snapshot = observation.snapshot;
  state.precompress = undefined;
  state.manual = undefined;
}

function pairTools(events: NormalizedEvent[], state: GeminiState, session: string): void {
  for (const event of events) {
    const isCall = event.kind === "tool_call";
    if (!isCall && event.kind !== "tool_result" && event.kind !== "tool_error") continue;
    const key = `k${digest([event.payload.tool_name ?? null, event.payload.tool_input ?? null]).slice(0, 24)}`;
    const slot = state.tools[key] ?? { n: 0, open: [] };
    let ordinal: number;
    if (isCall) {
      ordinal = slot.n;
      slot.n += 1;
      slot.open.push(ordinal);
      if (slot.open.length > OPEN_KEPT) slot.open.shift();
    } else {
      const open = slot.open.pop();
      if (open !== undefined) {
        ordinal = open;
      } else {
        ordinal = slot.n;
        slot.n += 1;
      }
    }
    // Re-inserted so that the most recently used keys are the ones kept.
    delete state.tools[key];
    state.tools[key] = slot;
    const toolUseId = `gemini-tool-${digest(["tool", session, state.epoch, state.turn ?? null, key, ordinal]).slice(0, 24)}`;
    event.payload.tool_use_id = toolUseId;
    event.event_id = idFor(event.kind, ["paired", event.event_id, toolUseId]);
  }
  const keys = Object.keys(state.tools);
  for (const key of keys.slice(0, Math.max(0, keys.length - TOOL_KEYS_KEPT))) delete state.tools[key];
}

/** The usage of a response that ended without a final chunk, from its last chunk. */
function unfinishedResponse(open: OpenResponse, session: string): NormalizedEvent {
  const payload: Record<string, unknown> = { hook_event_name: "AfterModel", complete: false };
  if (open.model !== undefined) payload.model = open.model;
  if (open.message_count !== undefined) payload.message_count = open.message_count;
  if (open.usage_metadata !== undefined) payload.usage_metadata = open.usage_metadata;
  const event: NormalizedEvent = {
    kind: "turn_usage",
    event_id: idFor("turn_usage", [
      "unfinished",
      session,
      open.timestamp ?? null,
      open.usage_metadata ?? null,
    ]),
    payload,
  };
  if (open.timestamp !== undefined) event.timestamp = open.timestamp;
  if (open.turn !== undefined) event.turn_id = open.turn;
  if (open.usage !== undefined) event.usage = open.usage;
  return event;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isShortString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 256;
}

export const geminiAdapter: ProviderAdapter<GeminiObservation> = {
  name: geminiIdentity.name,
  displayName: geminiIdentity.displayName,
  projectDirEnv: "GEMINI_PROJECT_DIR",
  normalize: (payload, env) => normalizeGeminiHook(payload, env),
  enrich: (result, state, scope) => enrichGemini(result, state, scope),
};
