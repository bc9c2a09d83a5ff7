// `tapedeck restore`: puts a resumable transcript back at `<claudeHome>/projects/<slug>/<session>.jsonl` from
// either channel. `mirror` is the proxy mirror's faithful copy; `archive` the hook archive's rebuild
// (transcript-rebuild.ts); `auto` the mirror's turns where it has them and the archive's for the turns it
// lacks (a proxy started mid-session, a turn run without it), in time order. Both go through the mirror
// restore's `toTranscript`, so the chain, block split and key order are the ones `mirror restore` writes.
//
// Safety, in order: the session id is the safe charset; `projects/` and the slug directory are real
// directories of the user's own (a symlink or another user's is refused, never written through); an existing
// transcript is replaced only with --force, is backed up first (0600, O_EXCL), and one that holds more than the
// archive knows is never replaced without --force; the new file is written 0600 beside it and renamed (or
// linked, so a transcript that appeared meanwhile is not replaced).
import {
  chmodSync,
  constants,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { sessionDirName } from "../../core/archive/paths.ts";
import { DIR_MODE, FILE_MODE, ownedByUser, unlinkQuietly, writeTempSibling } from "../../core/base/fsutil.ts";
import type { JsonObject } from "../../core/base/json.ts";
import { RestoreError, readMirrorSession, toTranscript } from "./mirror/restore.ts";
import { fileStamp } from "./mirror/writer.ts";
import {
  type ArchivedEvent,
  type RebuildStats,
  rebuildFromArchive,
  UNRECOVERABLE,
} from "./transcript-rebuild.ts";
import {
  compareTranscript,
  observeTranscript,
  type TranscriptComparison,
  type TranscriptExpectation,
} from "./transcript-watch.ts";

export type RestoreSource = "mirror" | "archive" | "auto";

/** What a recorded session's manifest says about where it ran. */
export interface ArchivedSession {
  sessionId: string;
  projectRoot: string;
  branch: string | null;
  events: readonly ArchivedEvent[];
}

/** Claude Code's config directory: CLAUDE_CONFIG_DIR moves it, as it does for Claude itself. */
export function claudeHomeDir(
  explicit?: string,
  env: Record<string, string | undefined> = process.env,
): string {
  return explicit ?? (env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"));
}

/** The directory the session ran in: its session_start's cwd, else the project. */
export function sessionCwd(s: ArchivedSession): string {
  for (const e of s.events) {
    if (e.kind === "session_start" && !e.agent_id && typeof e.payload.cwd === "string") return e.payload.cwd;
  }
  return s.projectRoot;
}

/** Claude's slug of a directory: its realpath (when it still exists) with every non-alphanumeric char `-`. */
export function slugOf(dir: string): string {
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // the project is gone: Claude named the directory after the same path
  }
  return real.replace(/[^a-zA-Z0-9]/g, "-");
}

export function transcriptPathFor(claudeHome: string, cwd: string, sessionId: string): string {
  return join(claudeHome, "projects", slugOf(cwd), `${sessionId}.jsonl`);
}

/** What the archive says the transcript holds at least. */
export function expectationFromArchive(events: readonly ArchivedEvent[]): TranscriptExpectation {
  const ids: string[] = [];
  let prompts = 0;
  let answers = 0;
  const answered = new Set<string>();
  for (const e of events) {
    if (
      !e.agent_id &&
      (e.kind === "tool_result" || e.kind === "tool_error") &&
      typeof e.payload.tool_use_id === "string"
    )
      answered.add(e.payload.tool_use_id);
  }
  for (const e of events) {
    if (e.agent_id) continue;
    if (e.kind === "user_prompt") prompts++;
    else if (e.kind === "assistant_message" && typeof e.payload.text === "string" && e.payload.text !== "")
      answers++;
    else if (
      e.kind === "tool_call" &&
      typeof e.payload.tool_use_id === "string" &&
      answered.has(e.payload.tool_use_id)
    )
      ids.push(e.payload.tool_use_id);
  }
  return { prompts, answers, tool_calls: ids.length, tool_use_ids: ids.slice(0, 2000) };
}

export interface RecordingGap {
  from: string;
  to: string | null;
  reason: string;
}

/**
 * Spans of the session the archive cannot hold: recording switched off (the control log), and a conversation
 * that began before the archive did (its first session_start is a resume).
 */
export function recordingGaps(
  events: readonly ArchivedEvent[],
  changes: readonly { at: string; action: string }[],
): RecordingGap[] {
  const gaps: RecordingGap[] = [];
  const sorted = [...events].sort((a, b) => a.sequence - b.sequence);
  const first = sorted.find((e) => !e.agent_id);
  if (first?.kind === "session_start" && first.payload.source === "resume") {
    gaps.push({
      from: "",
      to: first.timestamp,
      reason: "the archive begins with a resume: earlier turns were not recorded",
    });
  }
  const start = sorted[0]?.timestamp;
  const end = sorted.at(-1)?.timestamp;
  if (!start || !end) return gaps;
  let offSince: string | undefined;
  for (const c of [...changes].sort((a, b) => a.at.localeCompare(b.at))) {
    if (c.action === "stop") offSince ??= c.at;
    else if (c.action === "start" && offSince !== undefined) {
      if (c.at > start && offSince < end)
        gaps.push({ from: offSince, to: c.at, reason: "recording was switched off" });
      offSince = undefined;
    }
  }
  if (offSince !== undefined && offSince < end)
    gaps.push({ from: offSince, to: null, reason: "recording was switched off" });
  return gaps;
}

// ---------------------------------------------------------------------------
// Combining the channels

interface Turn {
  source: "mirror" | "archive";
  at: string;
  records: JsonObject[];
  prompt?: string;
  toolIds: Set<string>;
}

function blocksOf(rec: JsonObject): JsonObject[] {
  const content = (rec.message as JsonObject | undefined)?.content;
  return Array.isArray(content)
    ? content.filter((b): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b))
    : [];
}

