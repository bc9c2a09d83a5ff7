// The providers tapedeck records, by name, for the CLI's usage checks and
// messages. Not the catalog (providers/catalog.ts) nor the hot path's registry:
// importing either loads every provider's normalizer, which `status` or `list`
// never run (measured: half of `tapedeck status`'s code).
// The names come from each provider's identity (providers/identity.ts), which
// loads nothing else.
import { IDENTITIES, identityOf } from "../providers/identity.ts";

/** Every provider's name, in the catalog's order. */
export const PROVIDERS: readonly string[] = Object.keys(IDENTITIES);

/** What `--provider` means where one provider is meant and none is named: the catalog's first. */
export const DEFAULT_PROVIDER = PROVIDERS[0] ?? "";

export function isProvider(name: string): boolean {
  return identityOf(name) !== undefined;
}

/** The name a person knows the provider by ("Claude Code"); an unknown one as it is. */
export function providerName(provider: string): string {
  return identityOf(provider)?.displayName ?? provider;
}
