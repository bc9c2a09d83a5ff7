// `tapedeck usage daily|weekly|monthly|session|model`: token usage and its estimated cost over every recorded
// and imported session, all providers in one table (src/usage/report.ts), from the usage cache: a report over
// sessions whose events did not change reads none of them.
import { Argument, type Command } from "commander";
import { printable } from "../../../core/base/printable.ts";
import { registeredProjects } from "../../../core/read/registry-projects.ts";
import { USAGE_FACTS } from "../../../providers/usage-facts.ts";
import { UsageQueryError } from "../../../usage/query-error.ts";
import { REPORT_KINDS, type ReportKind, usageReport } from "../../../usage/report.ts";
import { systemTimeZone } from "../../../usage/zone.ts";
import { CliError, checkProvider, EXIT, printJson, projectFromOption, say } from "../../common.ts";
import { io } from "../../io.ts";
import { offerWords, PROJECT_HELP } from "../../options.ts";
import { PROVIDERS } from "../../providers.ts";
import { renderUsage } from "./table.ts";

interface UsageOpts {
  since?: string;
  until?: string;
  provider?: string;
  project?: string;
  allProjects?: boolean;
  breakdown?: boolean;
  timezone?: string;
  json?: boolean;
}

function usageCommand(kind: ReportKind, opts: UsageOpts): void {
  const provider = checkProvider(opts.provider);
  if (opts.allProjects && opts.project !== undefined) {
    throw new CliError("--project and --all-projects: use one of them", EXIT.usage);
  }
  const projects = opts.allProjects ? registeredProjects().present : [projectFromOption(opts.project)];
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
      breakdown: opts.breakdown === true,
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
    printJson({ rows: report.rows, totals: report.totals, refused_prices: report.refused_prices });
    return;
  }
  if (report.rows.length === 0) {
    const where = opts.allProjects ? "any registered project" : projects[0];
    say(
      `No usage recorded in ${printable(where ?? "")}${opts.since || opts.until ? " in that range" : ""}.\n`,
    );
    return;
  }
  say(renderUsage(report, opts.allProjects === true));
}

/** `--timezone`'s completion words: the IANA names this Node knows. */
function timeZones(): string[] {
  return Intl.supportedValuesOf("timeZone");
}

export function register(program: Command): void {
  const command = program
    .command("usage")
    .description(
      "token usage and estimated cost of every provider's sessions: by day, week, month, session or model",
    )
    .addArgument(new Argument("<report>", "daily, weekly, monthly, session or model").choices(REPORT_KINDS))
    .option(
      "--since <when>",
      "from a date (2026-11-30, 20261130, the whole day), a time or a duration (7d, 12h)",
    )
    .option("--until <when>", "up to a date (inclusive), a time or a duration ago")
    .option("--provider <name>", `only sessions of this provider (${PROVIDERS.join(", ")})`)
    .option("--project <dir>", PROJECT_HELP)
    .option("--all-projects", "every project the registry knows, not only this one")
    .option("--breakdown", "split each row by model")
    .option(
      "--timezone <zone>",
      "the IANA time zone days, weeks and months are counted in (default: the system's)",
    )
    .option("--json", 'machine-readable output: {"rows": [...], "totals": {...}, "refused_prices": [...]}');
  offerWords(command, "--timezone", timeZones()).action(usageCommand);
}
