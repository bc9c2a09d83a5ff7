// Everything Antigravity offers tapedeck, for providers/catalog.ts: the
// adapter only. Its hooks are configured by hand (docs/antigravity.md), so
// there is no installer, and the proxy does not read its traffic.
import type { ProviderEntry } from "../entry.ts";
import { antigravityAdapter } from "./adapter.ts";

export const antigravityProvider: ProviderEntry = { adapter: antigravityAdapter };
