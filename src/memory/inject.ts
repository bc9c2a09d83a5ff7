// The injection step of the hook path: when retrieval is on for the provider and the hook is its prompt hook,
// the best memory for the prompt becomes the hook's stdout (the provider's injector says in which format), and
// a `provider_event` of type `context_injection` records what was given: bytes, item ids, the query and the
// block itself, so that an A/B run can count the context each arm added.
//
// On the hot path: this module is light. The retrieval module (SQLite) is loaded through `load` only once a
// prompt hook with retrieval on gets here; dist/hook.cjs and the hook server load dist/retrieval.cjs.
import { createHash } from "node:crypto";
import type { ProviderConfig, RetrievalConfig } from "../core/config.ts";
import { errorCode, writeDiagnostic } from "../core/diagnostics.ts";
import type { NormalizedEvent } from "../core/event.ts";
import { tapedeckDir } from "../core/paths.ts";
import type { ContextStep, PromptHookView } from "../core/recorder.ts";

/** What a provider's prompt hook prints so that added context reaches the model's next request. */
export interface ContextInjector {
  /** The hook event whose stdout may add context: the one that fires on each user prompt. */
  hookEvent: string;
  /** The hook's stdout carrying `context`. */
  output(context: string): string;
}

/** A prompt's added context (memory/retrieval.ts finds it). */
export interface Retrieval {
  /** The whole block as the agent receives it, marker included. */
  text: string;
  /** UTF-8 bytes of `text`: what A/B runs count as injected context. */
  bytes: number;
  item_ids: string[];
  /** The search the prompt became. */
  query: string;
  budget_bytes: number;
  /** Items that matched before the budget cut (up to the search limit). */
  matched: number;
  /** Some item was cut, or left out, to fit the budget. */
  truncated: boolean;
}

/** The part of the retrieval module the hook path calls. */
export interface RetrievalModule {
  retrieve(projectRoot: string, prompt: string, opts?: { budgetBytes?: number }): Retrieval | undefined;
}

export const CONTEXT_INJECTION = "context_injection";

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

export function retrievalOn(config: ProviderConfig | undefined): boolean {
  return config?.retrieval?.state === "on";
}

export function retrievalOf(config: ProviderConfig | undefined): RetrievalConfig {
  return config?.retrieval ?? { state: "off" };
}

function hookEventOf(payload: unknown): string | undefined {
  const name = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
  return typeof name === "string" ? name : undefined;
}

/** The main agent's prompt of this hook; a subagent's task message is its parent's words, not the user's. */
function promptOf(events: readonly NormalizedEvent[]): NormalizedEvent | undefined {
  return events.find((e) => e.kind === "user_prompt" && !e.agent_id && typeof e.payload.prompt === "string");
}

/** One per prompt: a retried hook gives the same id, and the store keeps the first. */
function injectionId(prompt: NormalizedEvent): string {
  const hash = createHash("sha256").update(`${CONTEXT_INJECTION}\n${prompt.event_id}`).digest("hex");
  return `provider_event-${hash.slice(0, 32)}`;
}

function injectionEvent(
  prompt: NormalizedEvent,
  hookEvent: string,
  found: Retrieval | undefined,
  budget: number,
): NormalizedEvent {
  const payload: Record<string, unknown> = {
    hook_event_name: hookEvent,
    type: CONTEXT_INJECTION,
    prompt_event_id: prompt.event_id,
    bytes: found?.bytes ?? 0,
    budget_bytes: budget,
    item_ids: found?.item_ids ?? [],
    matched: found?.matched ?? 0,
    truncated: found?.truncated ?? false,
    query: found?.query ?? null,
    context: found?.text ?? null,
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
 * The recorder's context step for a provider's injector: undefined unless this is the prompt hook of a
 * provider with retrieval on. Never throws: a broken memory file or a missing module costs the agent its
 * context, never its hook; the error code goes to diagnostics.
 */
export function contextStep(
  injectorFor: (provider: string) => ContextInjector | undefined,
  load: () => RetrievalModule,
): ContextStep {
  return (view: PromptHookView) => {
    if (!retrievalOn(view.providerConfig)) return undefined;
    const injector = injectorFor(view.provider);
    if (!injector || hookEventOf(view.payload) !== injector.hookEvent) return undefined;
    const prompt = promptOf(view.events);
    if (!prompt) return undefined;
    const budget = clampBudget(view.providerConfig.retrieval?.budget_bytes);
    let found: Retrieval | undefined;
    try {
      found = load().retrieve(view.projectRoot, prompt.payload.prompt as string, { budgetBytes: budget });
    } catch (error) {
      writeDiagnostic(tapedeckDir(view.projectRoot), {
        what: "error",
        stage: "retrieval",
        code: errorCode(error),
      });
      return undefined;
    }
    const event = injectionEvent(prompt, injector.hookEvent, found, budget);
    return { ...(found ? { output: injector.output(found.text) } : {}), event };
  };
}
