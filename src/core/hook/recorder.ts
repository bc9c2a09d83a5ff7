// The hook path from raw stdin bytes to appended events. Shared by the
// bundled hook entry and `tapedeck hook`; it loads no CLI or schema code.
import { join } from "node:path";
import {
  findProjectRoot,
  type ProjectConfig,
  type ProviderConfig,
  readConfigFile,
} from "../archive/config.ts";
import type { NormalizedEvent, NormalizeResult } from "../archive/event.ts";
import {
  ensureSessionDir,
  ensureTapedeckDir,
  resolveProjectRoot,
  SESSION_FILES,
  tapedeckDir,
} from "../archive/paths.ts";
import type { PreparedEvent } from "../archive/prepare.ts";
import { replayLabels } from "../archive/replay-labels.ts";
import { registerSession } from "../archive/session-registry.ts";
import { sessionSpecFor } from "../archive/session-spec.ts";
import {
  prepareForSession,
  type RecordOutcome,
  recordPrepared,
  type SessionSpec,
  sessionDirNameFor,
} from "../archive/session-store.ts";
import { errorCode, writeDiagnostic } from "../base/diagnostics.ts";
import { readJsonOrUndefined, writeJsonAtomicSync } from "../base/fsutil.ts";
import type { ProviderAdapter } from "./provider.ts";
import { markTurn, takeTurnMark } from "./turn-marks.ts";

/** `covered`: a fallback report of a turn the hooks already recorded; nothing written. */
export type HookStatus = "recorded" | "covered" | "off" | "not-enabled" | "bad-input" | "failed";

export interface HookResult {
  status: HookStatus;
  /** the enabled project the hook belongs to, when one was found */
  project?: string;
  providerConfig?: ProviderConfig;
  outcome?: RecordOutcome;
  /** A short reason without payload content, for `--strict` callers. */
  reason?: string;
  /** What the hook prints on stdout for the agent to read; when absent, stdout stays empty. */
  output?: string;
}

/** The outcome of a hook that only moved provider state. */
const NOTHING_RECORDED = { appended: 0, duplicates: 0, dropped: 0, spooled: 0, finalized: false };

/** Hook payloads above this are cut before parsing; the agent is never made to wait on us. */
export const MAX_HOOK_INPUT_BYTES = 64 * 1024 * 1024;

function parsePayload(input: HookInput): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (input.overflow) return { ok: false, reason: "input larger than the hook limit" };
  if (input.data.length === 0) return { ok: false, reason: "empty input" };
  try {
    return { ok: true, value: JSON.parse(input.data.toString("utf8")) };
  } catch {
    return { ok: false, reason: "input is not valid JSON" };
  }
}

function startDir(payload: unknown, env: Record<string, string | undefined>): string {
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  if (typeof cwd === "string" && cwd.length > 0 && cwd.length < 4096) return cwd;
  return env.PWD && env.PWD.length < 4096 ? env.PWD : process.cwd();
}

interface Located {
  root: string;
  config: ProjectConfig;
}

function locateProject(dir: string): Located | undefined {
  let root: string;
  try {
    root = resolveProjectRoot(dir);
  } catch {
    return undefined;
  }
  const found = findProjectRoot(root);
  if (!found) return undefined;
  const read = readConfigFile(found);
  if (read.state === "invalid") {
    // Recording stops until the file is fixed: say so where doctor looks, without a byte of the file.
    writeDiagnostic(tapedeckDir(found), { what: "config_invalid", stage: "config", code: read.error.code });
  }
  return read.state === "ok" ? { root: found, config: read.config } : undefined;
}

export interface HookInput {
  data: Buffer;
  /** the payload was over the limit and was not kept */
  overflow: boolean;
}

export interface RunHookOptions {
  /**
   * How long to wait for a busy session lock before spooling the event. The hook server passes 0: its event
   * loop must never sleep on one session's lock while other sessions' hooks queue behind it.
   */
  lockWaitMs?: number;
  /**
   * Retrieval's step (memory/store/inject.ts), handed in by the hook entry and the hook server: the core knows no
   * memory. Asked only where the provider's config has retrieval on, also while recording is stopped (the two
   * are independent); its event is recorded with the hook's own, and only while recording is on.
   */
  addContext?: ContextStep;
}

