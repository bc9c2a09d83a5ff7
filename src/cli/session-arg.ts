// A SESSION argument (an id, an archive id, a unique prefix or `last`) and the options of the commands that
// take one.
import { findSession, SessionNotFound, type SessionRef } from "../core/archive.ts";
import { checkProvider } from "./common.ts";
import { CliError, EXIT } from "./errors.ts";

export interface SessionOpts {
  project?: string;
  provider?: string;
  json?: boolean;
}

/** A SESSION argument (id, archive id, unique prefix or `last`) of this project; exit 3 when none matches. */
export function resolveRef(project: string, query: string, provider?: string): SessionRef {
  try {
    return findSession(project, query, checkProvider(provider));
  } catch (error) {
    if (error instanceof SessionNotFound) throw new CliError(error.message, EXIT.notFound);
    throw error;
  }
}

/**
 * A SESSION argument for commands that need the provider's own id (mirror restore): a prefix or `last` resolves
 * through the archive; an id the archive does not hold passes unchanged (a mirror can outlive its session).
 */
export function providerSessionIdArg(project: string, query: string, provider: string): string {
  try {
    return findSession(project, query, provider).manifest.provider_session_id ?? query;
  } catch (error) {
    if (error instanceof SessionNotFound && query !== "last" && query !== "latest") return query;
    if (error instanceof SessionNotFound) throw new CliError(error.message, EXIT.notFound);
    throw error;
  }
}
