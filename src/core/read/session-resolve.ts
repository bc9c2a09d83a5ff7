// The one resolver of a SESSION argument, for every command that takes one: a session id (`claude:<id>`), the
// provider's own id, the directory name, the path below the project, or a unique prefix of one of them, looked
// up in a scope (./session-scope.ts: the project's recordings, its replays and runs, every project with
// allProjects). `last` is the newest recording, never a run: "the session I just had" is the user's own.
import { relative } from "node:path";
import { storedId } from "../archive/identity.ts";
import { type ScopedSession, type SessionScope, sessionsInScope } from "./session-scope.ts";

/** No session in the scope answers to the argument. */
export class SessionNotFoundError extends Error {
  override name = "SessionNotFound";
}

/** Several sessions answer to the argument: the candidates, so that the user can give more of the id. */
export class AmbiguousSessionError extends SessionNotFoundError {
  override name = "AmbiguousSession";
  constructor(
    readonly query: string,
    readonly candidates: ScopedSession[],
  ) {
    super(`"${query}" matches ${candidates.length} sessions; give more of the id`);
  }
}

function keysOf(s: ScopedSession): string[] {
  return [
    s.manifest.session_id,
    s.manifest.provider_session_id ?? "",
    s.manifest.session_dir,
    relative(s.project, s.dir),
  ].filter((k) => k !== "");
}

/** A credential-like id is stored as its marker: typing the id itself (bare or `provider:`) still finds it. */
function storedForms(query: string): string[] {
  const forms = new Set([query, storedId(query)]);
  const qualified = /^([a-z][a-z0-9_-]{0,31}):(.+)$/.exec(query);
  if (qualified) forms.add(`${qualified[1]}:${storedId(qualified[2]!)}`);
  return [...forms];
}

/** The session an argument names in a scope; throws SessionNotFoundError (AmbiguousSessionError for several). */
export function resolveSession(scope: SessionScope, query: string): ScopedSession {
  if (query.trim() === "") throw new SessionNotFoundError("no session id given");
  if (query === "last" || query === "latest") {
    const latest = sessionsInScope({ ...scope, runs: scope.runs === "only" ? "only" : false })[0];
    if (!latest) throw new SessionNotFoundError("no recorded sessions in this project");
    return latest;
  }
  const sessions = sessionsInScope(scope);
  const forms = storedForms(query);
  const exact = sessions.filter((s) => keysOf(s).some((k) => forms.includes(k)));
  if (exact.length === 1) return exact[0]!;
  if (exact.length > 1) throw new AmbiguousSessionError(query, exact);
  const prefix = sessions.filter((s) => keysOf(s).some((k) => k.startsWith(query)));
  if (prefix.length === 1) return prefix[0]!;
  if (prefix.length > 1) throw new AmbiguousSessionError(query, prefix);
  throw new SessionNotFoundError(`no session matches "${query}"`);
}
