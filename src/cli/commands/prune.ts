// `tapedeck prune`: removes the sessions a retention rule selects (age, keep-last, provider, status), with
// the same preview and confirmation as delete. With no option it applies the project's configured
// `retention` block; with --all-projects, every project the user's tapedeck registry knows.
import { type Command, Option } from "commander";
import { readConfig } from "../../core/archive/config.ts";
import { fields } from "../../core/base/printable.ts";
import {
  parseAge,
  planRemoval,
  removeSessions,
  type Selection,
  selectionOf,
} from "../../core/read/retention.ts";
import { knownProjects } from "../all-projects.ts";
import { CliError, checkProvider, EXIT, projectFromOption, say } from "../common.ts";
import { withSessionOptions } from "../options.ts";
import { ageOption, confirmAndRemove } from "../removal.ts";

interface PruneOpts {
  project?: string;
  provider?: string;
  olderThan?: string;
  keepLast?: string;
  status?: string;
  allProjects?: boolean;
  includeReferenced?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
  auto?: boolean;
}

function keepLastOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(text)) throw new CliError(`--keep-last "${text}": use a whole number`, EXIT.usage);
  return Number(text);
}

function statusOption(text: string | undefined): Selection["status"] {
  if (text === undefined || text === "incomplete" || text === "complete") return text;
  throw new CliError(`--status "${text}": use incomplete or complete`, EXIT.usage);
}

/** The options' rule, else the project's configured one; neither is a usage error (prune never means "all"). */
function selectionFor(project: string, opts: PruneOpts): Selection {
  const given: Selection = {
    olderThanMs: ageOption(opts.olderThan, parseAge),
    keepLast: keepLastOption(opts.keepLast),
    status: statusOption(opts.status),
    provider: checkProvider(opts.provider),
    includeReferenced: opts.includeReferenced,
  };
  if (given.olderThanMs !== undefined || given.keepLast !== undefined || given.status !== undefined)
    return given;
  const configured = selectionOf(readConfig(project)?.retention);
  if (configured)
    return { ...configured, provider: given.provider, includeReferenced: opts.includeReferenced };
  throw new CliError(
    "say what to prune: --older-than, --keep-last or --status (or set a retention block: tapedeck config set retention.older_than 30d)",
    EXIT.usage,
  );
}

async function pruneCommand(opts: PruneOpts): Promise<void> {
  if (opts.auto) {
    // The hook server's daily run (src/serve/retention-idle.ts): the configured rule, logged as counts only.
    const { runInProcess } = await import("../../serve/retention-idle.ts");
    return runInProcess(projectFromOption(opts.project));
  }
  const projects = opts.allProjects ? knownProjects() : [projectFromOption(opts.project)];
  for (const project of projects) {
    if (opts.allProjects && !opts.json) say(fields`${project}\n`);
    const plan = planRemoval(project, selectionFor(project, opts));
    await confirmAndRemove(project, plan, opts, (p) => removeSessions(project, p, { by: "prune" }));
  }
}

export function register(program: Command): void {
  withSessionOptions(
    program
      .command("prune")
      .description(
        "remove old sessions by a retention rule: age, keep-last, provider, status (preview, then asks)",
      )
      .option("--older-than <age>", "sessions whose last event is older than this (30d, 12h, 2w)")
      .option("--keep-last <n>", "always keep the newest N sessions (of the provider and status selected)")
      .option("--status <incomplete|complete>", "only incomplete or only complete sessions")
      .option("--all-projects", "every project this user's tapedeck has recorded (from the session registry)")
      .option("--include-referenced", "also sessions a replay or experiment was made from")
      .option("--dry-run", "show what would be removed, remove nothing")
      .option("-y, --yes", "do not ask for confirmation (required without a terminal)")
      .addOption(
        new Option("--auto", "the configured retention, if due (the hook server runs this)").hideHelp(),
      ),
  ).action(pruneCommand);
}
