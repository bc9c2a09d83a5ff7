// The sessions a SESSION argument can name, for every command that takes one (show, inspect, export, view,
// delete, promote, repair, replay, scenario, otel) and for list. A scope is a project's recordings, the sessions of its
// replays and experiment runs (./experiment-links.ts says where they live), and with `allProjects` those of
// every project the user's registry names. ./session-resolve.ts picks one session of a scope by argument.
//
// Light like ./session-list.ts: `list` and completion load it, so it reads manifests and directory listings
// only, never an event, a store or a redaction rule.
import { runSessionRoots } from "./experiment-links.ts";
import { registeredProjects } from "./registry-projects.ts";
import { listSessions, listSessionsIn, type SessionRef } from "./session-list.ts";

type Env = Record<string, string | undefined>;

export interface ScopedSession extends SessionRef {
  /** The project the session belongs to: where it was recorded, or for a run the project of its baseline. */
  project: string;
  /** "run": a session tapedeck made by replaying a baseline (a replay, an experiment or scenario run). */
  origin: "recorded" | "run";
}

export interface SessionScope {
  project: string;
  /** Every project of the user's registry too (the current one first). */
  allProjects?: boolean;
  /** Run sessions: included (default), left out (false), or nothing else ("only"). */
  runs?: boolean | "only";
  provider?: string;
  env?: Env;
}

function projectsOf(scope: SessionScope): string[] {
  if (!scope.allProjects) return [scope.project];
  const others = registeredProjects({ env: scope.env }).present.filter((p) => p !== scope.project);
  return [scope.project, ...others];
}

/** The sessions of a scope, newest first. */
export function sessionsInScope(scope: SessionScope): ScopedSession[] {
  const out: ScopedSession[] = [];
  const seen = new Set<string>();
  const add = (refs: SessionRef[], project: string, origin: ScopedSession["origin"]) => {
    for (const ref of refs) {
      // A project inside another (or listed twice by the registry) must not show a session twice.
      if (seen.has(ref.dir)) continue;
      seen.add(ref.dir);
      out.push({ ...ref, project, origin });
    }
  };
  for (const project of projectsOf(scope)) {
    if (scope.runs !== "only") add(listSessions(project, scope.provider), project, "recorded");
    if (scope.runs !== false) add(listSessionsIn(runSessionRoots(project), scope.provider), project, "run");
  }
  out.sort((a, b) => (b.manifest.started_at ?? "").localeCompare(a.manifest.started_at ?? ""));
  return out;
}
