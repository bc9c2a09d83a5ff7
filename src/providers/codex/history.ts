// Codex CLI's past sessions for `tapedeck import`: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread
// id>.jsonl` (CODEX_HOME defaults to ~/.codex) and the flat `archived_sessions/`, each rollout opening with a
// `session_meta` record `{id, session_id, cwd, timestamp, ...}`. A subagent has a rollout of its own whose
// `session_id` is the root thread and `id` its own thread (with `parent_thread_id`): it is grouped under the
// root's session, as the hooks record it. What the records become: history-map.ts.
import { basename, join, resolve } from "node:path";
import type { DiscoverOptions, HistoryFile, HistoryReader, HistorySession, HistorySkip } from "../history.ts";
import { byFirstAt, isoTime, shortString } from "../history.ts";
import { agentHome, lastTimestampOf, listOwnEntries, peekRecords } from "../history-files.ts";
import { capabilities } from "../hook-normalizer.ts";
import { isRecord } from "../shared.ts";
import { CodexHistoryMapper } from "./history-map.ts";

const ROLLOUT = /^rollout-.*\.jsonl$/;
const DATE_PART = /^\d{1,4}$/;

export const CODEX_HISTORY_CAPABILITIES = capabilities({
  omitKinds: ["session_end"],
  features: [
    "turn_usage:codex-transcript",
    "tool_error:rollout-exit-code",
    "turn_id:turn_id",
    "agent_id:rollout-thread",
    "tool_use_id:call_id",
  ],
});

/** What only Codex's hooks report. */
export const CODEX_NOT_CAPTURED: readonly string[] = Object.freeze([
  "session_end",
  "compaction:pre",
  "permission_request",
  "agent_pid",
]);

interface Rollout {
  file: HistoryFile;
  root: string;
  thread: string;
  cwd: string | null;
  firstAt?: string;
  lastAt?: string;
}

function rolloutFiles(home: string, skip: (s: HistorySkip) => void): string[] {
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of listOwnEntries(dir, skip, (name, isDir) =>
      isDir ? depth < 3 && DATE_PART.test(name) : ROLLOUT.test(name),
    )) {
      if (entry.dir) walk(entry.path, depth + 1);
      else if (depth === 3) files.push(entry.path);
    }
  };
  walk(join(home, "sessions"), 0);
  for (const entry of listOwnEntries(
    join(home, "archived_sessions"),
    skip,
    (name, isDir) => !isDir && ROLLOUT.test(name),
  )) {
    files.push(entry.path);
  }
  return files;
}

/** The thread id in a rollout's name (`rollout-<time>-<uuid>.jsonl`), else the name itself. */
const NAMED_THREAD = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;
/** Records looked at for a rollout without session_meta: its first turn_context (with the cwd) comes early. */
const PEEK_RECORDS = 256;

/**
 * The rollout's identity from its session_meta. A rollout without one (Codex builds that wrote none, a file
 * cut at its head) is still read: its thread id from its name, its cwd from its first turn_context, else none
 * (the plan takes it to the project named with --project).
 */
function readMeta(path: string, skip: (s: HistorySkip) => void): Rollout | undefined {
  let meta: Record<string, unknown> | undefined;
  let contextCwd: string | undefined;
  let legacyId: string | undefined;
  let firstAt: string | undefined;
  let seen = 0;
  const opened = peekRecords(path, skip, (record) => {
    seen += 1;
    firstAt ??= isoTime(record.timestamp);
    // Codex's earliest rollouts open with `{id, timestamp, instructions}` instead of session_meta.
    if (seen === 1 && record.type === undefined && typeof record.id === "string")
      legacyId = shortString(record.id);
    if (record.type === "session_meta" && isRecord(record.payload)) meta = record.payload;
    if (record.type === "turn_context" && isRecord(record.payload))
      contextCwd ??= shortString(record.payload.cwd, 4096);
    return meta === undefined && contextCwd === undefined && seen < PEEK_RECORDS;
  });
  if (!opened) return undefined;
  const named =
    NAMED_THREAD.exec(path)?.[1] ?? shortString(basename(path).replace(/^rollout-|\.jsonl$/g, ""), 128);
  const thread = shortString(meta?.id) ?? legacyId ?? named;
  if (thread === undefined) {
    skip({
      source: path,
      reason: "no session_meta record and no thread id in its name: not a rollout Codex writes",
    });
    return undefined;
  }
  const root = shortString(meta?.session_id) ?? thread;
  const cwd = shortString(meta?.cwd, 4096) ?? contextCwd;
  const file: HistoryFile =
    root === thread ? { path, role: "main" } : { path, role: "subagent", agentId: thread };
  const at = firstAt ?? isoTime(meta?.timestamp);
  if (at !== undefined) file.firstAt = at;
  const rollout: Rollout = { file, root, thread, cwd: cwd?.startsWith("/") ? cwd : null };
  if (at !== undefined) rollout.firstAt = at;
  const lastAt = isoTime(lastTimestampOf(path));
  if (lastAt !== undefined) rollout.lastAt = lastAt;
  return rollout;
}

/** `$CODEX_HOME`, else `$HOME/.codex`, from the environment given (a test's, or the user's). */
function codexHome(env: Record<string, string | undefined>): string | undefined {
  const configured = env.CODEX_HOME?.trim();
  if (configured) return resolve(configured);
  return env.HOME ? join(env.HOME, ".codex") : undefined;
}

function discoverCodex(options: DiscoverOptions): HistorySession[] {
  const home = agentHome(codexHome(options.env), options.skip);
  if (!home) return [];
  const byRoot = new Map<string, Rollout[]>();
  for (const path of rolloutFiles(home, options.skip)) {
    const rollout = readMeta(path, options.skip);
    if (!rollout) continue;
    const group = byRoot.get(rollout.root) ?? [];
    group.push(rollout);
    byRoot.set(rollout.root, group);
  }
  const sessions: HistorySession[] = [];
  for (const [root, group] of byRoot) {
    // The root's own rollouts first (a resume in an older Codex wrote another file), then its subagents'.
    group.sort(
      (a, b) => Number(a.file.role === "subagent") - Number(b.file.role === "subagent") || byFirstAt(a, b),
    );
    const main = group.find((r) => r.file.role === "main") ?? group[0]!;
    const session: HistorySession = {
      provider: "codex",
      sessionId: root,
      cwd: main.cwd,
      files: group.map((r) => r.file),
    };
    const firsts = group
      .map((r) => r.firstAt)
      .filter((t): t is string => t !== undefined)
      .sort();
    const lasts = group
      .map((r) => r.lastAt)
      .filter((t): t is string => t !== undefined)
      .sort();
    if (firsts[0] !== undefined) session.firstAt = firsts[0];
    if (lasts.length > 0) session.lastAt = lasts[lasts.length - 1]!;
    sessions.push(session);
  }
  return sessions;
}

export const codexHistory: HistoryReader = {
  discover: discoverCodex,
  mapper: (session, file, state) => new CodexHistoryMapper(session, file, state),
  capabilities: CODEX_HISTORY_CAPABILITIES,
  notCaptured: CODEX_NOT_CAPTURED,
  ownHooks: [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostCompact",
    "Interrupt",
    "SubagentStart",
    "SubagentStop",
  ],
  ownStartSources: ["import"],
};
