// A SESSION argument (an id, a provider-qualified id, a unique prefix or `last`) and the options of the
// commands that take one. Every such command resolves it here, through the core's one resolver
// (core/read/session-resolve.ts): the project's recordings, its replays and experiment runs, and with
// --all-projects every project of the user's registry.
import type { Command } from "commander";
import { fields, printable, printableText } from "../core/base/printable.ts";
import { registeredProjects } from "../core/read/registry-projects.ts";
import { AmbiguousSessionError, resolveSession, SessionNotFoundError } from "../core/read/session-resolve.ts";
import type { ScopedSession, SessionScope } from "../core/read/session-scope.ts";
import { CliError, EXIT } from "./cli-error.ts";
import { checkProvider, projectFromOption } from "./common.ts";

export type { ScopedSession };

export interface SessionOpts {
  project?: string;
  provider?: string;
  json?: boolean;
  allProjects?: boolean;
}

/** Candidates an ambiguous argument lists at most. */
const MAX_CANDIDATES = 10;

function candidateLine(s: ScopedSession): string {
  const m = s.manifest;
  // Each field is a manifest's or the registry's: one candidate a line, whatever they hold.
  const run = m.replay_of_session_id ? fields` · ${m.run_type ?? "replay"} of ${m.replay_of_session_id}` : "";
  return `  ${fields`${m.session_id}  ${String(m.started_at).replace("T", " ").slice(0, 16)}`}${run}${fields`  ${s.project}`}`;
}

function ambiguous(error: AmbiguousSessionError): CliError {
  const shown = error.candidates.slice(0, MAX_CANDIDATES).map(candidateLine);
  const more = error.candidates.length - shown.length;
  return new CliError(
    printableText(
      `"${printable(error.query)}" matches ${error.candidates.length} sessions; give more of the id:\n${shown.join("\n")}${more > 0 ? `\n  … and ${more} more` : ""}`,
    ),
    EXIT.usage,
    true,
  );
}

/** A miss in this project that another registered project holds: say where, rather than only "no match". */
function elsewhereHint(scope: SessionScope, query: string): string {
  if (scope.allProjects || query === "last" || query === "latest") return "";
  if (registeredProjects().present.every((p) => p === scope.project)) return "";
  try {
    const found = resolveSession({ ...scope, allProjects: true }, query);
    return fields`\nIt is a session of ${found.project}: add --all-projects, or --project ${found.project}`;
  } catch (error) {
    return error instanceof AmbiguousSessionError
      ? "\nOther projects have sessions like it: add --all-projects"
      : "";
  }
}

/** The scope of a command's session options. */
export function sessionScope(opts: SessionOpts): SessionScope {
  return {
    project: projectFromOption(opts.project),
    provider: checkProvider(opts.provider),
    allProjects: opts.allProjects === true,
  };
}

/**
 * The session a SESSION argument names: exit 3 when none matches (with where it is, when another project has
 * it), exit 2 with the candidates when several do.
 */
export function resolveSessionArg(query: string, opts: SessionOpts): ScopedSession {
  const scope = sessionScope(opts);
  try {
    return resolveSession(scope, query);
  } catch (error) {
    if (error instanceof AmbiguousSessionError) throw ambiguous(error);
    if (error instanceof SessionNotFoundError) {
      throw new CliError(`${printable(error.message)}${elsewhereHint(scope, query)}`, EXIT.notFound, true);
    }
    throw error;
  }
}

/** A SESSION argument of this project (or its runs); exit 3 when none matches. */
export function resolveRef(project: string, query: string, provider?: string): ScopedSession {
  return resolveSessionArg(query, { project, provider });
}

/**
 * A SESSION argument for commands that need the provider's own id (mirror restore): a prefix or `last` resolves
 * through the archive; an id the archive does not hold passes unchanged (a mirror can outlive its session).
 */
export function providerSessionIdArg(project: string, query: string, provider: string): string {
  try {
    return resolveSession({ project, provider }, query).manifest.provider_session_id ?? query;
  } catch (error) {
    if (error instanceof AmbiguousSessionError) throw ambiguous(error);
    if (error instanceof SessionNotFoundError && query !== "last" && query !== "latest") return query;
    if (error instanceof SessionNotFoundError) throw new CliError(printable(error.message), EXIT.notFound);
    throw error;
  }
}

/** --all-projects for a command that takes a SESSION. */
export function withAllProjects(c: Command): Command {
  return c.option("--all-projects", "look for the session in every project the registry knows, too");
}
