// The hook hot path's adapters (dist/hook.cjs, serve, `tapedeck hook`): the
// adapters only, because the catalog (catalog.ts) also loads every installer
// and doctor check, which a hook never runs (test/hook-entry.test.ts checks
// the bundle). test/providers/contract.test.ts keeps this list equal to the
// catalog's, in its order.
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
