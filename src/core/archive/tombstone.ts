// What a deletion leaves behind: `.tapedeck/deleted/<provider>/<stored id>.json`, the session's id (as the
// archive stores it, redacted) and where it came from, so that `tapedeck import` does not bring back what the
// user deleted or pruned (it imports it again only with --include-deleted). No payload, no event: a tombstone
// says that a session was there, never what it held.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDirIn, readOwnJsonOrUndefined, writeJsonAtomicSync } from "../base/fsutil.ts";
import { storedId } from "./identity.ts";
import { sessionDirName, tapedeckDir } from "./paths.ts";

export interface Tombstone {
  provider: string;
  /** the agent's id, as the archive stores it */
  provider_session_id: string;
  /** how the session was recorded (`import`, `hook`...) and, for an import, its main file (redacted) */
  identity_source: string | null;
  source: string | null;
  deleted_at: string;
  /** `delete` or `prune` */
  by: string;
}

const DELETED_DIR = "deleted";

function tombstonePath(projectRoot: string, provider: string, sessionId: string): string {
  return join(
    tapedeckDir(projectRoot),
    DELETED_DIR,
    sessionDirName(provider),
    `${sessionDirName(storedId(sessionId))}.json`,
  );
}

export function writeTombstone(projectRoot: string, stone: Omit<Tombstone, "deleted_at">): void {
  const path = tombstonePath(projectRoot, stone.provider, stone.provider_session_id);
  ensurePrivateDirIn(tapedeckDir(projectRoot), join(path, ".."));
  const entry: Tombstone = {
    ...stone,
    provider_session_id: storedId(stone.provider_session_id),
    deleted_at: new Date().toISOString(),
  };
  writeJsonAtomicSync(path, entry);
}

/** The tombstone of the agent's session `sessionId` in the project, when it was deleted there. */
export function readTombstone(
  projectRoot: string,
  provider: string,
  sessionId: string,
): Tombstone | undefined {
  const stone = readOwnJsonOrUndefined<Tombstone>(tombstonePath(projectRoot, provider, sessionId));
  return stone && stone.provider_session_id === storedId(sessionId) ? stone : undefined;
}

/** Once the session is imported again (--include-deleted), its tombstone goes. */
export function removeTombstone(projectRoot: string, provider: string, sessionId: string): void {
  rmSync(tombstonePath(projectRoot, provider, sessionId), { force: true });
}
