// `tapedeck retrieval on|off|status`: whether the prompt hook hands the agent the project's best memory for each
// prompt (memory/store/inject.ts). Independent of recording: either can be on without the other.

import { existsSync } from "node:fs";
import type { Command } from "commander";
import { type ProviderConfig, readConfig, writeConfig } from "../../core/archive/config.ts";
import { printable } from "../../core/base/printable.ts";
import {
  clampBudget,
  clampThreshold,
  DEFAULT_BUDGET_BYTES,
  DEFAULT_THRESHOLD,
  MAX_BUDGET_BYTES,
  MIN_BUDGET_BYTES,
} from "../../memory/store/inject.ts";
import { memoryPath, openMemory } from "../../memory/store/store.ts";
import { injectorFor } from "../../providers/registry.ts";
import { CliError, EXIT, note, printJson, projectFromOption, say } from "../common.ts";
import { PROJECT_HELP } from "../options.ts";
import { providerName } from "../providers.ts";
import { notInstalled, providersOf } from "../recording-status.ts";

interface RetrievalOpts {
  project?: string;
  provider?: string;
  budget?: string;
  threshold?: string;
  json?: boolean;
}

export interface RetrievalState {
  provider: string;
  retrieval: "on" | "off";
  budget_bytes: number;
  /** The relevance score an item needs to be given (0 to 1). */
  threshold: number;
  /** The provider's prompt hook can add context (all but Antigravity). */
  supported: boolean;
}

/** `--budget`: whole bytes within the bounds, else a usage error (never a silent clamp the user did not ask for). */
export function parseBudget(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,7}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n < MIN_BUDGET_BYTES || n > MAX_BUDGET_BYTES) {
    throw new CliError(
      `--budget must be a number of bytes from ${MIN_BUDGET_BYTES} to ${MAX_BUDGET_BYTES} (Claude Code cuts added context past about 10 KB)`,
      EXIT.usage,
    );
  }
  return n;
}

/** `--threshold`: a number from 0 to 1, else a usage error. */
export function parseThreshold(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  const n = /^(0(\.\d{1,4})?|1(\.0{1,4})?|\.\d{1,4})$/.test(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(n)) {
    throw new CliError(
      `--threshold must be a number from 0 to 1 (the share of a prompt's term weight an item must hold; default ${DEFAULT_THRESHOLD})`,
      EXIT.usage,
    );
  }
  return n;
}

export function retrievalState(provider: string, entry: ProviderConfig | undefined): RetrievalState {
  return {
    provider,
    retrieval: entry?.retrieval?.state === "on" ? "on" : "off",
    budget_bytes: clampBudget(entry?.retrieval?.budget_bytes),
    threshold: clampThreshold(entry?.retrieval?.threshold),
    supported: injectorFor(provider) !== undefined,
  };
}

function retrievalCommand(action: string, opts: RetrievalOpts): void {
  if (!["on", "off", "status"].includes(action)) {
    throw new CliError(`unknown action "${action}" (use on, off or status)`, EXIT.usage);
  }
  const budget = parseBudget(opts.budget);
  if (budget !== undefined && action !== "on") throw new CliError("--budget goes with on", EXIT.usage);
  const threshold = parseThreshold(opts.threshold);
  if (threshold !== undefined && action !== "on") throw new CliError("--threshold goes with on", EXIT.usage);
  const project = projectFromOption(opts.project);
  const config = readConfig(project);
  const asked = providersOf(project, opts.provider);
  const missing = asked.find((p) => !config?.providers[p]);
  if (!config || asked.length === 0 || missing !== undefined)
    throw notInstalled(project, missing ?? opts.provider);
  if (opts.provider && action === "on" && !injectorFor(opts.provider)) {
    throw new CliError(`${providerName(opts.provider)}'s hooks cannot add context to a prompt`, EXIT.usage);
  }
  const providers = action === "on" ? asked.filter((p) => injectorFor(p)) : asked;
  if (action !== "status") {
    for (const p of providers) {
      const entry = config.providers[p]!;
      const size = budget ?? entry.retrieval?.budget_bytes;
      const gate = threshold ?? entry.retrieval?.threshold;
      entry.retrieval = {
        state: action === "on" ? "on" : "off",
        ...(size !== undefined ? { budget_bytes: size } : {}),
        ...(gate !== undefined ? { threshold: gate } : {}),
      };
    }
    writeConfig(project, config);
  }
  const states = asked.map((p) => retrievalState(p, config.providers[p]));
  const memory = existsSync(memoryPath(project));
  const usable = memory && ownMemory(project);
  if (memory && !usable) {
    note(
      "tapedeck: .tapedeck/memory.sqlite was not laid out by your tapedeck (it came with the project, was changed, or predates origin proofs): the agent gets nothing from it; move it aside and promote again\n",
    );
  }
  if (opts.json) {
    printJson({ project, memory, memory_usable: usable, providers: states });
    return;
  }
  const lines = states.map((s) =>
    s.supported
      ? `Retrieval ${s.retrieval}  ${providerName(s.provider)}${s.retrieval === "on" ? `, up to ${s.budget_bytes} bytes per prompt, items scoring ${s.threshold} or more` : ""}`
      : `Retrieval off  ${providerName(s.provider)} (its hooks cannot add context)`,
  );
  // A provider and its figures are the config file's: one line each.
  say(`${lines.map(printable).join("\n")}\n`);
  if (action === "on" && !memory) {
    note(
      "tapedeck: the project's memory is empty; promote what the agent should know with: tapedeck promote SESSION\n",
    );
  }
}

export function register(program: Command): void {
  program
    .command("retrieval <action>")
    .description(
      "on, off or status: hand the agent the project's promoted memory relevant to each prompt (independent of recording)",
    )
    .option("--project <dir>", PROJECT_HELP)
    .option("--provider <name>", "only this provider (default: every installed one)")
    .option(
      "--budget <bytes>",
      `added context per prompt, marker included (default ${DEFAULT_BUDGET_BYTES}, at most ${MAX_BUDGET_BYTES})`,
    )
    .option(
      "--threshold <score>",
      `relevance an item needs, 0 to 1: the share of the prompt's term weight it holds (default ${DEFAULT_THRESHOLD})`,
    )
    .option("--json", "machine-readable output")
    .action(retrievalCommand);
}

/** Whether retrieval can use the memory file (memory/store/origin.ts): a cloned repository's own is refused. */
function ownMemory(project: string): boolean {
  try {
    const store = openMemory(project, { readonly: true });
    if (!store) return false;
    try {
      return store.isOwn();
    } finally {
      store.close();
    }
  } catch {
    return false;
  }
}
