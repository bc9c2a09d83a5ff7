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
import { lookupSession, tapedeckHome } from "../core/archive/session-registry.ts";
import { sessionSpecFor } from "../core/archive/session-spec.ts";
import { type SessionSpec, sessionDirNameFor } from "../core/archive/session-store.ts";
import { readTombstone } from "../core/archive/tombstone.ts";
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
  /**
   * The project was named (--project): a session that recorded no cwd, and whose folder names no project,
   * goes there. Without it such a session is reported, never guessed into the current directory's project.
   */
  projectGiven?: boolean;
  /** --include-deleted: a session deleted or pruned from the project's archive is imported again */
  includeDeleted?: boolean;
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
  /** sessions the user deleted or pruned from the project, left out (each also in `skipped`) */
  deleted: number;
  /** the project asked for is one of tapedeck's own folders: nothing is planned into it */
  refused?: string;
}

/** Whether no session of the agent was found for the project: not one to import, up to date or recorded. */
export function foundNothing(plan: ImportPlan): boolean {
  return plan.sessions.length === 0 && plan.unchanged === 0 && plan.recorded === 0 && plan.deleted === 0;
}

export const REASONS = {
  noCwd:
    "records no working directory, and its folder names no project: pass --project DIR to import it there",
  ambiguous: "records no working directory, and its folder's name fits several projects",
  deleted: "deleted from this project's archive; --include-deleted imports it again",
  ownFolder: "is tapedeck's own folder (its user home), not a project",
  since: "last active before --since",
  hooks: "recorded by hooks already (tapedeck list shows it); not imported twice",
  hooksSince: "hooks recorded more of it after it was imported; not imported twice",
  unsafeRoot: "the project's session root is not a plain directory",
  /** followed by what is wrong: another user's project or directory, a file of theirs */
  refused: "not imported",
} as const;

export function planImport(options: PlanOptions): ImportPlan {
  const plan: ImportPlan = { sessions: [], skipped: [], unchanged: 0, elsewhere: 0, recorded: 0, deleted: 0 };
  const skip = (s: HistorySkip) => plan.skipped.push({ source: safePath(s.source), reason: s.reason });
  const projects = new ProjectCache(options.env);
  if (!options.allProjects && projects.ownFolder(options.project!)) {
    plan.refused = `${safePath(options.project!)} ${REASONS.ownFolder}`;
  }
  for (const provider of options.providers) {
    const reader = historyReader(provider);
    if (!reader) continue;
    const found = reader.discover({ env: options.env, skip }).sort(byFirstAt);
    const siblings = folderCwds(found);
    for (const session of found) {
      const source = session.files[0]?.path ?? session.sessionId;
      if (plan.refused !== undefined) {
        skip({ source, reason: whereItLives(provider, session, options.env) });
        continue;
      }
      const last = Date.parse(session.lastAt ?? session.firstAt ?? "");
      if (options.sinceMs !== undefined && Number.isFinite(last) && last < options.sinceMs) {
        skip({ source, reason: REASONS.since });
        continue;
      }
      const project = projectOf(provider, reader, session, options, projects, siblings);
      if (project === undefined) {
        plan.elsewhere += 1;
        continue;
      }
      if ("skip" in project) {
        skip({ source, reason: project.skip });
        continue;
      }
      if (projects.ownFolder(project.root)) {
        skip({
          source,
          reason: `${safePath(project.root)} ${REASONS.ownFolder}; ${whereItLives(provider, session, options.env)}`,
        });
        continue;
      }
      const planned = planSession(
        provider,
        reader,
        session,
        project.root,
        skip,
        options.includeDeleted === true,
      );
      if (planned === "unchanged") plan.unchanged += 1;
      else if (planned === "recorded") plan.recorded += 1;
      else if (planned === "deleted") plan.deleted += 1;
      else if (planned) plan.sessions.push(planned);
    }
  }
  return plan;
}