/**
 * What the context step sees of a hook: its events as the archive will hold them, never the payload as the
 * agent sent it. Whatever the step derives from a prompt (the search retrieval runs, the query its event
 * records) is then made of text already redacted with the project's rules: reshaping a secret before
 * redaction (lowercased, quoted term by term) hides it from the redactor.
 */
export interface PromptHookView {
  provider: string;
  projectRoot: string;
  providerConfig: ProviderConfig;
  /** The payload's `hook_event_name`: which hook this is. */
  hookEvent?: string;
  /** The payload's events, prepared for the archive (redacted, bounded): the prompt among them, on a prompt hook. */
  events: readonly PreparedEvent[];
  /** Events the adapter derived outside the payload (an inferred compaction), when recording; prepared too. */
  enriched?: readonly PreparedEvent[];
  /** The archive's session id: what the step keeps per-session state under. */
  sessionId?: string;
}

/** Added context: what the hook prints for the agent, and the event that records it. */
export type ContextStep = (view: PromptHookView) => { output?: string; event?: NormalizedEvent } | undefined;

export function runHook(
  adapter: ProviderAdapter,
  input: HookInput,
  env: Record<string, string | undefined>,
  explicitProject?: string,
  options: RunHookOptions = {},
): HookResult {
  const { located, parsed: parsedToLocate } = locate(adapter, input, env, explicitProject);
  if (!located) return { status: "not-enabled" };
  const gated = gate(adapter, located);
  if (gated.status) return contextWhileStopped(gated, adapter, located, input, parsedToLocate, env, options);
  const project = located.root;
  const providerConfig = gated.providerConfig;
  const parsed = parsedToLocate ?? parsePayload(input);
  if (!parsed.ok) {
    writeDiagnostic(tapedeckDir(project), { what: "error", stage: "parse", code: "bad_input" });
    return { status: "bad-input", reason: parsed.reason, project, providerConfig };
  }
  let added: ReturnType<ContextStep>;
  try {
    const result = adapter.normalize(parsed.value, env);
    if (alreadyCovered(adapter, project, result)) return { status: "covered", project, providerConfig };
    const hook: HookRun = {
      adapter,
      located,
      providerConfig,
      result,
      spec: specFor(adapter, located, result, env, options),
    };
    ensureTapedeckDir(project);
    const extra = enrich(hook);
    // Prepared once, before the context step: it reads the events as they will be stored.
    const before = prepareForSession(hook.spec, extra?.before ?? []);
    const own = prepareForSession(hook.spec, result.events);
    const after = prepareForSession(hook.spec, extra?.events ?? []);
    const enriched = [...before, ...after];
    added = addContext(options, { ...viewOf(hook, parsed.value, own), enriched });
    const injected = added?.event ? prepareForSession(hook.spec, [added.event]) : [];
    const outcome = record(hook, [...before, ...own, ...after, ...injected]);
    const derived = [...(extra?.before ?? []), ...result.events, ...(extra?.events ?? [])];
    afterRecord(hook, derived, extra?.state, env);
    return { status: "recorded", outcome, project, providerConfig, ...outputOf(added) };
  } catch (error) {
    writeDiagnostic(tapedeckDir(project), { what: "error", stage: "record", code: errorCode(error) });
    return { status: "failed", reason: errorCode(error), project, providerConfig, ...outputOf(added) };
  }
}

function viewOf(hook: HookRun, payload: unknown, events: readonly PreparedEvent[]): PromptHookView {
  const hookEvent = hookEventOf(payload);
  return {
    provider: hook.adapter.name,
    projectRoot: hook.located.root,
    providerConfig: hook.providerConfig,
    ...(hookEvent !== undefined ? { hookEvent } : {}),
    events,
    sessionId: hook.result.context.identity.session_id,
  };
}

function hookEventOf(payload: unknown): string | undefined {
  const name = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
  return typeof name === "string" ? name : undefined;
}

function outputOf(added: ReturnType<ContextStep>): { output?: string } {
  return added?.output ? { output: added.output } : {};
}

/** The context step, guarded: whatever it throws, the hook records (and the agent waits for) nothing less. */
function addContext(options: RunHookOptions, view: PromptHookView): ReturnType<ContextStep> {
  if (!options.addContext || view.providerConfig.retrieval?.state !== "on") return undefined;
  try {
    return options.addContext(view);
  } catch (error) {
    writeDiagnostic(tapedeckDir(view.projectRoot), {
      what: "error",
      stage: "context",
      code: errorCode(error),
    });
    return undefined;
  }
}

