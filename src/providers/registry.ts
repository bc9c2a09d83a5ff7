import { antigravityAdapter } from "./antigravity/adapter.ts";
import { claudeAdapter } from "./claude/adapter.ts";
import { codexAdapter } from "./codex/adapter.ts";
import { geminiAdapter } from "./gemini/adapter.ts";
import type { ProviderAdapter } from "./types.ts";

export const ADAPTERS: Record<string, ProviderAdapter> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  antigravity: antigravityAdapter,
};

export function adapterFor(name: string): ProviderAdapter | undefined {
  return Object.hasOwn(ADAPTERS, name) ? ADAPTERS[name] : undefined;
}
