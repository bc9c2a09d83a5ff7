// The injection step of the hook path: when retrieval is on for the provider and the hook is its prompt hook,
// the memory relevant to the prompt that this session was not given yet becomes the hook's stdout (the
// provider's injector says in which format), and a `provider_event` of type `context_injection` records the
// outcome, one per prompt: what was given (bytes, item ids and scores, the query and the block itself, so that
// an A/B run can count the context each arm added), or that nothing was relevant, or that everything relevant
// had been given already. Which items a session was given is kept beside the archive (session-state.ts) and
// forgotten when its context starts afresh (a compaction).
//
// On the hot path: this module is light. The retrieval module (SQLite) is loaded through `load` only once a
// prompt hook with retrieval on gets here; dist/hook.cjs and the hook server load dist/retrieval.cjs.
import { createHash } from "node:crypto";
import type { ProviderConfig, RetrievalConfig } from "../../core/archive/config.ts";
import type { NormalizedEvent } from "../../core/archive/event.ts";
import { tapedeckDir } from "../../core/archive/paths.ts";
import type { PreparedEvent } from "../../core/archive/prepare.ts";
import { errorCode, writeDiagnostic } from "../../core/base/diagnostics.ts";
import type { ContextStep, PromptHookView } from "../../core/hook/recorder.ts";
import {
  CONTEXT_INJECTION,
  type ContextInjector,
  type InjectionOutcome,
} from "../../core/ports/injection.ts";
import { forgetGiven, noteGiven, readSessionMemory, type SessionMemory } from "./session-state.ts";

export type { ContextInjector, InjectionOutcome };

/** A prompt's added context (memory/store/retrieval.ts finds it). */
export interface Retrieval {
  outcome: Exclude<InjectionOutcome, "failed">;
  /** The whole block as the agent receives it, marker included; "" when nothing was given. */
  text: string;
  /** UTF-8 bytes of `text`: what A/B runs count as injected context. */
  bytes: number;
  item_ids: string[];
  /** Each given item's relevance score (0 to 1), in the order of item_ids. */
  scores: number[];
  /** The search the prompt became: its content terms. */
  query: string;
  budget_bytes: number;
  /** The score an item needed. */
  threshold: number;
  /** The best score of any item for this prompt, passed or not (null: no item held a word of it). */
  best_score: number | null;
  /** Items relevant to the prompt (over the threshold), given now or before. */
  matched: number;
  /** Relevant items left out because this session was given them already. */
  skipped_repeat_ids: string[];
  /** Some item was cut, or left out, to fit the budget. */
  truncated: boolean;
}

export interface RetrieveOptions {
  budgetBytes?: number;
  threshold?: number;
  /** Items the session was given already: never given again. */
  exclude?: { has(id: string): boolean };
}

/** The part of the retrieval module the hook path calls. */
export interface RetrievalModule {
  retrieve(projectRoot: string, prompt: string, opts?: RetrieveOptions): Retrieval;
}

export { CONTEXT_INJECTION };

export const DEFAULT_BUDGET_BYTES = 4096;
/**
 * Claude Code 2.1 keeps added context whole only below 10,000 characters; past that it saves the text to a
 * file and gives the model a 2 KB preview (measured), which cuts the marker's close tag off.
 */
export const MAX_BUDGET_BYTES = 8192;
/** Below this not even one short item with its heading fits. */
export const MIN_BUDGET_BYTES = 512;

/** A configured budget made safe: a number between MIN and MAX, the default when absent or not a number. */
export function clampBudget(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_BUDGET_BYTES;
  return Math.min(MAX_BUDGET_BYTES, Math.max(MIN_BUDGET_BYTES, Math.floor(value)));
}

/**
 * The relevance an item needs by default: the share of the prompt's term weight it holds (memory/store/relevance.ts).
 * Calibrated on the calibration half of bench/retrieval-eval; docs/memory.md has the figures on the other half.
 */
export const DEFAULT_THRESHOLD = 0.5;

/** A configured threshold made safe: a number from 0 to 1, the default when absent or not a number. */
export function clampThreshold(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return DEFAULT_THRESHOLD;
  return Math.min(1, Math.max(0, value));
}

export function retrievalOn(config: ProviderConfig | undefined): boolean {
  return config?.retrieval?.state === "on";
}

export function retrievalOf(config: ProviderConfig | undefined): RetrievalConfig {
  return config?.retrieval ?? { state: "off" };
}

/**
 * The main agent's prompt of this hook, as the archive stores it (redacted: the search is made of it); a
 * subagent's task message is its parent's words, not the user's.
 */
function promptOf(events: readonly PreparedEvent[]): PreparedEvent | undefined {
  return events.find((e) => e.kind === "user_prompt" && !e.agent_id && typeof e.payload.prompt === "string");
}