/**
 * Retrieval while recording is stopped: the prompt hook still gets its context (the controls are independent),
 * and nothing is written, the injection's event included.
 */
function contextWhileStopped(
  gated: HookResult,
  adapter: ProviderAdapter,
  located: Located,
  input: HookInput,
  parsedToLocate: Parsed | undefined,
  env: Record<string, string | undefined>,
  options: RunHookOptions,
): HookResult {
  const providerConfig = gated.providerConfig;
  if (!providerConfig || !options.addContext || providerConfig.retrieval?.state !== "on") return gated;
  const parsed = parsedToLocate ?? parsePayload(input);
  if (!parsed.ok) return gated;
  let hook: HookRun;
  let events: PreparedEvent[];
  try {
    const result = adapter.normalize(parsed.value, env);
    hook = {
      adapter,
      located,
      providerConfig,
      result,
      spec: specFor(adapter, located, result, env, options),
    };
    // Nothing is written, but the step still sees the prompt only as it would be stored.
    events = prepareForSession(hook.spec, result.events);
  } catch {
    return gated;
  }
  return { ...gated, ...outputOf(addContext(options, viewOf(hook, parsed.value, events))) };
}

type Parsed = ReturnType<typeof parsePayload>;

/** One hook from normalize on: what every later step reads. */
interface HookRun {
  adapter: ProviderAdapter;
  located: Located;
  providerConfig: ProviderConfig;
  result: NormalizeResult;
  spec: SessionSpec;
}

/**
 * Cheap checks first: when recording is off, finding that out is the whole cost of a hook, so the payload is
 * parsed only when no hint names the project (its cwd is then the hint), and the parse is handed on.
 */
function locate(
  adapter: ProviderAdapter,
  input: HookInput,
  env: Record<string, string | undefined>,
  explicitProject: string | undefined,
): { located?: Located; parsed?: Parsed } {
  const hint =
    explicitProject ??
    env.TAPEDECK_PROJECT_DIR ??
    (adapter.projectDirEnv ? env[adapter.projectDirEnv] : undefined) ??
    null;
  const located = hint ? locateProject(hint) : undefined;
  if (located || explicitProject) return { located };
  const parsed = parsePayload(input);
  return { located: locateProject(startDir(parsed.ok ? parsed.value : null, env)), parsed };
}

/** Whether this provider records in the project now; a stopped hook does not even parse its payload. */
function gate(
  adapter: ProviderAdapter,
  located: Located,
): (HookResult & { status: HookStatus }) | { status?: undefined; providerConfig: ProviderConfig } {
  const providerConfig = located.config.providers[adapter.name];
  if (!providerConfig) return { status: "off", project: located.root };
  if (providerConfig.recording !== "on") return { status: "off", project: located.root, providerConfig };
  // A fallback path elsewhere would record turns whose hooks leave no marks: twice.
  if (adapter.fallback && !providerConfig.fallback)
    return { status: "off", project: located.root, providerConfig };
  return { providerConfig };
}

function alreadyCovered(adapter: ProviderAdapter, projectRoot: string, result: NormalizeResult): boolean {
  if (result.fallbackForTurn !== undefined && takeTurnMark(projectRoot, adapter.name, result.fallbackForTurn))
    return true;
  // Nothing to record and no provider state to move (the TUI's hidden title thread): not even a directory.
  return result.events.length === 0 && !adapter.enrich;
}

function specFor(
  adapter: ProviderAdapter,
  located: Located,
  result: NormalizeResult,
  env: Record<string, string | undefined>,
  options: RunHookOptions,
): SessionSpec {
  const spec = sessionSpecFor(located.root, located.config, {
    provider: adapter.name,
    identity: result.context.identity,
    capabilities: result.context.capabilities,
    agentPid: result.context.agent_pid,
  });
  return {
    ...spec,
    // Derived once for the hook: the provider state's path, the append and a stateless hook's directory.
    dirName: sessionDirNameFor(spec.identity),
    lockTimeoutMs: options.lockWaitMs ?? spec.lockTimeoutMs,
    replayOf: env.TAPEDECK_REPLAY_OF ?? null,
    arm: env.TAPEDECK_ARM ?? null,
    runType: env.TAPEDECK_REPLAY_OF ? "replay" : undefined,
    ...(env.TAPEDECK_REPLAY_OF ? { replay: replayLabels(env) } : {}),
  };
}

