// `tapedeck usage daily|weekly|monthly|session|model`: token usage and its estimated cost over every recorded
// and imported session, all providers in one table (src/usage/report.ts), from the usage cache: a report over
// sessions whose events did not change reads none of them. `usage publish` writes this machine's aggregates
// into a synced folder (publish-command.ts); `--machines DIR` sums every device's (src/usage/machines.ts).
import { resolve } from "node:path";
import { Argument, type Command } from "commander";
import { printable } from "../../../core/base/printable.ts";
import { registeredProjects } from "../../../core/read/registry-projects.ts";
import { USAGE_FACTS } from "../../../providers/usage-facts.ts";
import { blocksReport } from "../../../usage/blocks.ts";
import { machinesReport } from "../../../usage/machines.ts";
import { UsageQueryError } from "../../../usage/query-error.ts";
import { inRange, parseRange } from "../../../usage/range.ts";
import { REPORT_KINDS, type ReportKind, type UsageReport, usageReport } from "../../../usage/report.ts";
import { projectScope, scopeText, type UsageScope } from "../../../usage/scope.ts";
import { Calendar, checkTimeZone, systemTimeZone } from "../../../usage/zone.ts";
import { CliError, checkProvider, EXIT, printJson, projectFromOption, say } from "../../common.ts";
import { io } from "../../io.ts";
import { offerWords, PROJECT_HELP } from "../../options.ts";
import { PROVIDERS } from "../../providers.ts";
import { renderBlocks } from "./blocks-table.ts";
import { runLive } from "./live.ts";
import { publishCommand } from "./publish-command.ts";
import { renderMachines, renderUsage } from "./table.ts";

const COMMANDS = [...REPORT_KINDS, "blocks", "publish"] as const;
type UsageCommand = (typeof COMMANDS)[number];

interface UsageOpts {
  since?: string;
  until?: string;
  provider?: string;
  project?: string;
  allProjects?: boolean;
  breakdown?: boolean | string;
  timezone?: string;
  json?: boolean;
  machines?: string;
  to?: string;
  device?: string;
  nameProject?: string;
  live?: boolean;
}

/** Options that belong to one command only: given to another, a usage error rather than ignored. */
const ONLY: Array<[keyof UsageOpts, string, (c: UsageCommand) => boolean]> = [
  ["to", "--to", (c) => c === "publish"],
  ["device", "--device", (c) => c === "publish"],
  ["nameProject", "--name-project", (c) => c === "publish"],
  ["machines", "--machines", (c) => c !== "publish" && c !== "session" && c !== "blocks"],
  ["breakdown", "--breakdown", (c) => c !== "publish" && c !== "blocks"],
  ["since", "--since", (c) => c !== "publish"],
  ["until", "--until", (c) => c !== "publish" && c !== "blocks"],
  ["provider", "--provider", (c) => c !== "publish" && c !== "blocks"],
  ["live", "--live", (c) => c !== "publish"],
  ["allProjects", "--all-projects", (c) => !(c === "publish")],
];

async function usageCommand(command: UsageCommand, opts: UsageOpts): Promise<void> {
  for (const [key, flag, ok] of ONLY) {
    if (opts[key] !== undefined && !ok(command)) {
      throw new CliError(`${flag} does not apply to \`usage ${command}\``, EXIT.usage);
    }
  }
  if (command === "publish") {
    publishCommand(opts);
    return;
  }
  if (opts.allProjects && opts.project !== undefined) {
    throw new CliError("--project and --all-projects: use one of them", EXIT.usage);
  }
  if (command === "blocks") {
    await blocksCommand(opts);
    return;
  }
  if (opts.live && !opts.json) {
    // Checked once before the view opens: a wrong option is an exit 2, not a screen of errors.
    capture(() => reportCommand(command, opts));
    await runLive({
      input: io().stdin,
      output: io().stdout,
      render: () => capture(() => reportCommand(command, opts)),
    });
    return;
  }
  reportCommand(command, opts);
}

/** What a command would print, as text (for --live to draw). */
function capture(run: () => void): string {
  const chunks: string[] = [];
  const out = io().stdout;
  const write = out.write;
  out.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  }) as typeof out.write;
  try {
    run();
  } finally {
    out.write = write;
  }
  return chunks.join("");
}

function scopeOf(opts: UsageOpts): string[] {
  return opts.allProjects ? registeredProjects().present : [projectFromOption(opts.project)];
}

