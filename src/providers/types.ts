// The adapter port lives in the core (core/provider.ts), beside the NormalizeResult it returns; re-exported
// here so that the provider folders keep importing their contract from beside them.
export type { EnrichScope, ProviderAdapter } from "../core/provider.ts";