/** One per prompt: a retried hook gives the same id, and the store keeps the first. */
function injectionId(prompt: PreparedEvent): string {
  const hash = createHash("sha256").update(`${CONTEXT_INJECTION}\n${prompt.event_id}`).digest("hex");
  return `provider_event-${hash.slice(0, 32)}`;
}

interface Asked {
  budget_bytes: number;
  threshold: number;
}

function injectionEvent(
  prompt: PreparedEvent,
  hookEvent: string,
  asked: Asked,
  found: Retrieval | { outcome: "failed"; error: string },
): NormalizedEvent {
  const r = found.outcome === "failed" ? undefined : found;
  const payload: Record<string, unknown> = {
    hook_event_name: hookEvent,
    type: CONTEXT_INJECTION,
    prompt_event_id: prompt.event_id,
    outcome: found.outcome,
    bytes: r?.bytes ?? 0,
    budget_bytes: asked.budget_bytes,
    threshold: asked.threshold,
    item_ids: r?.item_ids ?? [],
    scores: r?.scores ?? [],
    matched: r?.matched ?? 0,
    best_score: r?.best_score ?? null,
    skipped_repeat_ids: r?.skipped_repeat_ids ?? [],
    truncated: r?.truncated ?? false,
    query: r?.query || null,
    context: r && r.outcome === "injected" ? r.text : null,
    ...(found.outcome === "failed" ? { error: found.error } : {}),
  };
  return {
    kind: "provider_event",
    event_id: injectionId(prompt),
    ...(prompt.turn_id ? { turn_id: prompt.turn_id } : {}),
    payload,
    // Over the size limit the block goes first (its bytes and ids stay), then the query.
    optional_fields: ["context", "query"],
  };
}

/**
 * The agent's context starts afresh: a compaction (any provider's, including Gemini's inferred one) or a
 * session started again from a compacted or cleared conversation.
 */
function startsAfresh(events: readonly PreparedEvent[]): boolean {
  return events.some(
    (e) =>
      e.kind === "compaction" ||
      (e.kind === "session_start" && (e.payload.source === "compact" || e.payload.source === "clear")),
  );
}

/** The session's memory of what it was given; a failure to read it only costs the no-repeat rule. */
function sessionMemory(view: PromptHookView, promptId: string): SessionMemory {
  const none: SessionMemory = { has: () => false };
  if (!view.sessionId) return none;
  try {
    return readSessionMemory(view.projectRoot, view.sessionId, promptId);
  } catch (error) {
    diagnose(view, "retrieval-state", error);
    return none;
  }
}

function diagnose(view: PromptHookView, stage: string, error: unknown): void {
  writeDiagnostic(tapedeckDir(view.projectRoot), { what: "error", stage, code: errorCode(error) });
}

/**
 * The recorder's context step for a provider's injector: undefined unless this is the prompt hook of a
 * provider with retrieval on (any hook of it may reset the session's memory of what it was given). Never
 * throws: a broken memory file or a missing module costs the agent its context, never its hook; the error code
 * goes to diagnostics and to the injection's record.
 */
export function contextStep(
  injectorFor: (provider: string) => ContextInjector | undefined,
  load: () => RetrievalModule,
): ContextStep {
  return (view: PromptHookView) => {
    if (!retrievalOn(view.providerConfig)) return undefined;
    const injector = injectorFor(view.provider);
    if (!injector) return undefined;
    if (view.sessionId && startsAfresh([...view.events, ...(view.enriched ?? [])])) {
      try {
        forgetGiven(view.projectRoot, view.sessionId);
      } catch (error) {
        diagnose(view, "retrieval-state", error);
      }
    }
    if (view.hookEvent !== injector.hookEvent) return undefined;
    const prompt = promptOf(view.events);
    if (!prompt) return undefined;
    const budget = clampBudget(view.providerConfig.retrieval?.budget_bytes);
    const threshold = clampThreshold(view.providerConfig.retrieval?.threshold);
    const memory = sessionMemory(view, prompt.event_id);
    let found: Retrieval;
    try {
      found = load().retrieve(view.projectRoot, prompt.payload.prompt as string, {
        budgetBytes: budget,
        threshold,
        exclude: memory,
      });
    } catch (error) {
      diagnose(view, "retrieval", error);
      const failed = { outcome: "failed" as const, error: errorCode(error) };
      return {
        event: injectionEvent(prompt, injector.hookEvent, { budget_bytes: budget, threshold }, failed),
      };
    }
    if (found.outcome === "injected" && view.sessionId && memory.again === undefined) {
      try {
        noteGiven(view.projectRoot, view.sessionId, prompt.event_id, found.item_ids);
      } catch (error) {
        diagnose(view, "retrieval-state", error);
      }
    }
    const event = injectionEvent(prompt, injector.hookEvent, { budget_bytes: budget, threshold }, found);
    return { ...(found.outcome === "injected" ? { output: injector.output(found.text) } : {}), event };
  };
}
