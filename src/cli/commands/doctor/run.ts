// `tapedeck doctor`: is this project's recording going to work? Per installed
// provider, the table below of checks, in the order the report shows them;
// each returns its results (a status, a message, and for a warning or a
// problem the fix). Exit 0 when nothing is wrong, 1 when a problem was found
// (warnings alone do not fail).
import { loadConfig, type ProviderConfig } from "../../../core/archive/config.ts";
import { sessionsInScope } from "../../../core/read/session-scope.ts";
import { installable, providerEntry } from "../../../providers/catalog.ts";
import type { ProviderInstaller } from "../../../providers/installer.ts";
import { projectFromOption, providersIn } from "../../common.ts";
import { providerName } from "../../providers.ts";
import { checkCacheShare } from "./cache-share.ts";
import { check, type DoctorCheck, type DoctorReport, type ProviderReport } from "./check.ts";
import { checkDiagnostics } from "./diagnostics.ts";
import { checkDiskUsage } from "./disk-usage.ts";
import { checkExperimentLinks } from "./experiment-links.ts";
import { checkExtras } from "./extras.ts";
import { checkHookServer } from "./hook-server.ts";
import { checkHooks, type FoundHook } from "./hooks.ts";
import { checkSessionRoot } from "./session-root.ts";

export interface DoctorOpts {
  project?: string;
  provider?: string;
  settings?: string;
  codexHome?: string;
  json?: boolean;
}

/** What a provider's checks look at; `found` is filled by the hooks check, for the checks after it. */
interface ProviderScope {
  project: string;
  provider: string;
  entry: ProviderConfig;
  installer: ProviderInstaller | undefined;
  opts: DoctorOpts;
  found: FoundHook[];
}

type ProviderCheck = (scope: ProviderScope) => DoctorCheck[] | Promise<DoctorCheck[]>;

function recording({ project, provider, entry }: ProviderScope): DoctorCheck[] {
  const on = entry.recording === "on";
  const detail = `${entry.mode ?? "capture-only"}, transport ${entry.transport ?? "command"}`;
  return [
    on
      ? check("recording", "ok", `on (${detail})`)
      : check("recording", "warn", `stopped: hooks run but record nothing (${detail})`, [
          `tapedeck record start --provider ${provider} --project ${project}`,
        ]),
  ];
}

function hooks(scope: ProviderScope): DoctorCheck[] {
  const result = checkHooks(scope.project, scope.provider, scope.installer, scope.opts.settings);
  scope.found = result.found;
  return result.checks;
}

/** The provider's own checks (its folder's doctor checks, e.g. Codex's hook trust), after the hooks check. */
function providerChecks({ project, provider, opts, found }: ProviderScope): DoctorCheck[] {
  const scope = { project, hooksFound: found.length, codexHome: opts.codexHome };
  return (providerEntry(provider)?.doctorChecks ?? []).flatMap((run) => run(scope));
}

async function hookServer({ project, provider, entry }: ProviderScope): Promise<DoctorCheck[]> {
  return entry.transport === "http" ? [await checkHookServer(project, provider, entry)] : [];
}

function extras({ project, installer, opts }: ProviderScope): DoctorCheck[] {
  return installer ? checkExtras(project, installer, opts.settings) : [];
}

const PROVIDER_CHECKS: readonly ProviderCheck[] = [
  ({ provider }) => [check("config", "ok", `.tapedeck/config.json has ${provider}`)],
  recording,
  hooks,
  ({ project, provider, entry }) => [checkSessionRoot(project, provider, entry)],
  providerChecks,
  hookServer,
  extras,
];

async function providerReport(
  project: string,
  provider: string,
  entry: ProviderConfig | undefined,
  opts: DoctorOpts,
): Promise<ProviderReport> {
  if (!entry) {
    const checks = [
      check("config", "fail", `${providerName(provider)} is not installed in ${project}`, [
        `tapedeck install ${provider} --project ${project}`,
      ]),
    ];
    return { provider, ok: false, checks };
  }
  const installer = providerEntry(provider)?.installer;
  const scope: ProviderScope = { project, provider, entry, installer, opts, found: [] };
  const checks: DoctorCheck[] = [];
  for (const run of PROVIDER_CHECKS) checks.push(...(await run(scope)));
  return { provider, ok: !checks.some((c) => c.status === "fail"), checks };
}

/**
 * No agent's hooks in this project. With sessions in its archive (imported, or recorded before an uninstall)
 * nothing is wrong: they are read as they are, and the report says what is and is not installed. With none,
 * tapedeck has nothing here, which is the problem doctor reports.
 */
function notInstalled(project: string, only: string | undefined): ProviderReport {
  const [first, ...rest] = installable();
  const counts = new Map<string, number>();
  for (const s of sessionsInScope({ project, ...(only ? { provider: only } : {}) })) {
    const provider = s.manifest.provider ?? "unknown";
    counts.set(provider, (counts.get(provider) ?? 0) + 1);
  }
  if (counts.size === 0) {
    return {
      provider: "none",
      ok: false,
      checks: [
        check("config", "fail", `tapedeck is not installed in ${project}`, [
          `tapedeck install ${first}   (or ${rest.join(", ")})`,
        ]),
      ],
    };
  }
  const archived = [...counts].map(([p, n]) => `${n} ${providerName(p)} session${n === 1 ? "" : "s"}`);
  const missing = only ? [only] : installable();
  return {
    provider: "none",
    ok: true,
    checks: [
      check("archive", "ok", `${archived.join(", ")} in .tapedeck/ (imported or recorded before)`),
      check(
        "config",
        "ok",
        `no hooks installed (${missing.map(providerName).join(", ")}): new sessions are not recorded; \`tapedeck install ${missing[0]}\` records them`,
      ),
    ],
  };
}

export async function runDoctor(opts: DoctorOpts): Promise<DoctorReport> {
  const project = projectFromOption(opts.project);
  const config = loadConfig(project);
  const providers = providersIn(config, opts.provider);
  const reports: ProviderReport[] = [];
  for (const provider of providers) {
    reports.push(await providerReport(project, provider, config?.providers[provider], opts));
  }
  if (providers.length === 0) reports.push(notInstalled(project, opts.provider));
  const diagnostics = checkDiagnostics(project);
  if (diagnostics && reports[0]) reports[0].checks.push(diagnostics);
  const disk = checkDiskUsage(project);
  if (disk && reports[0]) reports[0].checks.push(disk);
  for (const [provider, c] of checkCacheShare(project)) {
    (reports.find((r) => r.provider === provider) ?? reports[0])?.checks.push(c);
  }
  const links = checkExperimentLinks(project);
  if (links && reports[0]) reports[0].checks.push(links);
  const all = reports.flatMap((r) => r.checks);
  const problems = all.filter((c) => c.status === "fail").length;
  return {
    project,
    ok: problems === 0,
    problems,
    warnings: all.filter((c) => c.status === "warn").length,
    providers: reports,
  };
}
