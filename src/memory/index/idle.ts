// The http hook server keeps the search index up to date while it is idle:
// a few seconds after the last hook, never on a hook's path (a hook only
// restarts the timer). The update runs in a child process (`tapedeck index
// update`, at low priority): better-sqlite3 is synchronous, and in-process
// batches held the server's event loop for 24 ms at the median and 121 ms at
// worst with 500 events a batch (82 and 193 ms with 2,000), which a hook
// arriving then would have waited for (bench/memory-index.bench.ts, "slice"). Without a built CLI beside
// this module (tests run the sources), the update runs in-process, one batch
// per turn of the event loop.
import { join } from "node:path";
import { tapedeckDir } from "../../core/archive/paths.ts";
import { lstatOrUndefined } from "../../core/base/fsutil.ts";
import { builtCli, runCliInBackground } from "../../core/ports/background-cli.ts";

/** After the last hook: a turn's hooks come in bursts well under this apart. */
export const IDLE_DELAY_MS = 3000;
/** Below the agent and the server: the index can wait, the user's tools cannot. */

interface Idle {
  timer: NodeJS.Timeout | undefined;
  running: boolean;
  /** a hook arrived while an update ran: run again once it ends */
  again: boolean;
}

export interface IdleOptions {
  delayMs?: number;
  /** The CLI to run `index update` with; default: dist/cli.js beside the running bundle, if there is one. */
  cli?: string | null;
  /** Called when an update ended (tests). */
  onDone?: (ok: boolean) => void;
}

const projects = new Map<string, Idle>();

/** Called for every recorded hook: (re)starts the project's idle timer. Cheap, never throws. */
export function indexWhenIdle(projectRoot: string, opts: IdleOptions = {}): void {
  try {
    schedule(projectRoot, opts);
  } catch {
    // A timer that cannot be set must not fail a hook.
  }
}

function schedule(projectRoot: string, opts: IdleOptions): void {
  let idle = projects.get(projectRoot);
  if (!idle) {
    idle = { timer: undefined, running: false, again: false };
    projects.set(projectRoot, idle);
  }
  if (idle.running) {
    idle.again = true;
    return;
  }
  if (idle.timer) clearTimeout(idle.timer);
  const state = idle;
  idle.timer = setTimeout(() => {
    state.timer = undefined;
    void run(projectRoot, state, opts);
  }, opts.delayMs ?? IDLE_DELAY_MS);
  // The server exits when its agents are gone; a pending index update must not keep it alive.
  idle.timer.unref();
}

async function run(projectRoot: string, idle: Idle, opts: IdleOptions): Promise<void> {
  // Only an index someone searched with is kept fresh: a project that never searches never pays for one.
  if (!lstatOrUndefined(join(tapedeckDir(projectRoot), "index.sqlite"))?.isFile()) return;
  idle.running = true;
  idle.again = false;
  let ok = false;
  try {
    const cli = opts.cli === undefined ? builtCli() : opts.cli;
    if (cli) ok = await runChild(cli, projectRoot);
    else {
      await runSliced(projectRoot);
      ok = true;
    }
  } catch {
    // Locked by a `search` running meanwhile, or damaged: the next search or `tapedeck index update` says so.
  } finally {
    idle.running = false;
  }
  opts.onDone?.(ok);
  if (idle.again) schedule(projectRoot, opts);
}

function runChild(cli: string, projectRoot: string): Promise<boolean> {
  return new Promise((resolve) =>
    runCliInBackground(cli, ["index", "update", "--project", projectRoot], (code) => resolve(code === 0)),
  );
}

/** The whole update in-process, one batch per turn of the event loop. */
export async function runSliced(projectRoot: string): Promise<void> {
  // Loaded only here: the server (dist/serve.js) runs the CLI instead and never evaluates the index code.
  const { updateIndexSteps } = await import("./index.ts");
  const steps = updateIndexSteps(projectRoot);
  try {
    for (;;) {
      if (steps.next().done) return;
      await new Promise<void>((r) => setImmediate(r));
    }
  } finally {
    steps.return(undefined as never);
  }
}
