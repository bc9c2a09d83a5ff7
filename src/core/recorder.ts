// The hook path from raw stdin bytes to appended events. Shared by the
// bundled hook entry and `tapedeck hook`; it loads no CLI or schema code.
import { join } from "node:path";
import {
  effectiveLimits,
  findProjectRoot,
  type ProjectConfig,
  type ProviderConfig,
  readConfigFile,
} from "./config.ts";
import { errorCode, writeDiagnostic } from "./diagnostics.ts";
import type { NormalizedEvent } from "./event.ts";
import { readJsonOrUndefined, writeJsonAtomicSync } from "./fsutil.ts";
import {
  ensureSessionDir,
  ensureTapedeckDir,
  resolveProjectRoot,
  resolveSessionRoot,
  SESSION_FILES,
  tapedeckDir,
} from "./paths.ts";
import type { ProviderAdapter } from "./provider.ts";
import { registerSession } from "./registry.ts";
import { type RecordOutcome, recordEvents, sessionDirNameFor } from "./store.ts";
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
}

/** Hook payloads above this are cut before parsing; the agent is never made to wait on us. */
const NOTHING_RECORDED = { appended: 0, duplicates: 0, dropped: 0, spooled: 0, finalized: false };

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

function locateProject(dir: string): { root: string; config: ProjectConfig } | undefined {
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
}

export function runHook(
  adapter: ProviderAdapter,
  input: HookInput,
  env: Record<string, string | undefined>,
  explicitProject?: string,
  options: RunHookOptions = {},
): HookResult {
  // Cheap checks first: when recording is off, finding that out is the whole
  // cost of a hook, so the payload is parsed only once we know it is wanted.
  const hint =
    explicitProject ??
    env.TAPEDECK_PROJECT_DIR ??
    (adapter.projectDirEnv ? env[adapter.projectDirEnv] : undefined) ??
    null;
  let located = hint ? locateProject(hint) : undefined;
  let parsed: ReturnType<typeof parsePayload> | undefined;
  if (!located && !explicitProject) {
    parsed = parsePayload(input);
    located = locateProject(startDir(parsed.ok ? parsed.value : null, env));
  }
  if (!located) return { status: "not-enabled" };
  const providerConfig = located.config.providers[adapter.name];
  if (!providerConfig) return { status: "off", project: located.root };
  // Stopped: the payload is not even parsed.
  if (providerConfig.recording !== "on") return { status: "off", project: located.root, providerConfig };
  // A fallback path elsewhere would record turns whose hooks leave no marks: twice.
  if (adapter.fallback && !providerConfig.fallback)
    return { status: "off", project: located.root, providerConfig };
  parsed ??= parsePayload(input);
  if (!parsed.ok) {
    writeDiagnostic(safeDiagDir(located.root), { what: "error", stage: "parse", code: "bad_input" });
    return { status: "bad-input", reason: parsed.reason, project: located.root, providerConfig };
  }
  try {
    const result = adapter.normalize(parsed.value, env);
    if (
      result.fallbackForTurn !== undefined &&
      takeTurnMark(located.root, adapter.name, result.fallbackForTurn)
    ) {
      return { status: "covered", project: located.root, providerConfig };
    }
    // Nothing to record and no provider state to move (the TUI's hidden title thread): not even a directory.
    if (result.events.length === 0 && !adapter.enrich) {
      return { status: "covered", project: located.root, providerConfig };
    }
    const sessionRoot = resolveSessionRoot(located.root, providerConfig.session_root, adapter.name);
    ensureTapedeckDir(located.root);
    const spec = {
      projectRoot: located.root,
      sessionRoot,
      identity: result.context.identity,
      mode: providerConfig.mode ?? "capture-only",
      capabilities: result.context.capabilities,
      agentPid: result.context.agent_pid,
      limits: effectiveLimits(located.config),
      lockTimeoutMs: options.lockWaitMs ?? located.config.lock_timeout_ms,
      replayOf: env.TAPEDECK_REPLAY_OF ?? null,
      arm: env.TAPEDECK_ARM ?? null,
      runType: env.TAPEDECK_REPLAY_OF ? ("replay" as const) : undefined,
    };
    // Enrichment (e.g. usage from a transcript) joins the same locked append,
    // so a hook takes the writer lock once.
    const statePath = join(
      sessionRoot,
      sessionDirNameFor(result.context.identity),
      SESSION_FILES.providerState,
    );
    const since = providerConfig.recording_since;
    const extra = adapter.enrich?.(
      result,
      currentState(statePath, since),
      since ? { recordingSince: since } : {},
    );
    const events = extra ? [...result.events, ...extra.events] : result.events;
    // A hook that only moves provider state (Gemini's per-chunk AfterModel)
    // takes no lock and writes no event.
    const outcome =
      events.length > 0
        ? recordEvents(spec, events)
        : {
            ...NOTHING_RECORDED,
            sessionDir: ensureSessionDir(
              sessionRoot,
              sessionDirNameFor(result.context.identity),
              located.root,
            ),
          };
    if (providerConfig.fallback && result.fallbackForTurn === undefined)
      markRecordedTurns(located.root, adapter, events);
    const id = result.context.identity;
    if (id.provider_session_id && result.events.some((e) => e.kind === "session_start")) {
      // Lets the API proxy, which sees only the session id, find this project's archive.
      try {
        registerSession(
          { provider: id.provider, provider_session_id: id.provider_session_id, project_root: located.root },
          env,
        );
      } catch (error) {
        writeDiagnostic(safeDiagDir(located.root), {
          what: "error",
          stage: "registry",
          code: errorCode(error),
        });
      }
    }
    if (extra) {
      const state: Record<string, unknown> = { ...extra.state };
      if (providerConfig.recording_since) state[RECORDING_SINCE] = providerConfig.recording_since;
      writeJsonAtomicSync(statePath, state);
    }
    return {
      status: "recorded",
      outcome,
      project: located.root,
      providerConfig,
    };
  } catch (error) {
    writeDiagnostic(safeDiagDir(located.root), { what: "error", stage: "record", code: errorCode(error) });
    return { status: "failed", reason: errorCode(error), project: located.root, providerConfig };
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
      writeDiagnostic(safeDiagDir(projectRoot), {
        what: "error",
        stage: "turn-mark",
        code: errorCode(error),
      });
      return;
    }
  }
}

function safeDiagDir(projectRoot: string): string {
  return tapedeckDir(projectRoot);
}
