// Turn marks: which turns a provider's primary capture path (its hooks) has
// recorded, so that a fallback path that reports the same turns later (Codex's
// legacy `notify`) records only the turns the hooks missed: hooks untrusted,
// switched off, or broken. One empty file per turn in the project's
// `.tapedeck/turn-marks/`, written only while a fallback is installed, and
// taken (deleted) by the fallback's report of that turn.
import { closeSync, openSync, readdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { ensureDir } from "./fsutil.ts";
import { sessionDirName, tapedeckDir } from "./paths.ts";

const DIR = "turn-marks";
/** Marks whose fallback report never came (the agent died) are dropped after a day. */
const STALE_MS = 24 * 3600 * 1000;
const PRUNE_ABOVE = 256;

function markPath(projectRoot: string, provider: string, turnId: string): string {
  return join(tapedeckDir(projectRoot), DIR, `${sessionDirName(provider)}-${sessionDirName(turnId)}`);
}

export function markTurn(projectRoot: string, provider: string, turnId: string): void {
  const dir = join(tapedeckDir(projectRoot), DIR);
  ensureDir(dir);
  closeSync(openSync(markPath(projectRoot, provider, turnId), "a", 0o600));
}

/** Whether the primary path recorded this turn; the mark is consumed either way it is found. */
export function takeTurnMark(projectRoot: string, provider: string, turnId: string): boolean {
  let taken = false;
  try {
    unlinkSync(markPath(projectRoot, provider, turnId));
    taken = true;
  } catch {
    taken = false;
  }
  pruneStale(join(tapedeckDir(projectRoot), DIR));
  return taken;
}

function pruneStale(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.length <= PRUNE_ABOVE) return;
  const cutoff = Date.now() - STALE_MS;
  for (const name of names) {
    const p = join(dir, name);
    try {
      if (statSync(p).mtimeMs < cutoff) rmSync(p, { force: true });
    } catch {
      // another fallback took it meanwhile
    }
  }
}
