// `tapedeck import`, provider-neutral: the plan's sessions imported one after another (session.ts), each
// registered for the user's registry (so `list --all-projects`, the proxy and restore find it), with a
// progress report between files and one outcome for the command to print. A session that fails is reported,
// with the events it got before it stopped, and the others go on; the next import resumes it.

import { storedIdentity } from "../core/archive/identity.ts";
import { ensureTapedeckDir, UnsafePathError } from "../core/archive/paths.ts";
import { registerSession } from "../core/archive/session-registry.ts";
import { removeTombstone } from "../core/archive/tombstone.ts";
import { errorCode } from "../core/base/diagnostics.ts";
import { type ImportRun, newImportRun } from "../providers/history.ts";
import { safePath } from "./cursor.ts";
import { historyReader, type ImportPlan, type PlannedSession, REASONS } from "./plan.ts";
import { type FileOutcome, importSession, type SessionOutcome } from "./session.ts";

export interface ImportProgress {
  bytesDone: number;
  bytesTotal: number;
  sessionsDone: number;
  sessionsTotal: number;
}

export interface ImportedSession {
  provider: string;
  /** the archive's id (`<provider>:<id>`), as tapedeck stores it */
  session_id: string;
  /** the agent's own id, as stored */
  provider_session_id: string;
  project: string;
  source: string;
  status: "new" | "grown";
  /** an earlier import of it had been stopped part-way: this one took it up from its cursor */
  resumed: boolean;
  /** the error's code when this import stopped part-way (its events are those it appended before) */
  error: string | null;
  path: string;
  events: number;
  duplicates: number;
  dropped: number;
  spooled: number;
  bytes: number;
  first_at: string | null;
  last_at: string | null;
  malformed_lines: number;
  torn_tail: boolean;
  /** per file read: its records, the events they became, what was skipped or unknown, by record type */
  files: FileOutcome[];
}

export interface ImportResult {
  imported: ImportedSession[];
  skipped: Array<{ source: string; reason: string }>;
  sessions: number;
  events: number;
  unchanged: number;
  elsewhere: number;
  /** sessions that failed part-way (also in `skipped`, with the error code; in `imported` once they got events) */
  failed: number;
  /** the projects written into */
  projects: string[];
}

export interface RunOptions {
  env: Record<string, string | undefined>;
  onProgress?: (p: ImportProgress) => void;
}

export function runImport(plan: ImportPlan, options: RunOptions): ImportResult {
  const result: ImportResult = {
    imported: [],
    skipped: [...plan.skipped],
    sessions: 0,
    events: 0,
    unchanged: plan.unchanged,
    elsewhere: plan.elsewhere,
    failed: 0,
    projects: [],
  };
  const progress: ImportProgress = {
    bytesDone: 0,
    bytesTotal: plan.sessions.reduce((n, s) => n + s.bytes, 0),
    sessionsDone: 0,
    sessionsTotal: plan.sessions.length,
  };
  const projects = new Set<string>();
  const shared = newImportRun();
  for (const planned of plan.sessions) {
    const source = safePath(planned.files[0]!.file.path);
    try {
      const outcome = importOne(
        planned,
        (n) => {
          progress.bytesDone += n;
          options.onProgress?.(progress);
        },
        shared,
      );
      for (const u of outcome.unreadable) result.skipped.push(u);
      if (outcome.failed !== undefined) {
        result.failed += 1;
        result.skipped.push({ source, reason: `import failed (${outcome.failed})` });
      }
      if (outcome.empty) result.skipped.push({ source, reason: "no records to import" });
      else if (!outcome.removed) {
        result.imported.push(summary(planned, outcome, source));
        result.events += outcome.appended;
        if (outcome.appended > 0) result.sessions += 1;
        projects.add(planned.project);
        register(planned, options.env);
        // Imported again on purpose (--include-deleted): the session is back, its tombstone goes.
        if (outcome.failed === undefined)
          removeTombstone(planned.project, planned.provider, planned.session.sessionId);
      }
    } catch (error) {
      result.failed += 1;
      // Refused by the owner rule after the plan (the directory changed meanwhile): said as the plan says it.
      const reason =
        error instanceof UnsafePathError
          ? `${REASONS.refused}: ${safePath(error.message)}`
          : `import failed (${errorCode(error)})`;
      result.skipped.push({ source, reason });
    }
    progress.sessionsDone += 1;
    options.onProgress?.(progress);
  }
  result.projects = [...projects].sort();
  return result;
}

function importOne(planned: PlannedSession, onBytes: (n: number) => void, shared: ImportRun): SessionOutcome {
  const reader = historyReader(planned.provider);
  if (!reader) throw new Error("no history reader");
  // .tapedeck made as install makes it: 0700, refusing a symlink, with a .gitignore of `*`.
  ensureTapedeckDir(planned.project);
  return importSession(planned, reader, onBytes, shared);
}

function summary(planned: PlannedSession, o: SessionOutcome, source: string): ImportedSession {
  const stored = storedIdentity(planned.spec.identity);
  return {
    provider: planned.provider,
    session_id: stored.session_id,
    provider_session_id: stored.provider_session_id ?? stored.session_id,
    project: planned.project,
    source,
    status: planned.status,
    resumed: planned.resumed,
    error: o.failed ?? null,
    path: planned.sessionDir,
    events: o.appended,
    duplicates: o.duplicates,
    dropped: o.dropped,
    spooled: o.spooled,
    bytes: o.bytesRead,
    first_at: planned.session.firstAt ?? null,
    last_at: planned.session.lastAt ?? null,
    malformed_lines: o.malformed,
    torn_tail: o.torn > 0,
    files: o.files,
  };
}

function register(planned: PlannedSession, env: Record<string, string | undefined>): void {
  try {
    registerSession(
      {
        provider: planned.provider,
        provider_session_id: planned.session.sessionId,
        project_root: planned.project,
      },
      env,
    );
  } catch {
    // The registry only helps find the session from elsewhere; the session itself is in its project.
  }
}
