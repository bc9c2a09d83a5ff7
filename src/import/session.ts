// One planned session into the archive: its files streamed line by line through the provider's mapper, the
// events appended in batches through the core's one write path (core/archive/session-store.ts recordEvents: normalize ->
// redact with the project's rules -> bound -> append under the session lock), then sealed with checksums
// and the import record, and the cursor written. Memory stays bounded by one batch and the scanner's buffer
// (the longest line), whatever the file's size.
//
// Resumable at any byte: before its first append a run marks the cursor in progress (cursor.ts), and it moves
// the cursor only once all its events are in. Killed, interrupted or stopped by a full disk anywhere between,
// the next run reads from the same cursor, derives the same events with the same ids, and the store drops
// those already appended. A run that fails says how many events it appended, and leaves no empty directory
// behind a new session (written.ts).
//
// A subagent's file is read where the session's own file reaches the time of its first record, so its events
// land inside the turn and after the tool call that started it, in the order the hooks would have appended
// them; a subagent file with no time is read after the session's own.
import { createHash } from "node:crypto";
import { closeSync, fstatSync, readSync } from "node:fs";
import type { RedactionRules } from "@tapedeck/redact";
import { loadRedactionRules } from "@tapedeck/redact/rules-file";
import type { NormalizedEvent } from "../core/archive/event.ts";
import { parseObjectLine, scanLines } from "../core/archive/line-scan.ts";
import { ensureSessionDir } from "../core/archive/paths.ts";
import type { ImportedFile, ImportRecord } from "../core/archive/schemas.ts";
import { type RecordOutcome, recordEvents, sessionDirNameFor } from "../core/archive/session-store.ts";
import { hashPrefix } from "../core/base/byte-range.ts";
import { errorCode } from "../core/base/diagnostics.ts";
import { nowIso } from "../core/base/fsutil.ts";
import {
  type HistoryMapper,
  type HistoryReader,
  type ImportRun,
  newImportRun,
} from "../providers/history.ts";
import { openAgentFile, openFailure } from "../providers/history-files.ts";
import {
  CURSOR_VERSION,
  markInProgress,
  pathKey,
  readCursor,
  type SessionCursor,
  safePath,
  writeCursor,
} from "./cursor.ts";
import type { PlannedFile, PlannedSession } from "./plan.ts";
import { linesWritten, madeDir, type RunStart, removeIfNothingWritten, startRun } from "./written.ts";

/**
 * Events per append: the lock is taken, the state and manifest written once per batch. A batch is what
 * survives V8's young-generation collections, and the young generation grows with it: on a 1 GB transcript
 * 500 events a batch peaked at 139 MiB RSS, 250 at 123-125 MiB, 200 at 119-120 MiB, for the same CPU time
 * (the store keeps the id table's pages from one batch to the next). A batch is also cut once
 * the lines it came from pass BATCH_SOURCE_BYTES (an event is never much larger than its record).
 */
const BATCH_EVENTS = 200;
const BATCH_SOURCE_BYTES = 4 * 1024 * 1024;
/** A progress report every this many bytes read. */
const PROGRESS_BYTES = 8 * 1024 * 1024;
/** A hook waiting on the same session's lock is never blocked longer than this. */
const LOCK_WAIT_MS = 10_000;
const NEWLINE = Buffer.from("\n");

/** A torn write is at most one record long; a longer tail is left as it is. */
const FINAL_RECORD_BYTES = 16 * 1024 * 1024;

/** The file's bytes after its last newline when they are one whole JSON object (no newline after it). */
function finalRecord(fd: number, from: number, size: number): Buffer | undefined {
  if (size <= from || size - from > FINAL_RECORD_BYTES) return undefined;
  const bytes = Buffer.allocUnsafe(size - from);
  if (readSync(fd, bytes, 0, bytes.length, from) !== bytes.length) return undefined;
  return parseObjectLine(bytes) ? bytes : undefined;
}

/** The tokens a usage counts: input, output and both cache counts. */
function tokensOf(usage: NonNullable<NormalizedEvent["usage"]>): number {
  let n = 0;
  for (const k of [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
  ] as const) {
    const v = usage[k];
    if (typeof v === "number") n += v;
  }
  return n;
}

/** What one file of the session gave this run: its lines, the events they became, what was skipped and where. */
export interface FileOutcome {
  /** the path, redacted */
  path: string;
  records: number;
  mapped: number;
  events: number;
  /** input, output and cache tokens of its turn_usage events */
  tokens: number;
  skipped: Record<string, number>;
  unknown: Record<string, number>;
  malformed: number;
  /** the first line numbers of each skipped, unknown or malformed type */
  lines: Record<string, number[]>;
}

