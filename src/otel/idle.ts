// Automatic export for projects that configure it (`otel` in .tapedeck/config.json, not `auto: false`):
// the hook server calls exportWhenIdle on every hook, which only restarts two timers. A few seconds after
// the last hook (a SessionEnd has closed the last turn by then), and again once the session counts as idle,
// a child process runs `tapedeck otel export --pending` at low priority: the network and the encoding never
// run in the server, so a slow or dead collector never delays a hook.

import { loadConfig } from "../core/archive/config.ts";
import { builtCli, runCliInBackground } from "../core/ports/background-cli.ts";

/** After the last hook: a turn's hooks come in bursts well under this apart. */
export const EXPORT_DELAY_MS = 5000;
const DEFAULT_IDLE_MINUTES = 30;

interface State {
  soon: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
  running: boolean;
}

const projects = new Map<string, State>();

export interface ExportIdleOptions {
  delayMs?: number;
  /** The CLI to run; default: dist/cli.js beside the running bundle (none when run from the sources). */
  cli?: string | null;
  onDone?: (code: number | null) => void;
}

/** Called for every recorded hook: (re)starts the project's timers. Cheap, never throws. */
export function exportWhenIdle(projectRoot: string, opts: ExportIdleOptions = {}): void {
  try {
    let s = projects.get(projectRoot);
    if (!s) {
      s = { soon: undefined, idle: undefined, running: false };
      projects.set(projectRoot, s);
    }
    const state = s;
    if (state.soon) clearTimeout(state.soon);
    if (state.idle) clearTimeout(state.idle);
    const fire = () => void run(projectRoot, state, opts);
    state.soon = setTimeout(fire, opts.delayMs ?? EXPORT_DELAY_MS);
    state.soon.unref();
    state.idle = setTimeout(fire, DEFAULT_IDLE_MINUTES * 60_000 + (opts.delayMs ?? EXPORT_DELAY_MS));
    state.idle.unref();
  } catch {
    // A timer that cannot be set must not fail a hook.
  }
}

/** An endpoint in the project's config, and automatic export not switched off. */
export function autoExportConfigured(projectRoot: string): boolean {
  const otel = loadConfig(projectRoot)?.otel;
  return typeof otel?.endpoint === "string" && otel.auto !== false;
}

function run(projectRoot: string, state: State, opts: ExportIdleOptions): void {
  if (state.running) return;
  try {
    if (!autoExportConfigured(projectRoot)) return;
  } catch {
    return;
  }
  const cli = opts.cli === undefined ? builtCli() : opts.cli;
  if (!cli) return;
  state.running = true;
  runCliInBackground(
    cli,
    ["otel", "export", "--pending", "--background", "--quiet", "--project", projectRoot],
    (code) => {
      state.running = false;
      opts.onDone?.(code);
    },
  );
}
