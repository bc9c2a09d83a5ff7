// What `tapedeck import` would do: the agents' past sessions (each provider's history reader finds them),
// matched to a project by the cwd they recorded, and for each the bytes still to read. Nothing is written.
//
// A session goes to the project its cwd is in: with --project (or the current project), only sessions whose
// cwd is that directory or below it; with --all-projects, the project of each cwd by the CLI's rule
// (core/archive/project-root.ts). A cwd that no longer exists is reported (the project moved or was deleted), never
// guessed from a similar path. A session the hooks recorded is left to them, and so is one they went on
// recording after it was imported (its manifest carries `hooks_since_import`, set by their first append); one
// imported before is read from where its cursor stopped (an interrupted run's too), or not at all when its files
// have not grown. A project tapedeck may not write into (another user's directory, a planted `.tapedeck` or
// events.jsonl of theirs: core/base/fsutil.ts's owner rule) is reported with what is wrong, before anything is read
// or written.
import { closeSync, fstatSync, lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { readConfig } from "../core/archive/config.ts";
import type { SessionIdentity } from "../core/archive/event.ts";
import { openForScan, parseObjectLine } from "../core/archive/line-scan.ts";
import { isInside, SESSION_FILES, sessionWriteProblem } from "../core/archive/paths.ts";
import { projectOfDir } from "../core/archive/project-root.ts";
import type { Manifest } from "../core/archive/schemas.ts";
import { sessionSpecFor } from "../core/archive/session-spec.ts";
import { type SessionSpec, sessionDirNameFor } from "../core/archive/session-store.ts";
import { readLines } from "../core/base/bounded-lines.ts";
import { readJsonOrUndefined } from "../core/base/fsutil.ts";
import { CATALOG } from "../providers/catalog.ts";
import {
  byFirstAt,
  type HistoryFile,
  type HistoryReader,
  type HistorySession,
  type HistorySkip,
  onlyHooksWrite,
} from "../providers/history.ts";
import { pathKey, readCursor, type SessionCursor, safePath } from "./cursor.ts";

/** The providers whose agents' files tapedeck can import, in catalog order. */
export function importableProviders(): string[] {
  return Object.keys(CATALOG).filter((name) => CATALOG[name]?.history);
}

export function historyReader(provider: string): HistoryReader | undefined {
  return Object.hasOwn(CATALOG, provider) ? CATALOG[provider]?.history : undefined;
}

export interface PlanOptions {
  providers: readonly string[];
  /** The project to import into (its real path), unless allProjects. */
  project?: string;
  allProjects?: boolean;
  /** Only sessions active at or after this time (ms since the epoch). */
  sinceMs?: number;
  env: Record<string, string | undefined>;
}

export interface PlannedFile {
  file: HistoryFile;
  size: number;
  /** bytes already read by an earlier import (0: from its start) */
  from: number;
}

export interface PlannedSession {
  provider: string;
  session: HistorySession;
  project: string;
  spec: SessionSpec;
  sessionDir: string;
  status: "new" | "grown";
  /** an earlier import of it was stopped part-way (killed, Ctrl-C, a full disk): this one resumes it */
  resumed: boolean;
  /** bytes still to read, over all its files */
  bytes: number;
  files: PlannedFile[];
}

export interface ImportPlan {
  sessions: PlannedSession[];
  skipped: HistorySkip[];
  /** imported before, and nothing was appended to their files since */
  unchanged: number;
  /** sessions of other projects, left out without --all-projects */
  elsewhere: number;
  /** sessions of the project its hooks recorded, left to them (each also in `skipped`) */
  recorded: number;
}

/** Whether no session of the agent was found for the project: not one to import, up to date or recorded. */
export function foundNothing(plan: ImportPlan): boolean {
  return plan.sessions.length === 0 && plan.unchanged === 0 && plan.recorded === 0;
}

export const REASONS = {
  noCwd: "records no working directory: no project to import it into",
  since: "last active before --since",
  hooks: "recorded by hooks already (tapedeck list shows it); not imported twice",
  hooksSince: "hooks recorded more of it after it was imported; not imported twice",
  unsafeRoot: "the project's session root is not a plain directory",
  /** followed by what is wrong: another user's project or directory, a file of theirs */
  refused: "not imported",
} as const;

export function planImport(options: PlanOptions): ImportPlan {
  const plan: ImportPlan = { sessions: [], skipped: [], unchanged: 0, elsewhere: 0, recorded: 0 };
  const skip = (s: HistorySkip) => plan.skipped.push({ source: safePath(s.source), reason: s.reason });
  const projects = new ProjectCache();
  for (const provider of options.providers) {
    const reader = historyReader(provider);
    if (!reader) continue;
    const found = reader.discover({ env: options.env, skip }).sort(byFirstAt);
    for (const session of found) {
      const source = session.files[0]?.path ?? session.sessionId;
      const last = Date.parse(session.lastAt ?? session.firstAt ?? "");
      if (options.sinceMs !== undefined && Number.isFinite(last) && last < options.sinceMs) {
        skip({ source, reason: REASONS.since });
        continue;
      }
      if (session.cwd === null) {
        skip({ source, reason: REASONS.noCwd });
        continue;
      }
      const project = options.allProjects
        ? projects.of(session.cwd)
        : projects.within(session.cwd, options.project!);
      if (project === undefined) {
        plan.elsewhere += 1;
        continue;
      }
      if ("missing" in project) {
        skip({ source, reason: `project not found: ${safePath(session.cwd)} (moved or deleted)` });
        continue;
      }
      const planned = planSession(provider, reader, session, project.root, skip);
      if (planned === "unchanged") plan.unchanged += 1;
      else if (planned === "recorded") plan.recorded += 1;
      else if (planned) plan.sessions.push(planned);
    }
  }
  return plan;
}

function planSession(
  provider: string,
  reader: HistoryReader,
  session: HistorySession,
  project: string,
  skip: (s: HistorySkip) => void,
): PlannedSession | "unchanged" | "recorded" | undefined {
  const source = session.files[0]!.path;
  const identity: SessionIdentity = {
    provider,
    provider_session_id: session.sessionId,
    session_id: `${provider}:${session.sessionId}`,
    identity_source: "import",
  };
  let spec: SessionSpec;
  try {
    const config = readConfig(project) ?? { schema_version: 1 as const, providers: {} };
    spec = sessionSpecFor(project, config, {
      provider,
      identity,
      capabilities: reader.capabilities,
      agentPid: null,
    });
  } catch {
    skip({ source, reason: REASONS.unsafeRoot });
    return undefined;
  }
  const sessionDir = join(spec.sessionRoot, sessionDirNameFor(identity));
  const problem = sessionWriteProblem(project, spec.sessionRoot, sessionDir);
  if (problem) {
    skip({ source, reason: `${REASONS.refused}: ${safePath(problem.message)}` });
    return undefined;
  }
  const manifest = readJsonOrUndefined<Manifest>(join(sessionDir, SESSION_FILES.manifest), 1024 * 1024);
  if (manifest && manifest.identity_source !== "import") {
    skip({ source, reason: REASONS.hooks });
    return "recorded";
  }
  const cursor = manifest ? readCursor(sessionDir) : undefined;
  if (
    manifest?.hooks_since_import !== undefined ||
    (cursor && hooksAppendedUnmarked(sessionDir, cursor, reader))
  ) {
    skip({ source, reason: REASONS.hooksSince });
    return "recorded";
  }
  const files: PlannedFile[] = [];
  let bytes = 0;
  for (const file of session.files) {
    let size = 0;
    try {
      size = lstatSync(file.path).size;
    } catch {
      continue;
    }
    const read = cursor?.files[pathKey(file.path)];
    const from = read && read.offset <= size ? read.offset : 0;
    bytes += size - from;
    files.push({ file, size, from });
  }
  if (files.length === 0) return undefined;
  const resumed = cursor?.in_progress !== undefined;
  if (manifest && cursor && bytes === 0 && !resumed) return "unchanged";
  const status = manifest ? "grown" : "new";
  return { provider, session, project, spec, sessionDir, status, resumed, bytes, files };
}

/**
 * An archive an older tapedeck wrote (a version 1 cursor): its hooks did not mark the imported sessions they
 * went on recording, and its import was stopped part-way as often as it was killed. The events appended after
 * its last import are the hooks' only if one of them is an event the import never writes (onlyHooksWrite: a
 * hook-recorded turn or resume always has one); else they are what an interrupted import appended, and the
 * import resumes from the cursor.
 */
function hooksAppendedUnmarked(sessionDir: string, cursor: SessionCursor, reader: HistoryReader): boolean {
  if (cursor.schema_version !== 1) return false;
  const from = cursor.events_bytes ?? 0;
  let fd: number;
  try {
    fd = openForScan(join(sessionDir, SESSION_FILES.events));
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= from) return false;
    for (const line of readLines(fd, from, size)) {
      const event = line.bytes && parseObjectLine(line.bytes);
      if (event && onlyHooksWrite(reader, event)) return true;
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Projects of cwds, each looked up once: thousands of sessions share a handful of directories. */
class ProjectCache {
  private readonly cache = new Map<string, { root: string } | { missing: true }>();

  /** The project of `cwd` by the CLI's rule; `missing` when the directory is gone. */
  of(cwd: string): { root: string } | { missing: true } {
    const known = this.cache.get(cwd);
    if (known) return known;
    let found: { root: string } | { missing: true };
    try {
      const real = realpathSync(cwd);
      found = lstatSync(real).isDirectory() ? { root: projectOfDir(real).root } : { missing: true };
    } catch {
      found = { missing: true };
    }
    this.cache.set(cwd, found);
    return found;
  }

  /** `project` when `cwd` is it or below it, as recorded or once resolved (macOS /var is /private/var). */
  within(cwd: string, project: string): { root: string } | undefined {
    if (isInside(project, cwd)) return { root: project };
    const real = resolvedOr(cwd);
    return real !== cwd && isInside(project, real) ? { root: project } : undefined;
  }
}

function resolvedOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
