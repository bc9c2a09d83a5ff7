// The installers of providers/catalog.ts, by provider, for `tapedeck install`,
// `uninstall` and `doctor`: each provider's own comes from its folder
// (<provider>/provider.ts), with the extras its flags add.
import { CATALOG } from "./catalog.ts";
import type { ProviderInstaller } from "./installer.ts";

export const INSTALLERS: Record<string, ProviderInstaller> = Object.fromEntries(
  Object.entries(CATALOG).flatMap(([name, entry]) => (entry.installer ? [[name, entry.installer]] : [])),
);