function isPrompt(rec: JsonObject): boolean {
  return rec.type === "user" && !blocksOf(rec).some((b) => b.type === "tool_result");
}

function promptText(rec: JsonObject): string | undefined {
  const content = (rec.message as JsonObject).content;
  if (typeof content === "string") return content;
  const texts = blocksOf(rec)
    .filter((b) => b.type === "text" && typeof b.text === "string" && !b.text.startsWith("<system-reminder>"))
    .map((b) => b.text as string);
  return texts.at(-1);
}

/** Splits records into turns at each prompt; records before the first prompt form a turn of their own. */
function turnsOf(records: readonly JsonObject[], source: Turn["source"]): Turn[] {
  const turns: Turn[] = [];
  for (const rec of records) {
    if (isPrompt(rec) || turns.length === 0) {
      turns.push({ source, at: String(rec.timestamp ?? ""), records: [], toolIds: new Set() });
      if (isPrompt(rec)) turns.at(-1)!.prompt = promptText(rec);
    }
    const turn = turns.at(-1)!;
    turn.records.push(rec);
    for (const b of blocksOf(rec)) {
      if (b.type === "tool_use" && typeof b.id === "string") turn.toolIds.add(b.id);
    }
  }
  return turns;
}

function sameTurn(a: Turn, b: Turn): boolean {
  for (const id of a.toolIds) if (b.toolIds.has(id)) return true;
  return a.prompt !== undefined && a.prompt === b.prompt;
}

/** The mirror's turns, and the archive's turns the mirror has no copy of, in time order. */
function mergeTurns(
  mirror: readonly JsonObject[],
  archive: readonly JsonObject[],
): { records: JsonObject[]; mirrorTurns: number; archiveTurns: number } {
  const fromMirror = turnsOf(mirror, "mirror");
  // One archive turn per mirror turn, in order: a prompt typed twice ("continue") is two turns.
  const taken = new Set<Turn>();
  const fromArchive = turnsOf(archive, "archive").filter((t) => {
    const twin = fromMirror.find((m) => !taken.has(m) && sameTurn(m, t));
    if (twin) taken.add(twin);
    return twin === undefined;
  });
  const all = [...fromMirror, ...fromArchive].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return {
    records: all.flatMap((t) => t.records),
    mirrorTurns: fromMirror.length,
    archiveTurns: fromArchive.length,
  };
}

// ---------------------------------------------------------------------------
// Plan and write

export interface RestorePlan {
  session_id: string;
  from: RestoreSource;
  /** Where the records came from: turns taken from each channel. */
  used: { mirror_turns: number; archive_turns: number; mirror_files: number };
  path: string;
  cwd: string;
  git_branch: string | null;
  records: JsonObject[];
  bytes: number;
  by_type: Record<string, number>;
  current: TranscriptComparison;
  /** What no channel could give back (always the hooks' blind spots when the archive was used). */
  not_rebuilt: string[];
  archive_stats: RebuildStats | null;
  /** Recorded values the recording redacted: they stay redacted in the restored transcript. */
  redacted_events: number;
  gaps: RecordingGap[];
}

export interface PlanOptions {
  from: RestoreSource;
  session: ArchivedSession;
  claudeHome: string;
  mirrorDir: string;
  controlChanges?: readonly { at: string; action: string }[];
}

function recordType(rec: JsonObject): string {
  if (rec.type === "assistant") return `assistant:${blocksOf(rec)[0]?.type ?? "?"}`;
  if (rec.type === "user") return isPrompt(rec) ? "user:prompt" : "user:tool_result";
  return String(rec.type);
}

function readMirrorOrNone(mirrorDir: string, sessionId: string, required: boolean) {
  try {
    return readMirrorSession(mirrorDir, sessionId);
  } catch (error) {
    if (!required && error instanceof RestoreError && error.code === "not_found") return undefined;
    throw error;
  }
}

