// The session store: locked, append-only writes of prepared events.
//
// Per append, the lock holder reads a small state file (next sequence, byte
// size, counters) and probes the on-disk id table; it never rescans
// events.jsonl. If the file is longer than the state says (a writer died
// between its append and its state update), only that tail is scanned.
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, lstatSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import { REDACTION_POLICY, redactText } from "@tapedeck/redact";
import { loadRedactionRules } from "@tapedeck/redact/rules-file";
import { errorCode, writeDiagnostic } from "../base/diagnostics.ts";
import {
  nowIso,
  openRegularSync,
  readJsonOrUndefined,
  UnsafePathError,
  writeAll,
  writeJsonAtomicSync,
} from "../base/fsutil.ts";
import { gitInfo } from "../base/git-info.ts";
import { DEFAULT_LIMITS, type Limits } from "./bound.ts";
import { IdTable, idKey } from "./dedup.ts";
import type { NormalizedEvent, SessionIdentity } from "./event.ts";
import { storedIdentity } from "./identity.ts";
import { parseEventLine, scanLines, sha256OfFd } from "./line-scan.ts";
import { acquireLock, type Lock } from "./lock.ts";
import { foldListCounters, type ManifestWithCounters } from "./manifest-counters.ts";
import { ensureSessionDir, SESSION_FILES, sessionDirName } from "./paths.ts";
import { type PreparedEvent, prepareEvent } from "./prepare.ts";
import { noteTornTail, tornReason } from "./recovery-report.ts";
import type { ReplayLabels } from "./replay-labels.ts";
import type { Checksums, ImportRecord, Manifest } from "./schemas.ts";
import { cleanStaleTemps, listSpool, readSpoolBatch, removeBatch, setAside, writeSpool } from "./spool.ts";
import { applyLineToState, emptyState, type SessionState } from "./state-fold.ts";

// The state fold lives apart so that `list` folds a session's tail without loading the writer.
export { applyLineToState, emptyState, type SessionState } from "./state-fold.ts";

export interface SessionSpec {
  projectRoot: string;
  sessionRoot: string;
  identity: SessionIdentity;
  mode: "capture-only" | "ab";
  capabilities: readonly string[];
  agentPid: number | null;
  limits: Limits;
  runType?: Manifest["run_type"];
  replayOf?: string | null;
  arm?: string | null;
  /** A replay's arm, from the orchestrator's environment (core/archive/replay-labels.ts). */
  replay?: ReplayLabels;
  /** How long to wait for the writer lock before spooling (ms): the project's lock_timeout_ms. */
  lockTimeoutMs?: number;
  /**
   * The caller's own bound on the lock wait, taking precedence over
   * lockTimeoutMs. 0 never sleeps: a busy lock sends the batch straight to
   * the spool (the hook server's event loop must never block on a lock).
   */
  lockWaitMs?: number;
  /** fsync events.jsonl after each batch: survives power loss, costs a disk flush. */
  fsync?: boolean;
  /** The session directory's name (sessionDirNameFor(identity)), when the caller already derived it. */
  dirName?: string;
  /** `tapedeck import`: the agent's files the session was read from; the manifest keeps the latest. */
  imported?: ImportRecord;
  /**
   * Seal the session (checksums, complete) at each commit that appended, with no terminal event: an import
   * reads a past that its file ends without one (Claude writes no session end), and a later import of the
   * grown file seals it again. The session ends where its last event is, not when it was read.
   */
  seal?: boolean;
  /**
   * `tapedeck import`: a lock that cannot be had (busy past the wait, or not creatable: a full disk) throws
   * instead of spooling. The import then stops with its cursor where it was, and the next one reads those
   * records again; spooled, they would wait for a writer that a past session never gets. So every batch in
   * the spool of an imported session is another recorder's (see markRecordedSinceImport).
   */
  noSpool?: boolean;
}

export interface RecordOutcome {
  sessionDir: string;
  appended: number;
  duplicates: number;
  dropped: number;
  spooled: number;
  finalized: boolean;
}

/** Lifecycle events are kept even past the session byte cap, so a capped session still ends cleanly. */
const LIFECYCLE = new Set(["session_start", "session_end", "subagent_start", "subagent_stop", "compaction"]);

