// The recording state `record` and `status` show. Without `--provider` they act on every provider installed
// in the project, as `doctor` does: a project with only Codex installed must not read "off" while Codex records,
// nor refuse `record stop` because Claude is not there.
import { loadConfig } from "../core/archive/config.ts";
import { printable } from "../core/base/printable.ts";
import { type ControlChange, lastControlChange } from "../core/hook/control-log.ts";
import { type RecordingState, recordingState } from "../core/hook/status.ts";
import { otelStatus, renderOtelStatus } from "../otel/status.ts";
import { statusLineFor } from "../providers/status-lines.ts";
import { CliError, checkProvider, printJson, say } from "./common.ts";
import { providerName } from "./providers.ts";

export interface RecordOpts {
  project?: string;
  provider?: string;
  json?: boolean;
  statusline?: boolean;
}

const OFF = "tapedeck ○ off";

/** The providers a command covers: the one asked for, else every installed one (in config order). */
export function providersOf(project: string, asked: string | undefined): string[] {
  const provider = checkProvider(asked);
  if (provider) return [provider];
  return Object.keys(loadConfig(project)?.providers ?? {});
}

export function notInstalled(project: string, provider: string | undefined): CliError {
  return new CliError(
    provider
      ? `${providerName(provider)} is not installed in ${project}; run: tapedeck install ${provider}`
      : `tapedeck is not installed in ${project}; run: tapedeck install claude   (or codex, gemini)`,
  );
}

export interface ProviderStatus extends RecordingState {
  last_change: ControlChange | null;
}

export function providerStatus(project: string, provider: string): ProviderStatus {
  const state = recordingState(project, provider);
  const last = state.project ? lastControlChange(state.project, provider) : undefined;
  return { ...state, last_change: last ?? null };
}

/** Recording anywhere shows REC: the status line must never read "off" while something records. */
function combinedDisplay(states: ProviderStatus[]): string {
  return states.find((s) => s.recording)?.display ?? states.find((s) => s.retrieval === "on")?.display ?? OFF;
}

function latest(states: ProviderStatus[]): ControlChange | null {
  const changes = states.flatMap((s) => (s.last_change ? [s.last_change] : []));
  changes.sort((a, b) => a.at.localeCompare(b.at));
  return changes.at(-1) ?? null;
}

function renderStatus(project: string, states: ProviderStatus[]): string {
  // Paths and config values are the project's: one line each, nothing that steers the terminal.
  const p = (v: string | null) => printable(v ?? "—");
  if (states.length === 0) return `${OFF}\nProject       ${p(project)} (not enabled)\nRetrieval     off\n`;
  const blocks = states.map((state) =>
    [
      state.display,
      `Provider      ${p(providerName(state.provider))}${state.installed ? "" : " (not installed)"}`,
      `Project       ${state.project ? p(state.project) : `${p(project)} (not enabled)`}`,
      `Recording     ${state.recording ? "on" : "off"}`,
      `Mode          ${p(state.mode)}`,
      `Session root  ${p(state.session_root)}`,
      `Retrieval     ${state.retrieval}${state.retrieval === "on" ? ` (up to ${state.retrieval_budget_bytes ?? 4096} bytes of memory per prompt)` : ""}`,
      ...(state.last_change
        ? [
            `Last change   ${state.last_change.action === "start" ? "started" : "stopped"} via ${p(state.last_change.via)} at ${p(state.last_change.at)}`,
          ]
        : []),
    ].join("\n"),
  );
  return `${blocks.join("\n\n")}\n`;
}

export function showStatus(project: string, providers: string[], opts: RecordOpts): void {
  const states = providers.map((p) => providerStatus(project, p));
  if (opts.statusline) {
    // An agent that runs status-line commands with the session's id in the environment (Claude) adds what
    // it knows of the session (a transcript lost at its resume, said while it runs).
    const alerts = providers.map((p) => {
      const part = statusLineFor(p);
      const sid = part && process.env[part.sessionIdEnv];
      return part && sid ? part.alert(project, sid) : "";
    });
    say(`${combinedDisplay(states)}${alerts.join("")}\n`);
  } else if (opts.json) {
    // One provider asked for: its state, as before. Otherwise the whole project, with each provider's state.
    if (opts.provider) printJson(states[0]);
    else
      printJson({
        project: states[0]?.project ?? null,
        installed: states.some((s) => s.installed),
        recording: states.some((s) => s.recording),
        display: combinedDisplay(states),
        last_change: latest(states),
        providers: states,
        otel: otelStatus(project),
      });
  } else {
    const otel = otelStatus(project);
    say(`${renderStatus(project, states)}${otel ? `\n${renderOtelStatus(otel)}\n` : ""}`);
  }
}