/** Where the registry says a session is: what a refusal tells the user instead of planning it again. */
function whereItLives(
  provider: string,
  session: HistorySession,
  env: Record<string, string | undefined>,
): string {
  const entry = lookupSession(provider, session.sessionId, env);
  return entry
    ? `already in ${safePath(entry.project_root)}`
    : "in no project yet: import it from its project's directory, or with --project DIR";
}

/** The cwds the sessions of each folder recorded: what a session of the same folder without one shares. */
function folderCwds(found: HistorySession[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const s of found) {
    if (s.folder === undefined || s.cwd === null) continue;
    const set = out.get(s.folder) ?? new Set<string>();
    set.add(s.cwd);
    out.set(s.folder, set);
  }
  return out;
}

type ProjectChoice = { root: string } | { skip: string } | undefined;

/**
 * The project a session goes to: the one its cwd is in. A session that recorded no cwd (Claude records before
 * the first prompt, exporters' files; a Codex rollout without session_meta) goes where the registry says it
 * is, else where its folder's name says (Claude's cwd slug: the sessions of the same folder that recorded one,
 * or the project asked for), else into the project named with --project; several fitting projects are
 * reported, never chosen between. undefined: another project's, left out.
 */
function projectOf(
  provider: string,
  reader: HistoryReader,
  session: HistorySession,
  options: PlanOptions,
  projects: ProjectCache,
  siblings: Map<string, Set<string>>,
): ProjectChoice {
  const missing = (cwd: string) => ({ skip: `project not found: ${safePath(cwd)} (moved or deleted)` });
  if (session.cwd !== null) {
    const project = options.allProjects
      ? projects.of(session.cwd)
      : projects.within(session.cwd, options.project!);
    if (project !== undefined && "missing" in project) return missing(session.cwd);
    return project;
  }
  const registered = lookupSession(provider, session.sessionId, options.env)?.project_root;
  if (!options.allProjects) {
    const here = options.project!;
    if (registered !== undefined) return registered === here ? { root: here } : undefined;
    const fits = reader.folderFits?.(session, here);
    if (fits === true || (fits === undefined && options.projectGiven)) return { root: here };
    if (fits === false) return undefined;
    return { skip: REASONS.noCwd };
  }
  if (registered !== undefined) {
    const project = projects.of(registered);
    return "missing" in project ? missing(registered) : project;
  }
  const roots = new Set<string>();
  for (const cwd of session.folder !== undefined ? (siblings.get(session.folder) ?? []) : []) {
    const project = projects.of(cwd);
    if (!("missing" in project)) roots.add(project.root);
  }
  if (roots.size === 1) return { root: [...roots][0]! };
  if (roots.size > 1) {
    const names = [...roots].sort().map((r) => safePath(r));
    return { skip: `${REASONS.ambiguous} (${names.join(", ")}): pass --project DIR to choose` };
  }
  return { skip: REASONS.noCwd };
}

function planSession(
  provider: string,
  reader: HistoryReader,
  session: HistorySession,
  project: string,
  skip: (s: HistorySkip) => void,
  includeDeleted: boolean,
): PlannedSession | "unchanged" | "recorded" | "deleted" | undefined {
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
  if (!manifest && !includeDeleted) {
    const stone = readTombstone(project, provider, session.sessionId);
    if (stone) {
      skip({
        source,
        reason: `${REASONS.deleted} (${stone.by === "prune" ? "pruned" : "deleted"} ${stone.deleted_at.slice(0, 10)})`,
      });
      return "deleted";
    }
  }
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
  /** The user's tapedeck home, resolved: never a project (`cd ~` has it as its `.tapedeck`). */
  private readonly home: string;

  constructor(env: Record<string, string | undefined>) {
    this.home = resolvedOr(tapedeckHome(env));
  }

  /** Whether `root` is tapedeck's own folder: the home itself, inside it, or the directory it is `.tapedeck` of. */
  ownFolder(root: string): boolean {
    const real = resolvedOr(root);
    return isInside(this.home, real) || resolvedOr(join(real, ".tapedeck")) === this.home;
  }

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
