import { claudeAdapter } from "./claude/adapter.ts";
import { codexAdapter } from "./codex/adapter.ts";
import type { ProviderAdapter } from "./types.ts";

export const ADAPTERS: Record<string, ProviderAdapter> = {
  claude: claudeAdapter,
  codex: codexAdapter,
};

export function adapterFor(name: string): ProviderAdapter | undefined {
  return Object.hasOwn(ADAPTERS, name) ? ADAPTERS[name] : undefined;
}
