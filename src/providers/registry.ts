// The hook hot path's adapters (dist/hook.cjs, serve, `tapedeck hook`): the
// adapters only, because the catalog (catalog.ts) also loads every installer
// and doctor check, which a hook never runs (test/hook-entry.cli.test.ts checks
// the bundle). test/providers/contract.test.ts keeps this list equal to the
// catalog's, in its order.

import type { ContextInjector } from "../core/ports/injection.ts";
import { antigravityAdapter } from "./antigravity/adapter.ts";
import { claudeAdapter } from "./claude/adapter.ts";
import { claudeInjector } from "./claude/inject.ts";
import { codexAdapter } from "./codex/adapter.ts";
import { codexInjector } from "./codex/inject.ts";
import { codexNotifyHook } from "./codex/notify.ts";
import { geminiAdapter } from "./gemini/adapter.ts";
import { geminiInjector } from "./gemini/inject.ts";
import type { ArgvHook, ProviderAdapter } from "./types.ts";

export const ADAPTERS: Record<string, ProviderAdapter> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  antigravity: antigravityAdapter,
};

/** A table's entry for a name from the command line: its own entries only (never `constructor` and such). */
function entryOf<T>(table: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

export function adapterFor(name: string): ProviderAdapter | undefined {
  return entryOf(ADAPTERS, name);
}

/** Retrieval's per-provider output (each folder's inject.ts), for the hot path. */
export const INJECTORS: Record<string, ContextInjector> = {
  claude: claudeInjector,
  codex: codexInjector,
  gemini: geminiInjector,
};

export function injectorFor(name: string): ContextInjector | undefined {
  return entryOf(INJECTORS, name);
}

/** Capture paths beside the hooks that take their payload as an argument (Codex's notify program). */
export const ARGV_HOOKS: Record<string, ArgvHook> = {
  codex: codexNotifyHook,
};

/** The adapter of `<provider> <flag> <json>` when the provider has a capture path with that flag. */
export function argvHookFor(name: string, flag: string | undefined): ArgvHook | undefined {
  const hook = entryOf(ARGV_HOOKS, name);
  return hook && hook.flag === flag ? hook : undefined;
}