export interface SessionOutcome {
  appended: number;
  duplicates: number;
  dropped: number;
  spooled: number;
  /** lines that were not records of the agent's */
  malformed: number;
  /** files that ended with an incomplete line (the agent may be writing it): left for the next import */
  torn: number;
  /** files that could not be opened (with why) */
  unreadable: Array<{ source: string; reason: string }>;
  bytesRead: number;
  files: FileOutcome[];
  /** nothing was there to import: no session was created */
  empty: boolean;
  /** the run stopped part-way (the error's code): `appended` is what it wrote, the next import resumes it */
  failed?: string;
  /** a new session that failed before any event was written: its directory was removed */
  removed?: boolean;
}

export function importSession(
  planned: PlannedSession,
  reader: HistoryReader,
  onBytes: (bytes: number) => void = () => {},
  run: ImportRun = newImportRun(),
): SessionOutcome {
  return new SessionImport(planned, reader, onBytes, run).perform();
}

class SessionImport {
  private batch: NormalizedEvent[] = [];
  private readonly outcome: SessionOutcome = {
    appended: 0,
    duplicates: 0,
    dropped: 0,
    spooled: 0,
    malformed: 0,
    torn: 0,
    unreadable: [],
    bytesRead: 0,
    files: [],
    empty: false,
  };
  /** the cursor as the run found it: what an interrupted run leaves for the next */
  private readonly previous: SessionCursor | undefined;
  /** the cursor the run builds as it reads, written once its events are all in */
  private readonly cursor: SessionCursor;
  private start: RunStart | undefined;
  private readonly imported = new Map<string, ImportedFile>();
  private readonly rules: RedactionRules | undefined;
  private queue: PlannedFile[];
  private pendingBytes = 0;
  private produced = 0;
  private batchSource = 0;

  constructor(
    private readonly planned: PlannedSession,
    private readonly reader: HistoryReader,
    private readonly onBytes: (bytes: number) => void,
    private readonly run: ImportRun,
  ) {
    this.previous = planned.status === "grown" ? readCursor(planned.sessionDir) : undefined;
    this.cursor = {
      schema_version: CURSOR_VERSION,
      files: Object.assign(Object.create(null), this.previous?.files),
    };
    this.rules = loadRedactionRules(planned.project).rules;
    this.queue = planned.files
      .slice(1)
      .filter((f) => f.file.firstAt !== undefined)
      .sort((a, b) => a.file.firstAt!.localeCompare(b.file.firstAt!));
  }

  perform(): SessionOutcome {
    try {
      return this.read();
    } catch (error) {
      this.outcome.failed = errorCode(error);
      if (this.start) {
        this.outcome.appended = linesWritten(this.start);
        if (this.outcome.appended === 0) this.outcome.removed = removeIfNothingWritten(this.start);
      }
      return this.outcome;
    }
  }

  private read(): SessionOutcome {
    const [main, ...rest] = this.planned.files;
    this.readFile(main!, true);
    for (const f of this.queue.splice(0)) this.readFile(f, false);
    for (const f of rest.filter((r) => r.file.firstAt === undefined)) this.readFile(f, false);
    this.reportBytes(true);
    if (this.planned.status === "new" && this.produced === 0) {
      this.outcome.empty = true;
      return this.outcome;
    }
    this.flush(true);
    this.finish();
    return this.outcome;
  }

  private readFile(planned: PlannedFile, main: boolean): void {
    const path = planned.file.path;
    let fd: number;
    try {
      fd = openAgentFile(path);
    } catch (error) {
      this.outcome.unreadable.push({ source: safePath(path, this.rules), reason: openFailure(error) });
      return;
    }
    try {
      this.scanFile(fd, planned, main);
    } finally {
      closeSync(fd);
    }
  }

  private scanFile(fd: number, planned: PlannedFile, main: boolean): void {
    const { file } = planned;
    const size = fstatSync(fd).size;
    const key = pathKey(file.path);
    const previous = this.cursor.files[key];
    let hash = createHash("sha256");
    let start = 0;
    let state: Record<string, unknown> | undefined;
    // A JSON document is rewritten whole by its agent: always read from its start.
    if (file.format !== "json" && previous && previous.offset > 0 && previous.offset <= size) {
      hashPrefix(fd, previous.offset, hash);
      if (hash.copy().digest("hex") === previous.sha256) {
        start = previous.offset;
        state = previous.state;
      } else {
        // Rewritten under the same name: read it all again; the store drops the events it already has.
        hash = createHash("sha256");
      }
    }
    const mapper = this.reader.mapper(this.planned.session, file, state, this.run);
    const stats = this.fileStats(file.path);
    const take = (events: NormalizedEvent[]) => {
      for (const event of events) {
        stats.events += 1;
        if (event.usage) stats.tokens += tokensOf(event.usage);
        this.push(event, main);
      }
    };
    let end: number;
    if (file.format === "json") end = this.scanDocument(fd, size, hash, mapper, take);
    else {
      end = scanLines(
        fd,
        start,
        (line) => {
          hash.update(line.bytes);
          hash.update(NEWLINE);
          this.countBytes(line.bytes.length + 1);
          const events = mapper.line(line.bytes, line.offset);
          if (events.length > 0) this.batchSource += line.bytes.length;
          take(events);
        },
        { end: size, completeOnly: true },
      );
      const last = finalRecord(fd, end, size);
      if (last) {
        // A last line the agent ended without a newline, yet a whole JSON object: a record, not a torn write.
        hash.update(last);
        this.countBytes(last.length);
        take(mapper.line(last, end));
        end = size;
      }
    }
    take(mapper.end());
    if (end < size) this.outcome.torn += 1;
    this.outcome.malformed += mapper.malformed;
    Object.assign(stats, {
      records: mapper.tally.records,
      mapped: mapper.tally.mapped,
      skipped: mapper.tally.skipped,
      unknown: mapper.tally.unknown,
      malformed: mapper.tally.malformed,
      lines: mapper.tally.lines,
    });
    const sha256 = hash.digest("hex");
    this.cursor.files[key] = { path: file.path, offset: end, sha256, state: mapper.state() };
    this.imported.set(key, { path: safePath(file.path, this.rules), bytes: end, sha256 });
  }

