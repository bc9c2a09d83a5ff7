// The project's configured retention (`retention` in .tapedeck/config.json), applied by the hook server at most
// once a day and never on a hook's path: a hook only costs a map lookup here, and at most once an hour a
// config read and a stamp read. The removal itself runs in a child process (`tapedeck prune --auto`, low
// priority), like the search index's update (src/memory/index/idle.ts): removing a large session tree takes a while,
// and a hook arriving meanwhile must not wait for it. Without a built CLI beside this bundle (tests run the
// sources) it runs in-process after the event loop's current turn.

import { tapedeckDir } from "../core/archive/paths.ts";
import { errorCode, writeDiagnostic } from "../core/base/diagnostics.ts";
import { builtCli, runCliInBackground } from "../core/ports/background-cli.ts";
import { applyRetention, retentionDue } from "../core/read/retention.ts";

/** How often a project's config and stamp are looked at; the retention itself runs at most daily. */
export const CHECK_INTERVAL_MS = 60 * 60 * 1000;
const lastCheck = new Map<string, number>();

export interface RetentionIdleOptions {
  now?: number;
  /** The CLI to run `prune --auto` with; default: dist/cli.js beside the running bundle, if there is one. */
  cli?: string | null;
  onDone?: () => void;
}

/** Called for every recorded hook. Cheap, never throws. */
export function pruneWhenDue(projectRoot: string, opts: RetentionIdleOptions = {}): void {
  try {
    const now = opts.now ?? Date.now();
    const last = lastCheck.get(projectRoot);
    if (last !== undefined && now - last < CHECK_INTERVAL_MS) return;
    lastCheck.set(projectRoot, now);
    if (!retentionDue(projectRoot, now)) return;
    const cli = opts.cli === undefined ? builtCli() : opts.cli;
    if (cli) runChild(cli, projectRoot, opts.onDone);
    else setImmediate(() => runInProcess(projectRoot, opts.onDone));
  } catch {
    // A retention that cannot start must not fail a hook; the next check tries again.
  }
}

/** The run and its log line: counts only, never an id, a path or a message. */
export function runInProcess(projectRoot: string, onDone?: () => void): void {
  try {
    const r = applyRetention(projectRoot);
    if (r.ran)
      writeDiagnostic(tapedeckDir(projectRoot), { what: "retention", count: r.removed, stage: "auto" });
  } catch (error) {
    writeDiagnostic(tapedeckDir(projectRoot), { what: "retention", stage: "auto", code: errorCode(error) });
  }
  onDone?.();
}

function runChild(cli: string, projectRoot: string, onDone?: () => void): void {
  runCliInBackground(cli, ["prune", "--auto", "--project", projectRoot], () => onDone?.());
}
