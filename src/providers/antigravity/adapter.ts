// The Antigravity CLI (agy) adapter. NOT RUN AGAINST THE REAL CLIENT: see
// docs/antigravity.md for what it reads and what it assumes.
//
// It is stateless: agy's tool hooks carry a trajectory step index that pairs a
// call with its result, so no per-session state is needed, and agy reports no
// token usage to hooks that could be read here.
import type { ProviderAdapter } from "../types.ts";
import { antigravityIdentity } from "./identity.ts";
import { normalizeAntigravityHook } from "./normalize.ts";

export const antigravityAdapter: ProviderAdapter = {
  name: antigravityIdentity.name,
  displayName: antigravityIdentity.displayName,
  normalize: (payload, env) => normalizeAntigravityHook(payload, env),
};
