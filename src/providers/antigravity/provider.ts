// Everything Antigravity offers tapedeck, for providers/catalog.ts: the
// adapter (and its usage facts: none). Its hooks are configured by hand (docs/antigravity.md), so
// there is no installer, and the proxy does not read its traffic.
import type { ProviderEntry } from "../entry.ts";
import { antigravityAdapter } from "./adapter.ts";
import { antigravityIdentity } from "./identity.ts";
import { antigravityUsageFacts } from "./usage-facts.ts";

export const antigravityProvider: ProviderEntry = {
  identity: antigravityIdentity,
  adapter: antigravityAdapter,
  usage: antigravityUsageFacts,
};
