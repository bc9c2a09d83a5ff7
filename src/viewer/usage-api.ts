// The viewer's usage page asks for a report as `api/usage?report=daily&tz=Europe/Paris&…`: the same
// usageReport as `tapedeck usage` (src/usage/report.ts), over the projects the viewer shows, so the page and the
// CLI give the same numbers. A bad value throws UsageQueryError, which the API answers as a 400 with its message.
import { USAGE_FACTS } from "../providers/usage-facts.ts";
import { UsageQueryError } from "../usage/query-error.ts";
import { type ReportKind, type UsageReport, usageReport } from "../usage/report.ts";
import { systemTimeZone } from "../usage/zone.ts";

/** The page's copy of a report: the rows and totals `--json` prints, what the table's notes need, and the
 * projects it covers (the page says its scope, as `tapedeck usage` does in its title). */
export type UsagePageReport = Omit<UsageReport, "stats"> & { projects: string[] };

const MAX_PARAM_CHARS = 100;

function param(params: URLSearchParams, name: string): string | undefined {
  const v = params.get(name);
  if (v === null || v === "") return undefined;
  if (v.length > MAX_PARAM_CHARS) throw new UsageQueryError(`${name} is too long`);
  return v;
}

export function usageForPage(projects: readonly string[], params: URLSearchParams): UsagePageReport {
  const provider = param(params, "provider");
  if (provider !== undefined && !Object.hasOwn(USAGE_FACTS, provider)) {
    throw new UsageQueryError("unknown provider");
  }
  const { stats: _stats, ...report } = usageReport({
    kind: (param(params, "report") ?? "daily") as ReportKind,
    projects,
    provider,
    since: param(params, "since"),
    until: param(params, "until"),
    timeZone: param(params, "tz") ?? systemTimeZone(),
    breakdown: params.get("breakdown") === "1",
    facts: USAGE_FACTS,
  });
  return { ...report, projects: [...projects] };
}
