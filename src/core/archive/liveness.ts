// Whether an `active` session still has a writer: asked by recovery before it marks a session incomplete,
// and by `list`, which must not load recovery (the scanner, the store, the redaction rules) to ask it.
import { processExists } from "../base/pids.ts";
import type { Manifest } from "./schemas.ts";

/** An active session with no event for this long is considered abandoned. */
export const DEFAULT_IDLE_MS = 6 * 60 * 60 * 1000;

/** Whether an `active` session still has a writer: its agent is alive and it is not idle. */
export function sessionLiveness(
  manifest: Manifest,
  idleMs = DEFAULT_IDLE_MS,
  now = Date.now(),
): { live: boolean; reason: string | null } {
  if (manifest.status !== "active") return { live: false, reason: null };
  if (manifest.agent_pid && !processExists(manifest.agent_pid)) {
    return { live: false, reason: `agent process ${manifest.agent_pid} ended without a terminal event` };
  }
  const last = Date.parse(manifest.last_event_at ?? manifest.started_at);
  if (Number.isFinite(last) && now - last > idleMs) {
    return { live: false, reason: `no event for ${Math.round((now - last) / 60000)} minutes` };
  }
  return { live: true, reason: null };
}