export function planRestore(opts: PlanOptions): RestorePlan {
  const { session, from } = opts;
  const sessionId = session.sessionId;
  if (sessionId === "" || sessionDirName(sessionId) !== sessionId) {
    throw new RestoreError("unsafe_id", "session id must use only letters, digits, '.', '_' and '-'");
  }
  const mirror =
    from === "archive" ? undefined : readMirrorOrNone(opts.mirrorDir, sessionId, from === "mirror");
  const rebuilt = from === "mirror" ? undefined : rebuildFromArchive(session.events, sessionId);
  let source: JsonObject[];
  let used = { mirror_turns: 0, archive_turns: 0, mirror_files: mirror?.files ?? 0 };
  if (mirror && rebuilt) {
    const merged = mergeTurns(mirror.records, rebuilt.records);
    source = merged.records;
    used = { ...used, mirror_turns: merged.mirrorTurns, archive_turns: merged.archiveTurns };
  } else if (mirror) {
    source = mirror.records;
    used.mirror_turns = turnsOf(mirror.records, "mirror").length;
  } else {
    source = rebuilt?.records ?? [];
    used.archive_turns = turnsOf(source, "archive").length;
  }
  const cwd = sessionCwd(session);
  const records = toTranscript(source, {
    sessionId,
    cwd,
    ...(session.branch ? { gitBranch: session.branch } : {}),
  });
  if (records.length === 0) {
    throw new RestoreError(
      "not_found",
      `nothing to restore for ${sessionId}: no prompt or answer was recorded`,
    );
  }
  const path = transcriptPathFor(opts.claudeHome, cwd, sessionId);
  const by_type: Record<string, number> = {};
  for (const r of records) by_type[recordType(r)] = (by_type[recordType(r)] ?? 0) + 1;
  const current = compareTranscript(expectationFromArchive(session.events), observeTranscript(path));
  const archiveUsed = used.archive_turns > 0;
  return {
    session_id: sessionId,
    from,
    used,
    path,
    cwd,
    git_branch: session.branch,
    records,
    bytes: Buffer.byteLength(serialize(records)),
    by_type,
    current,
    not_rebuilt: archiveUsed ? [...UNRECOVERABLE] : [],
    archive_stats: rebuilt?.stats ?? null,
    redacted_events: rebuilt?.stats.redacted_events ?? 0,
    gaps: recordingGaps(session.events, opts.controlChanges ?? []),
  };
}

function serialize(records: readonly JsonObject[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}

/** Creates `dir` (0700) when missing; refuses a symlink or non-directory there. */
function realDir(dir: string): void {
  let st: ReturnType<typeof lstatSync> | undefined;
  try {
    st = lstatSync(dir);
  } catch {
    mkdirSync(dir, { mode: DIR_MODE });
    st = lstatSync(dir);
  }
  if (st.isSymbolicLink()) {
    throw new RestoreError("unsafe_path", `${dir} is a symlink; refusing to write a transcript through it`);
  }
  if (!st.isDirectory()) throw new RestoreError("unsafe_path", `${dir} is not a directory`);
  if (!ownedByUser(st)) {
    throw new RestoreError(
      "unsafe_path",
      `${dir} belongs to another user; tapedeck writes only into your own directories`,
    );
  }
}

export interface WriteResult {
  path: string;
  records: number;
  bytes: number;
  backup?: string;
}

export function writeRestore(
  plan: RestorePlan,
  opts: { force?: boolean; now?: () => number } = {},
): WriteResult {
  const { path } = plan;
  const slugDir = dirname(path);
  const projects = dirname(slugDir);
  mkdirSync(dirname(projects), { recursive: true, mode: DIR_MODE });
  realDir(projects);
  realDir(slugDir);
  let existing: ReturnType<typeof lstatSync> | undefined;
  try {
    existing = lstatSync(path);
  } catch {
    existing = undefined;
  }
  let backup: string | undefined;
  if (existing) {
    if (!existing.isFile()) throw new RestoreError("unsafe_path", `${path} is not a regular file`);
    if (!opts.force) {
      const why =
        plan.current.finding === "newer"
          ? `${path} holds more than the archive knows (${plan.current.detail}); it is not replaced without --force`
          : `${path} exists (${plan.current.finding}); pass --force to replace it (a backup is kept)`;
      throw new RestoreError("exists", why);
    }
    backup = `${path}.bak-${fileStamp((opts.now ?? Date.now)())}`;
    copyFileSync(path, backup, constants.COPYFILE_EXCL);
    chmodSync(backup, FILE_MODE);
  }
  const data = Buffer.from(serialize(plan.records));
  const tmp = writeTempSibling(path, data);
  try {
    if (existing) renameSync(tmp, path);
    else {
      linkSync(tmp, path);
      unlinkQuietly(tmp);
    }
  } catch (error) {
    unlinkQuietly(tmp);
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new RestoreError(
        "exists",
        `${path} appeared meanwhile; pass --force to replace it (a backup is kept)`,
      );
    }
    throw error;
  }
  return { path, records: plan.records.length, bytes: data.length, ...(backup ? { backup } : {}) };
}