  /** A file that is one JSON document: read whole (the reader bounded its size), parsed once, mapped. */
  private scanDocument(
    fd: number,
    size: number,
    hash: ReturnType<typeof createHash>,
    mapper: HistoryMapper,
    take: (events: NormalizedEvent[]) => void,
  ): number {
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const text = bytes.subarray(0, read);
    hash.update(text);
    this.countBytes(read);
    let doc: unknown;
    try {
      doc = JSON.parse(text.toString("utf8"));
    } catch {
      doc = undefined;
    }
    take(mapper.document ? mapper.document(doc) : []);
    return read;
  }

  private fileStats(path: string): FileOutcome {
    const stats: FileOutcome = {
      path: safePath(path, this.rules),
      records: 0,
      mapped: 0,
      events: 0,
      tokens: 0,
      skipped: {},
      unknown: {},
      malformed: 0,
      lines: {},
    };
    this.outcome.files.push(stats);
    return stats;
  }

  /** Appends to the batch; a subagent's file due by this event's time is read first. */
  private push(event: NormalizedEvent, main: boolean): void {
    if (main && event.timestamp !== undefined) {
      while (this.queue.length > 0 && this.queue[0]!.file.firstAt! <= event.timestamp) {
        this.readFile(this.queue.shift()!, false);
      }
    }
    this.batch.push(event);
    this.produced += 1;
    if (this.batch.length >= BATCH_EVENTS || this.batchSource >= BATCH_SOURCE_BYTES) this.flush(false);
  }

  private flush(final: boolean): void {
    const events = this.batch;
    this.batch = [];
    this.batchSource = 0;
    if (!final && events.length === 0) return;
    const spec = {
      ...this.planned.spec,
      lockWaitMs: LOCK_WAIT_MS,
      noSpool: true,
      ...(final ? { seal: true, imported: this.record() } : {}),
    };
    this.begin();
    this.add(recordEvents(spec, events));
  }

  /** Before the run's first append: its directory, and the cursor as it was, marked in progress. */
  private begin(): void {
    if (this.start) return;
    const { sessionDir, spec } = this.planned;
    this.start = startRun(sessionDir);
    ensureSessionDir(spec.sessionRoot, sessionDirNameFor(spec.identity), spec.projectRoot);
    madeDir(this.start);
    markInProgress(sessionDir, this.previous, { started_at: nowIso(), pid: process.pid });
  }

  private add(out: RecordOutcome): void {
    this.outcome.appended += out.appended;
    this.outcome.duplicates += out.duplicates;
    this.outcome.dropped += out.dropped;
    this.outcome.spooled += out.spooled;
  }

  private record(): ImportRecord {
    const files = this.planned.files
      .map((f) => this.imported.get(pathKey(f.file.path)))
      .filter((f): f is ImportedFile => f !== undefined);
    const source = files[0] ?? {
      path: safePath(this.planned.files[0]!.file.path, this.rules),
      bytes: 0,
      sha256: createHash("sha256").digest("hex"),
    };
    return { source, files, imported_at: nowIso(), not_captured: [...this.reader.notCaptured] };
  }

  /** The cursor, once the events are in: a crash before it only means the next import reads them again. */
  private finish(): void {
    writeCursor(this.planned.sessionDir, this.cursor, this.rules);
  }

  private countBytes(n: number): void {
    this.outcome.bytesRead += n;
    this.pendingBytes += n;
    if (this.pendingBytes >= PROGRESS_BYTES) this.reportBytes(false);
  }

  private reportBytes(force: boolean): void {
    if (this.pendingBytes === 0 || (!force && this.pendingBytes < PROGRESS_BYTES)) return;
    this.onBytes(this.pendingBytes);
    this.pendingBytes = 0;
  }
}
