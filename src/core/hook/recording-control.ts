// Switching recording on or off, for the CLI (`tapedeck record start|stop`) and
// the MCP tool (`record_session`): one function, so the two cannot drift in
// what a switch writes and logs. It refuses before changing anything when a
// provider is not installed, and logs one control change per provider whose
// state changed, naming who asked.

import { readConfig, setRecording, writeConfig } from "../archive/config.ts";
import type { ControlChange } from "./control-log.ts";
import { logControlChange } from "./control-log.ts";

export interface SwitchRequest {
  providers: readonly string[];
  on: boolean;
  via: ControlChange["via"];
  /**
   * The mode recording starts in. The MCP tool passes capture-only: the agent may start recording, never
   * anything more (its tool's promise); the CLI passes nothing and keeps the mode the user configured.
   */
  startMode?: "capture-only";
}

export type SwitchResult =
  | {
      installed: false /** The first provider asked for that is not installed (none: no config at all). */;
      missing?: string;
    }
  | {
      installed: true /** The providers whose recording (or mode) changed, in the order asked. */;
      changed: string[];
    };

export function switchRecording(project: string, request: SwitchRequest): SwitchResult {
  const config = readConfig(project);
  if (!config || request.providers.length === 0) return { installed: false };
  const missing = request.providers.find((p) => !config.providers[p]);
  if (missing !== undefined) return { installed: false, missing };
  const changed = request.providers.filter((p) => {
    const entry = config.providers[p]!;
    let switched = setRecording(entry, request.on);
    if (request.on && request.startMode && entry.mode !== request.startMode) {
      entry.mode = request.startMode;
      switched = true;
    }
    return switched;
  });
  if (changed.length === 0) return { installed: true, changed };
  writeConfig(project, config);
  for (const provider of changed) {
    logControlChange(project, { provider, action: request.on ? "start" : "stop", via: request.via });
  }
  return { installed: true, changed };
}