function statePathOf(hook: HookRun): string {
  return join(
    hook.spec.sessionRoot,
    hook.spec.dirName ?? sessionDirNameFor(hook.spec.identity),
    SESSION_FILES.providerState,
  );
}

/**
 * Events the adapter derives outside the payload (usage from a transcript), joining the same locked append so
 * that a hook takes the writer lock once. Enrichment never costs the hook its event: whatever it throws, the
 * payload's own events are recorded and the provider state stays as it was.
 */
function enrich(hook: HookRun): ReturnType<NonNullable<ProviderAdapter["enrich"]>> {
  const { adapter, providerConfig } = hook;
  if (!adapter.enrich) return undefined;
  const since = providerConfig.recording_since;
  try {
    return adapter.enrich(
      hook.result,
      currentState(statePathOf(hook), since),
      since ? { recordingSince: since } : {},
    );
  } catch (error) {
    writeDiagnostic(tapedeckDir(hook.located.root), {
      what: "error",
      stage: "enrich",
      code: errorCode(error),
    });
    return undefined;
  }
}

function record(hook: HookRun, events: PreparedEvent[]): RecordOutcome {
  if (events.length > 0) return recordPrepared(hook.spec, events);
  // A hook that only moves provider state (Gemini's per-chunk AfterModel) takes no lock and writes no event.
  const { sessionRoot, identity, projectRoot, dirName } = hook.spec;
  return {
    ...NOTHING_RECORDED,
    sessionDir: ensureSessionDir(sessionRoot, dirName ?? sessionDirNameFor(identity), projectRoot),
  };
}

function afterRecord(
  hook: HookRun,
  events: NormalizedEvent[],
  state: Record<string, unknown> | undefined,
  env: Record<string, string | undefined>,
): void {
  const { adapter, located, providerConfig, result } = hook;
  if (providerConfig.fallback && result.fallbackForTurn === undefined)
    markRecordedTurns(located.root, adapter, events);
  if (result.events.some((e) => e.kind === "session_start")) registerForProxy(located.root, result, env);
  if (state) {
    const kept: Record<string, unknown> = { ...state };
    if (providerConfig.recording_since) kept[RECORDING_SINCE] = providerConfig.recording_since;
    writeJsonAtomicSync(statePathOf(hook), kept);
  }
}

/** Lets the API proxy, which sees only the session id, find this project's archive. */
function registerForProxy(
  projectRoot: string,
  result: NormalizeResult,
  env: Record<string, string | undefined>,
): void {
  const id = result.context.identity;
  if (!id.provider_session_id) return;
  try {
    registerSession(
      { provider: id.provider, provider_session_id: id.provider_session_id, project_root: projectRoot },
      env,
    );
  } catch (error) {
    writeDiagnostic(tapedeckDir(projectRoot), { what: "error", stage: "registry", code: errorCode(error) });
  }
}

const RECORDING_SINCE = "recording_since";

/**
 * The adapter's state for this session, unless it dates from before recording was last switched on: then the
 * adapter starts as on a session's first event, and reads nothing of what happened while recording was off.
 */
function currentState(statePath: string, since: string | undefined): Record<string, unknown> | undefined {
  const state = readJsonOrUndefined<Record<string, unknown>>(statePath);
  if (!state || typeof state !== "object") return undefined;
  if (since !== undefined && state[RECORDING_SINCE] !== since) return undefined;
  const { [RECORDING_SINCE]: _since, ...rest } = state;
  return rest;
}

/**
 * A turn the hooks recorded any event of is theirs: its fallback report is then dropped. (Not only turns whose
 * prompt they recorded: recording switched on mid-turn records the rest of the turn, and notify must not add
 * the prompt typed while it was off.)
 */
function markRecordedTurns(projectRoot: string, adapter: ProviderAdapter, events: NormalizedEvent[]): void {
  for (const turn of new Set(events.map((e) => e.turn_id).filter((t): t is string => !!t))) {
    try {
      markTurn(projectRoot, adapter.name, turn);
    } catch (error) {
      writeDiagnostic(tapedeckDir(projectRoot), {
        what: "error",
        stage: "turn-mark",
        code: errorCode(error),
      });
      return;
    }
  }
}