const DEFAULT_LOCK_TIMEOUT_MS = 500;

/** The session's lock stayed busy past the wait of a caller that does not spool (SessionSpec.noSpool). */
export class SessionBusyError extends Error {
  readonly code = "EBUSY";
  constructor() {
    super("another writer holds the session's lock");
  }
}
/** A batch's lines are written together, at most this many bytes at a time. */
const PENDING_FLUSH_BYTES = 1024 * 1024;
const MANIFEST_REFRESH_MS = 250;
const STATE_BYTES = 4096;

/**
 * The state file is rewritten in place with one positional write of a
 * padded buffer, instead of write-and-rename: it is the per-append cost we
 * control. A write torn by a crash leaves invalid JSON, and the next writer
 * then rebuilds the state from events.jsonl.
 */
function writeStateInPlace(path: string, state: SessionState): void {
  const json = JSON.stringify(state);
  const buf = Buffer.alloc(Math.max(STATE_BYTES, Buffer.byteLength(json) + 1), 0x20);
  buf.write(json, 0);
  buf[buf.length - 1] = 0x0a;
  let fd: number;
  try {
    fd = openRegularSync(path, constants.O_WRONLY | constants.O_CREAT);
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error;
    // A FIFO or symlink planted as state.json is replaced (rename acts on the entry, never its target).
    writeJsonAtomicSync(path, state);
    return;
  }
  try {
    writeAll(fd, buf, 0);
    if (fstatSync(fd).size !== buf.length) ftruncateSync(fd, buf.length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Ids of lifecycle events are scoped to the epoch (one run of a resumed
 * session): a resumed session can end again, and a resume whose start
 * payload is byte-identical to an earlier one (Codex sends exactly that)
 * still starts a new epoch once the previous one ended. A retry within an
 * epoch keeps its plain id and is deduplicated.
 */
function effectiveEventId(event: PreparedEvent, state: SessionState): string {
  if (event.terminal) return `${event.event_id}@${state.epoch}`;
  if (event.kind === "session_start" && state.ended) return `${event.event_id}@${state.epoch}`;
  return event.event_id;
}

class SessionWriter {
  private fd: number;
  private ids!: IdTable;
  state!: SessionState;
  manifest!: Manifest;
  private newlyFinalized = false;
  private manifestDirty = false;
  private wroteSinceFinalize = false;
  private appendedAny = false;
  private committed = false;
  /**
   * Lines appended in this batch, written in one write at commit, their ids added to the table after it: a
   * batch of 500 events (an import) made 500 writes, and a crash before commit loses no more than before (the
   * state, written after, never counted them).
   */
  private pendingLines: Buffer[] = [];
  private pendingKeys = new Set<bigint>();
  private pendingBytes = 0;

  constructor(
    readonly dir: string,
    private readonly spec: SessionSpec,
  ) {
    // A FIFO planted as events.jsonl once blocked the hook forever on a write over 64 KB: refused here.
    this.fd = openRegularSync(
      join(dir, SESSION_FILES.events),
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
    );
  }

  open(firstTimestamp: string): void {
    const state = readJsonOrUndefined<SessionState>(join(this.dir, SESSION_FILES.state));
    const size = fstatSync(this.fd).size;
    const ids = IdTable.open(join(this.dir, SESSION_FILES.ids));
    if (state?.version !== 1 || !ids || state.size > size) {
      ids?.close();
      this.rebuild();
    } else {
      this.state = state;
      this.ids = ids;
      if (state.size < size) this.reconcileTail();
      else ids.adopt(size);
    }
    this.manifest = this.loadOrCreateManifest(firstTimestamp);
    if (this.spec.identity.identity_source !== "import") this.markRecordedSinceImport();
  }

  /**
   * A session `tapedeck import` made, about to get lines from another recorder (a hook, the proxy, their
   * spooled batches): marked in its manifest first, durably, under the lock. The import leaves a marked session
   * to that recorder, and resumes an unmarked one from its cursor whatever the size of its events file: a
   * difference in size once stood for "the hooks wrote here", and an import interrupted after an append left
   * the same difference, so the session was never imported again.
   */
  private markRecordedSinceImport(): void {
    const m = this.manifest;
    if (m.identity_source !== "import" || m.hooks_since_import !== undefined) return;
    m.hooks_since_import = nowIso();
    writeJsonAtomicSync(join(this.dir, SESSION_FILES.manifest), m, true);
  }

  /** Rebuilds state and id table from the whole file: only after a lost or damaged state file. */
  private rebuild(): void {
    const state = emptyState();
    const keys: bigint[] = [];
    scanLines(this.fd, 0, (line) => {
      if (!line.terminated) return false;
      const parsed = parseEventLine(line.bytes);
      if (parsed) {
        applyLineToState(state, parsed, line.bytes.length + 1);
        keys.push(idKey(parsed.event_id));
      } else {
        state.size += line.bytes.length + 1;
      }
      return true;
    });
    this.state = state;
    this.ids = IdTable.create(join(this.dir, SESSION_FILES.ids), keys);
    this.truncateTornTail(state.size);
  }

  /** Folds lines appended by a writer that died before updating the state file. */
  private reconcileTail(): void {
    scanLines(this.fd, this.state.size, (line) => {
      if (!line.terminated) return false;
      const parsed = parseEventLine(line.bytes);
      if (parsed) {
        applyLineToState(this.state, parsed, line.bytes.length + 1);
        this.ids.add(idKey(parsed.event_id));
      } else {
        this.state.size += line.bytes.length + 1;
      }
      return true;
    });
    this.truncateTornTail(this.state.size);
  }

  /**
   * A final line without a newline is a write cut short by a killed writer.
   * We hold the lock, so nobody is still writing it: drop exactly those bytes,
   * unless they form a complete event, which is kept by adding its newline.
   */
  private truncateTornTail(validEnd: number): void {
    const size = fstatSync(this.fd).size;
    if (size <= validEnd) return;
    const tail = Buffer.alloc(size - validEnd);
    readSync(this.fd, tail, 0, tail.length, validEnd);
    const parsed = parseEventLine(tail);
    if (parsed && this.state.next_sequence <= parsed.sequence) {
      writeAll(this.fd, Buffer.from("\n"));
      applyLineToState(this.state, parsed, tail.length + 1);
      this.ids.add(idKey(parsed.event_id));
      return;
    }
    ftruncateSync(this.fd, validEnd);
    noteTornTail(this.dir, { offset: validEnd, bytes: tail.length, reason: tornReason(tail) });
  }

  private loadOrCreateManifest(firstTimestamp: string): Manifest {
    const path = join(this.dir, SESSION_FILES.manifest);
    const existing = readJsonOrUndefined<Manifest>(path);
    if (existing && existing.schema_version === 1) return existing;
    this.manifestDirty = true;
    const spec = this.spec;
    const git = gitInfo(spec.projectRoot);
    const manifest: Manifest = {
      schema_version: 1,
      session_id: spec.identity.session_id,
      provider: spec.identity.provider,
      provider_session_id: spec.identity.provider_session_id,
      identity_source: spec.identity.identity_source,
      project_root: spec.projectRoot,
      session_dir: this.dir.slice(this.dir.lastIndexOf("/") + 1),
      started_at: firstTimestamp,
      ended_at: null,
      status: "active",
      incomplete_reason: null,
      recording_mode: spec.mode,
      repository_revision: git.revision,
      // A branch is named by whoever made it, and may be named after a token: kept as redaction leaves it.
      repository_branch:
        git.branch === null ? null : redactText(git.branch, loadRedactionRules(spec.projectRoot).rules).text,
      event_count: 0,
      byte_count: 0,
      redaction_count: 0,
      truncation_count: 0,
      dropped_count: 0,
      duplicate_count: 0,
      redaction_policy: REDACTION_POLICY,
      capabilities: [...spec.capabilities],
      run_type: spec.runType ?? "recorded",
      replay_of_session_id: spec.replayOf ?? null,
      arm: spec.arm ?? null,
      ...(spec.imported ? { import: spec.imported } : {}),
      ...(spec.replay
        ? {
            experiment_id: spec.replay.experimentId,
            native_memory: spec.replay.nativeMemory,
            retrieval: spec.replay.retrieval,
            recording_enabled: true,
            arm_labels: spec.replay.labels,
          }
        : {}),
      agent_pid: spec.agentPid,
      last_event_at: null,
      limits: {
        max_string_bytes: spec.limits.max_string_bytes,
        max_array_items: spec.limits.max_array_items,
        max_depth: spec.limits.max_depth,
        max_event_bytes: spec.limits.max_event_bytes,
        max_session_bytes: spec.limits.max_session_bytes,
      },
    };
    writeJsonAtomicSync(path, manifest);
    return manifest;
  }

  /** Appends one event; answers what happened to it. */
  append(event: PreparedEvent): "appended" | "duplicate" | "dropped" {
    const state = this.state;
    if (event.terminal && state.ended) {
      state.duplicate_count += 1;
      return "duplicate";
    }
    const id = effectiveEventId(event, state);
    const key = idKey(id);
    if (this.pendingKeys.has(key) || this.ids.has(key)) {
      state.duplicate_count += 1;
      return "duplicate";
    }
    const { terminal, ...rest } = event;
    const envelope = {
      schema_version: rest.schema_version,
      sequence: state.next_sequence,
      event_id: id,
      timestamp: rest.timestamp,
      kind: rest.kind,
      provider: rest.provider,
      session_id: rest.session_id,
      ...(rest.turn_id !== undefined ? { turn_id: rest.turn_id } : {}),
      ...(rest.agent_id !== undefined ? { agent_id: rest.agent_id } : {}),
      payload: rest.payload,
      redactions: rest.redactions,
      truncations: rest.truncations,
      omitted: rest.omitted,
      ...(rest.usage !== undefined ? { usage: rest.usage } : {}),
    };
    const line = Buffer.from(`${JSON.stringify(envelope)}\n`);
    if (state.size + line.length > this.spec.limits.max_session_bytes && !LIFECYCLE.has(event.kind)) {
      state.dropped_count += 1;
      return "dropped";
    }
    this.pendingLines.push(line);
    this.pendingKeys.add(key);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= PENDING_FLUSH_BYTES) this.writePending();
    this.appendedAny = true;
    applyLineToState(state, envelope, line.length);
    if (foldListCounters(this.manifest, envelope)) this.manifestDirty = true;
    if (event.kind === "session_start" && this.manifest.status !== "active") {
      this.manifestDirty = true;
      this.manifest.status = "active";
      this.manifest.ended_at = null;
      this.manifest.incomplete_reason = null;
    }
    if (terminal && event.kind !== "session_end") state.ended = true;
    if (terminal) this.newlyFinalized = true;
    else if (state.ended) this.wroteSinceFinalize = true;
    return "appended";
  }

  /**
   * Appends events that earlier writers spooled while they could not get the
   * lock, oldest first. A batch that is not events is set aside and reported,
   * never allowed to block this writer; an unsafe spool is never touched.
   */
  drainPending(): number {
    const listing = listSpool(this.dir);
    if (listing.unsafe) {
      writeDiagnostic(this.dir, { what: "spool_unsafe", count: 1 });
      return 0;
    }
    if (listing.temps.length > 0) cleanStaleTemps(this.dir, listing.temps);
    let appended = 0;
    for (const name of listing.names) {
      const batch = readSpoolBatch(this.dir, name);
      if (!batch.ok) {
        setAside(this.dir, name);
        writeDiagnostic(this.dir, { what: "spool_unreadable", count: 1 });
        continue;
      }
      // The import never spools (SessionSpec.noSpool): a batch here is another recorder's.
      if (batch.events.length > 0) this.markRecordedSinceImport();
      for (const e of batch.events) if (this.append(e) === "appended") appended += 1;
      removeBatch(this.dir, name);
    }
    return appended;
  }

  /** The batch's lines to the file, then their ids to the table (an id never names a line not written). */
  private writePending(): void {
    if (this.pendingLines.length === 0) return;
    writeAll(
      this.fd,
      this.pendingLines.length === 1 ? this.pendingLines[0]! : Buffer.concat(this.pendingLines),
    );
    for (const key of this.pendingKeys) this.ids.add(key);
    this.ids.flush();
    this.pendingLines = [];
    this.pendingKeys = new Set();
    this.pendingBytes = 0;
  }

  /** Persists state and manifest; finalizes when a terminal event was appended. */
  commit(): boolean {
    this.writePending();
    // Ids folded in from a reconciled tail, with no line of this batch to take them to disk: flushed before the
    // state that counts their lines. Written after it, a writer killed in between left a state that said
    // those lines were known and a table that did not know them, and the next writer appended them again.
    this.ids.flush();
    this.committed = true;
    if (this.spec.fsync) {
      try {
        fsyncSync(this.fd);
      } catch {
        // fsync is best effort on filesystems that do not support it
      }
    }
    writeStateInPlace(join(this.dir, SESSION_FILES.state), this.state);
    const m = this.manifest;
    const sealImport = this.spec.seal === true && (this.appendedAny || m.status !== "complete");
    const finalize = this.newlyFinalized || this.wroteSinceFinalize || sealImport;
    if (this.spec.imported) {
      m.import = this.spec.imported;
      this.manifestDirty = true;
    }
    m.event_count = this.state.event_count;
    m.byte_count = this.state.size;
    m.redaction_count = this.state.redaction_count;
    m.truncation_count = this.state.truncation_count;
    m.dropped_count = this.state.dropped_count;
    m.duplicate_count = this.state.duplicate_count;
    m.last_event_at = this.state.last_event_at;
    (m as ManifestWithCounters).counts_by_kind = { ...this.state.counts };
    if (finalize) {
      const checksums = this.writeChecksums();
      m.status = "complete";
      if (sealImport && !this.newlyFinalized) m.ended_at = this.state.last_event_at ?? checksums.finalized_at;
      else m.ended_at = m.ended_at && !this.newlyFinalized ? m.ended_at : checksums.finalized_at;
      m.incomplete_reason = null;
    }
    if (finalize || this.manifestDirty || this.manifestIsStale()) {
      writeJsonAtomicSync(join(this.dir, SESSION_FILES.manifest), m);
    }
    return this.newlyFinalized;
  }

  /**
   * Manifest counters are advisory (state.json and events.jsonl are the
   * truth), so a burst of appends refreshes them at most every
   * MANIFEST_REFRESH_MS; status changes are written at once.
   */
  private manifestIsStale(): boolean {
    try {
      return Date.now() - lstatSync(join(this.dir, SESSION_FILES.manifest)).mtimeMs >= MANIFEST_REFRESH_MS;
    } catch {
      return true;
    }
  }

  private writeChecksums(): Checksums {
    const { sha256, bytes } = sha256OfFd(this.fd);
    const checksums: Checksums = {
      schema_version: 1,
      algorithm: "sha256",
      events_sha256: sha256,
      event_count: this.state.event_count,
      byte_count: bytes,
      finalized_at: nowIso(),
    };
    writeJsonAtomicSync(join(this.dir, SESSION_FILES.checksums), checksums);
    return checksums;
  }

  close(): void {
    try {
      // Only a writer that committed leaves its table's pages for the next (the import's next batch).
      if (this.committed) this.ids?.closeKeeping(fstatSync(this.fd).size);
      else this.ids?.close();
    } finally {
      closeSync(this.fd);
    }
  }
}

/** A session's directory is named after the provider's id, so people can find it by the id they know. */
export function sessionDirNameFor(identity: SessionIdentity): string {
  const stored = storedIdentity(identity);
  return sessionDirName(stored.provider_session_id ?? stored.session_id);
}

function takeLock(dir: string, spec: SessionSpec): Lock | null {
  try {
    return acquireLock(dir, { timeoutMs: spec.lockWaitMs ?? spec.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS });
  } catch (error) {
    // No lock could be created (disk full, read-only): the batch goes to the spool like a busy lock's.
    writeDiagnostic(dir, { what: "error", stage: "lock", code: errorCode(error) });
    if (spec.noSpool) throw error;
    return null;
  }
}

/**
 * Records normalized events into a session: prepare (redact, bound) outside
 * the lock, then append under it. Never throws for a lock timeout: the
 * prepared events are spooled for the next writer instead. Identifiers that
 * look like credentials never reach the directory name, the manifest or an
 * envelope (see identity.ts), whoever the caller is.
 */
export function recordEvents(
  spec: SessionSpec,
  events: NormalizedEvent[],
  now: () => string = nowIso,
): RecordOutcome {
  return recordPrepared(spec, prepareForSession(spec, events, now), now);
}

/**
 * The events as the session's archive will hold them: redacted with the built-in rules and the project's own
 * (.tapedeck/redaction.json; an invalid file leaves the built-in ones), bounded, their ids in stored form.
 * What the hook path derives anything from (the search retrieval runs on a prompt), before it appends them.
 */
export function prepareForSession(
  spec: SessionSpec,
  events: readonly NormalizedEvent[],
  now: () => string = nowIso,
): PreparedEvent[] {
  const identity = storedIdentity(spec.identity);
  const rules = loadRedactionRules(spec.projectRoot).rules;
  return events.map((e) => prepareEvent(e, identity, spec.limits, now, rules));
}

/** Appends events prepareForSession made for this session: recordEvents' second half. */
export function recordPrepared(
  spec: SessionSpec,
  prepared: PreparedEvent[],
  now: () => string = nowIso,
): RecordOutcome {
  const safeSpec = { ...spec, identity: storedIdentity(spec.identity) };
  const dir = ensureSessionDir(
    safeSpec.sessionRoot,
    spec.dirName ?? sessionDirNameFor(safeSpec.identity),
    spec.projectRoot,
  );
  const outcome: RecordOutcome = {
    sessionDir: dir,
    appended: 0,
    duplicates: 0,
    dropped: 0,
    spooled: 0,
    finalized: false,
  };
  const lock = takeLock(dir, safeSpec);
  if (!lock) {
    if (safeSpec.noSpool) throw new SessionBusyError();
    if (prepared.length > 0 && writeSpool(dir, prepared)) {
      outcome.spooled = prepared.length;
    } else if (prepared.length > 0) {
      outcome.dropped = prepared.length;
      writeDiagnostic(dir, { what: "dropped", count: prepared.length, stage: "spool" });
    }
    return outcome;
  }
  let writer: SessionWriter | undefined;
  try {
    writer = new SessionWriter(dir, safeSpec);
    writer.open(prepared[0]?.timestamp ?? now());
    outcome.appended += writer.drainPending();
    for (const event of prepared) {
      const result = writer.append(event);
      if (result === "appended") outcome.appended += 1;
      else if (result === "duplicate") outcome.duplicates += 1;
      else outcome.dropped += 1;
    }
    outcome.finalized = writer.commit();
  } catch (error) {
    writeDiagnostic(dir, { what: "error", stage: "append", code: errorCode(error) });
    throw error;
  } finally {
    writer?.close();
    lock.release();
  }
  return outcome;
}

/** The spec a session's own manifest implies: what a repair needs to append its spooled events. */
function specFromManifest(dir: string, manifest: Manifest): SessionSpec {
  return {
    projectRoot: manifest.project_root,
    sessionRoot: dirname(dir),
    identity: {
      provider: manifest.provider,
      provider_session_id: manifest.provider_session_id,
      session_id: manifest.session_id,
      identity_source: manifest.identity_source,
    },
    mode: manifest.recording_mode,
    capabilities: manifest.capabilities,
    agentPid: manifest.agent_pid,
    limits: { ...DEFAULT_LIMITS, ...(manifest.limits ?? {}) },
  };
}

/**
 * Appends what waits in the spool, for a caller that already holds the
 * session's lock (`repair`, and `inspect` of a session nobody writes any
 * more): otherwise only a later hook would ever drain it.
 */
export function drainSpoolLocked(dir: string, manifest: Manifest): { appended: number; finalized: boolean } {
  const writer = new SessionWriter(dir, specFromManifest(dir, manifest));
  try {
    writer.open(nowIso());
    const appended = writer.drainPending();
    const finalized = writer.commit();
    return { appended, finalized };
  } finally {
    writer.close();
  }
}
