// The Antigravity CLI (agy) adapter. NOT RUN AGAINST THE REAL CLIENT: see
// docs/antigravity.md for what it reads and what it assumes.
//
// It is stateless: agy's tool hooks carry a trajectory step index that pairs a
// call with its result, so no per-session state is needed, and agy reports no
// token usage to hooks that could be read here.
import type { ProviderAdapter } from "../types.ts";
import { canonicalEventName, normalizeAntigravityHook } from "./normalize.ts";

export const antigravityAdapter: ProviderAdapter = {
  name: "antigravity",
  displayName: "Antigravity",
  normalize: (payload, env) => normalizeAntigravityHook(payload, env),
  /**
   * From the payload alone (the interface gives no environment here), so only
   * a payload that names its event can say it starts a session. agy has no
   * http hooks, so nothing depends on this for it today.
   */
  isSessionStart: (payload) => {
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return false;
    const p = payload as Record<string, unknown>;
    for (const key of ["hook_event_name", "hookEventName", "eventName", "event_name", "event"]) {
      const value = p[key];
      if (typeof value === "string" && value !== "") return canonicalEventName(value) === "SessionStart";
    }
    return false;
  },
};