async function blocksCommand(opts: UsageOpts): Promise<void> {
  const zone = opts.timezone ?? systemTimeZone();
  let keep: ((ms: number) => boolean) | undefined;
  try {
    const cal = new Calendar(checkTimeZone(zone));
    const range = parseRange(opts.since, undefined);
    if (opts.since !== undefined) keep = (ms) => inRange(range, ms, () => cal.day(ms));
  } catch (error) {
    if (error instanceof UsageQueryError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  const projects = scopeOf(opts);
  const scope = projectScope(projects, opts.allProjects === true);
  const report = () => blocksReport({ projects, facts: USAGE_FACTS, keep });
  if (opts.json) {
    printJson({ scope, ...report() });
    return;
  }
  const render = () => renderBlocks(report(), zone, scopeText(scope));
  if (opts.live) await runLive({ input: io().stdin, output: io().stdout, render });
  else say(render());
}

function reportCommand(kind: ReportKind, opts: UsageOpts): void {
  const provider = checkProvider(opts.provider);
  if (opts.machines !== undefined) {
    if (opts.project !== undefined || opts.allProjects)
      throw new CliError(
        "--machines sums every device's published days: no --project or --all-projects",
        EXIT.usage,
      );
    machinesCommand(kind, provider, opts);
    return;
  }
  const projects = scopeOf(opts);
  const scope = projectScope(projects, opts.allProjects === true);
  // Our own text and a terminal's line erase: written as it is (note() would show the escape as U+FFFD).
  let shown = false;
  const progress = io().stderr.isTTY
    ? (done: number, total: number) => {
        shown = true;
        io().stderr.write(`\r\x1b[Ktapedeck: reading usage, ${done} sessions read (of ${total})…`);
      }
    : undefined;
  let report: ReturnType<typeof usageReport>;
  try {
    report = usageReport({
      kind,
      projects,
      provider,
      since: opts.since,
      until: opts.until,
      timeZone: opts.timezone ?? systemTimeZone(),
      breakdown: breakdownOpt(opts.breakdown, kind),
      facts: USAGE_FACTS,
      onProgress: progress,
    });
  } catch (error) {
    if (error instanceof UsageQueryError) throw new CliError(error.message, EXIT.usage);
    throw error;
  } finally {
    if (shown) io().stderr.write("\r\x1b[K");
  }
  if (opts.json) {
    printJson(jsonOf(report, scope));
    return;
  }
  if (report.rows.length === 0) {
    const where = opts.allProjects ? "any registered project" : projects[0];
    say(
      `No usage recorded in ${printable(where ?? "")}${opts.since || opts.until ? " in that range" : ""}.\n`,
    );
    return;
  }
  say(renderUsage(report, opts.allProjects === true, scopeText(scope)));
}

function jsonOf(report: UsageReport, scope: UsageScope): Record<string, unknown> {
  const out: Record<string, unknown> = {
    scope,
    rows: report.rows,
    totals: report.totals,
    refused_prices: report.refused_prices,
  };
  if (report.cache_read_shares) out.cache_read_shares = report.cache_read_shares;
  return out;
}

/** `--breakdown` alone is by model; `--breakdown version` by agent CLI version, `project` by project. */
function breakdownOpt(
  b: boolean | string | undefined,
  kind: ReportKind,
): "model" | "version" | "project" | false {
  if (b === undefined || b === false) return false;
  if (b === true || b === "model") return "model";
  if (b === "version") return "version";
  if (b === "project") {
    // A session is in one project, and a project report's rows are projects already.
    if (kind === "session" || kind === "project")
      throw new CliError(`--breakdown project does not apply to \`usage ${kind}\``, EXIT.usage);
    return "project";
  }
  throw new CliError(
    `--breakdown ${printable(String(b))}: use --breakdown (by model), --breakdown version or --breakdown project`,
    EXIT.usage,
  );
}

function machinesCommand(kind: ReportKind, provider: string | undefined, opts: UsageOpts): void {
  let report: ReturnType<typeof machinesReport>;
  try {
    report = machinesReport({
      kind,
      dir: resolve(opts.machines!),
      provider,
      since: opts.since,
      until: opts.until,
      timeZone: opts.timezone ?? systemTimeZone(),
      breakdown: breakdownOpt(opts.breakdown, kind),
      facts: USAGE_FACTS,
    });
  } catch (error) {
    if (error instanceof UsageQueryError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  const scope: UsageScope = { kind: "machines", dir: opts.machines!, machines: report.machines.length };
  if (opts.json) {
    printJson({ ...jsonOf(report, scope), machines: report.machines });
    return;
  }
  say(renderMachines(report, opts.machines!, scopeText(scope)));
}

/** `--timezone`'s completion words: the IANA names this Node knows. */
function timeZones(): string[] {
  return Intl.supportedValuesOf("timeZone");
}

export function register(program: Command): void {
  const command = program
    .command("usage")
    .description(
      "token usage and estimated cost of every provider's sessions: by day, week, month, session, model or project; across machines",
    )
    .addArgument(
      new Argument(
        "<report>",
        "daily, weekly, monthly, session, model or project; blocks: Claude's 5-hour windows; publish: write this machine's aggregates for --machines",
      ).choices(COMMANDS),
    )
    .option(
      "--since <when>",
      "from a date (2026-11-30, 20261130, the whole day), a time or a duration (7d, 12h)",
    )
    .option("--until <when>", "up to a date (inclusive), a time or a duration ago")
    .option("--provider <name>", `only sessions of this provider (${PROVIDERS.join(", ")})`)
    .option("--project <dir>", PROJECT_HELP)
    .option("--all-projects", "every project the registry knows, not only this one")
    .option(
      "--breakdown [by]",
      "split each row by model, by agent CLI version (`--breakdown version`: with the cache-read share of input, flagged when the newest version's share is less than half the one's before it) or by project (`--breakdown project`)",
    )
    .option(
      "--timezone <zone>",
      "the IANA time zone days, weeks and months are counted in (default: the system's)",
    )
    .option("--live", "draw the report again every 5 s until q or Ctrl-C (not a terminal: once)")
    .option(
      "--machines <dir>",
      "sum every device published into DIR (daily, weekly, monthly, model, project): one total for all machines",
    )
    .option("--to <dir>", "publish: the folder to write into (one you sync); remembered for the next publish")
    .option("--device <name>", "publish: this machine's name in --machines reports (default: its id's start)")
    .option(
      "--name-project <name>",
      "publish: publish this project under NAME, not a salted hash (remembered)",
    )
    .option(
      "--json",
      'machine-readable output: {"scope": {...}, "rows": [...], "totals": {...}, "refused_prices": [...]} (with --machines, also "machines"); blocks: {"scope": {...}, "blocks": [...], "active": {...} | null}; publish: {"device_id", "device_name", "folder", "published_at", "days", "unchanged", "rows", "sessions", "removed", "kept_absent", "models_withheld", "unsummable", "projects"}',
    );
  offerWords(command, "--timezone", timeZones()).action(usageCommand);
}
