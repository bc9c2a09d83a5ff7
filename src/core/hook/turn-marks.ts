// Turn marks: which turns a provider's primary capture path (its hooks) has
// recorded, so that a fallback path that reports the same turns later (Codex's
// legacy `notify`) records only the turns the hooks missed: hooks untrusted,
// switched off, or broken. One empty file per turn in the project's
// `.tapedeck/turn-marks/`, written only while a fallback is installed, and
// taken (deleted) by the fallback's report of that turn.
//
// The directory is inside a project a cloned repository controls: it is
// never followed through a symlink, and only files named like marks are ever
// deleted from it.
import { closeSync, constants, unlinkSync } from "node:fs";
import { join } from "node:path";
import { storedId } from "../archive/identity.ts";
import { ensureTapedeckDir, sessionDirName } from "../archive/paths.ts";
import { ensureOwnDirUnder, openRegularSync, pruneStaleFiles } from "../base/fsutil.ts";

const DIR = "turn-marks";
/** Marks whose fallback report never came (the agent died, the fallback was removed) go after a day. */
const STALE_MS = 24 * 3600 * 1000;
const PRUNE_ABOVE = 256;
const MARK_NAME = /^[A-Za-z0-9_.-]+-[A-Za-z0-9_.-]+$/;

/** The marks directory, created on demand; refuses a symlink, a non-directory or another user's directory. */
function marksDir(projectRoot: string, create: boolean): string | undefined {
  const dir = join(ensureTapedeckDir(projectRoot), DIR);
  return ensureOwnDirUnder(projectRoot, dir, create) ? dir : undefined;
}

/** Named by the turn's stored id (identity.ts), as the archive holds it: a turn id may hold a credential. */
function markName(provider: string, turnId: string): string {
  return `${sessionDirName(provider)}-${sessionDirName(storedId(turnId))}`;
}

export function markTurn(projectRoot: string, provider: string, turnId: string): void {
  const dir = marksDir(projectRoot, true)!;
  // A FIFO planted under a mark's name must not block the hook: opened without waiting, then refused.
  closeSync(openRegularSync(join(dir, markName(provider, turnId)), constants.O_WRONLY | constants.O_CREAT));
  pruneStaleFiles(dir, MARK_NAME, PRUNE_ABOVE, STALE_MS);
}

/** Whether the primary path recorded this turn; the mark is consumed when it is found. */
export function takeTurnMark(projectRoot: string, provider: string, turnId: string): boolean {
  const dir = marksDir(projectRoot, false);
  if (!dir) return false;
  try {
    unlinkSync(join(dir, markName(provider, turnId)));
    return true;
  } catch {
    return false;
  }
}
