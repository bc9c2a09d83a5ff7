// What the MCP tools do, without the protocol: start, stop or report recording
// for one provider in one project. Starting only switches recording on in the
// project's tapedeck config (capture-only); it needs tapedeck installed for the
// provider there, and it never installs, injects or enables anything else.
// The switch itself is the CLI's (core/hook/recording-control.ts), asked for capture-only.
import { findProjectRoot } from "../core/archive/config.ts";
import { resolveProjectRoot } from "../core/archive/paths.ts";
import { switchRecording } from "../core/hook/recording-control.ts";
import { type RecordingState, recordingState } from "../core/hook/status.ts";

export const RECORD_ACTIONS = ["start", "stop", "status"] as const;
export type RecordAction = (typeof RECORD_ACTIONS)[number];

export interface ControlScope {
  provider: string;
  /** Where the agent runs; the project is the nearest directory at or above it with a tapedeck config. */
  startDir: string;
}

export interface ControlResult {
  action: RecordAction;
  /** Whether the action changed the recording state. */
  changed: boolean;
  state: RecordingState;
  message: string;
}

export class ControlError extends Error {}

/** The project the agent runs in: the nearest directory at or above it with a tapedeck config, if any. */
export function projectOf(scope: ControlScope): string | undefined {
  try {
    return findProjectRoot(resolveProjectRoot(scope.startDir));
  } catch {
    return undefined;
  }
}

export function currentState(scope: ControlScope): RecordingState {
  const project = projectOf(scope);
  return recordingState(project ?? null, scope.provider);
}

export function recordSession(action: string, scope: ControlScope): ControlResult {
  if (!(RECORD_ACTIONS as readonly string[]).includes(action)) {
    throw new ControlError(`unknown action "${action}": use "start", "stop" or "status"`);
  }
  const act = action as RecordAction;
  const project = projectOf(scope);
  if (act === "status") {
    const state = recordingState(project ?? null, scope.provider);
    return { action: act, changed: false, state, message: describe(state) };
  }
  const switched = project
    ? switchRecording(project, {
        providers: [scope.provider],
        on: act === "start",
        via: "mcp",
        startMode: "capture-only",
      })
    : undefined;
  if (!project || !switched?.installed) {
    if (act === "stop") {
      const state = recordingState(project ?? null, scope.provider);
      return {
        action: act,
        changed: false,
        state,
        message: "Not recording: tapedeck is not installed here.",
      };
    }
    throw new ControlError(
      `tapedeck is not installed for ${scope.provider} in ${scope.startDir}; the user can run: tapedeck install ${scope.provider}`,
    );
  }
  const changed = switched.changed.length > 0;
  const state = recordingState(project, scope.provider);
  const message =
    act === "start"
      ? `${changed ? "Recording started" : "Already recording"} (capture-only) for ${scope.provider} in ${project}.`
      : `${changed ? "Recording stopped" : "Recording was already off"} for ${scope.provider} in ${project}; hooks and settings are unchanged.`;
  return { action: act, changed, state, message };
}

export function describe(state: RecordingState): string {
  if (!state.installed) return `${state.display}: tapedeck is not installed for ${state.provider} here.`;
  return `${state.display}: ${state.recording ? "recording" : "not recording"} ${state.provider} in ${state.project} (session root ${state.session_root}, retrieval ${state.retrieval}).`;
}
