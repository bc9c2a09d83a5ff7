// Session registry: provider session id -> project root, for recorders that
// see a session from outside its project (the API proxy sees only an id in a
// header). Filled when a session starts; one small file per session under
// the user's tapedeck home, so concurrent writers never contend. The home and the registry are the user's
// private directories and an entry counts only when the user owns it: in a shared TAPEDECK_HOME another user
// could otherwise steer the proxy's records of a session into a project of their choosing.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDirIn, readOwnJsonOrUndefined, writeJsonAtomicSync } from "../base/fsutil.ts";
import { tapedeckHome } from "../base/home.ts";
import { storedId } from "./identity.ts";
import { sessionDirName } from "./paths.ts";

// Apart so that a reader of the home (`list --all-projects`) loads no id redaction with it.
export { tapedeckHome } from "../base/home.ts";

export interface RegistryEntry {
  provider: string;
  provider_session_id: string;
  project_root: string;
  registered_at: string;
}

/** Keyed by the id as the archive stores it: a credential-like id never names a file, nor sits in one. */
function entryPath(provider: string, sessionId: string, env?: Record<string, string | undefined>): string {
  return join(
    tapedeckHome(env),
    "registry",
    sessionDirName(provider),
    `${sessionDirName(storedId(sessionId))}.json`,
  );
}

export function registerSession(
  entry: Omit<RegistryEntry, "registered_at">,
  env?: Record<string, string | undefined>,
): void {
  const path = entryPath(entry.provider, entry.provider_session_id, env);
  const existing = readOwnJsonOrUndefined<RegistryEntry>(path);
  if (existing?.project_root === entry.project_root) return;
  ensurePrivateDirIn(tapedeckHome(env), join(path, ".."));
  const stored = { ...entry, provider_session_id: storedId(entry.provider_session_id) };
  writeJsonAtomicSync(path, { ...stored, registered_at: new Date().toISOString() } satisfies RegistryEntry);
}

export function lookupSession(
  provider: string,
  sessionId: string,
  env?: Record<string, string | undefined>,
): RegistryEntry | undefined {
  const entry = readOwnJsonOrUndefined<RegistryEntry>(entryPath(provider, sessionId, env));
  return entry && entry.provider_session_id === storedId(sessionId) ? entry : undefined;
}

/** Removes a deleted session's entry, only if it points at this project (another project may reuse the id). */
export function forgetSession(
  provider: string,
  sessionId: string,
  projectRoot: string,
  env?: Record<string, string | undefined>,
): void {
  const path = entryPath(provider, sessionId, env);
  if (readOwnJsonOrUndefined<RegistryEntry>(path)?.project_root !== projectRoot) return;
  rmSync(path, { force: true });
}
