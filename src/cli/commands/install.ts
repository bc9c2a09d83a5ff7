// `tapedeck install <provider>`: shows the enablement view, asks, then has the provider's installer add its
// hooks (and the extras asked for) and keeps tapedeck's project config in step.
import { tmpdir } from "node:os";
import { isAbsolute, relative, resolve } from "node:path";
import { REDACTION_POLICY } from "@tapedeck/redact";
import type { Command } from "commander";
import {
  effectiveLimits,
  loadConfig,
  type ProjectConfig,
  type ProviderConfig,
  type RetrievalConfig,
  readConfig,
  writeConfig,
} from "../../core/archive/config.ts";
import { isInside, resolveProjectRoot } from "../../core/archive/paths.ts";
import { builtFile } from "../../core/base/built-file.ts";
import { printable } from "../../core/base/printable.ts";
import { logControlChange } from "../../core/hook/control-log.ts";
import type { ExtraCommand, InstallExtra, ProviderInstaller } from "../../providers/installer.ts";
import { injectorFor } from "../../providers/registry.ts";
import { clientShellAvailable, nodeHookCommand } from "../../serve/client-command.ts";
import { hookCommandFor, type Transport, transportConfig } from "../../serve/transport.ts";
import { CliError, confirm, EXIT, formatBytes, note, printJson, say } from "../common.ts";
import { io } from "../io.ts";
import { type LocatedProject, locateProject } from "../project.ts";
import { installerFor, readSettings, settingsPathFor, writeSettings } from "../provider-settings.ts";
import { providerName } from "../providers.ts";
import { checkSessionRoot, ignoreSessionRoot } from "../session-root.ts";

interface InstallOpts {
  project?: string;
  mode: string;
  sessionRoot?: string;
  transport?: string;
  settings?: string;
  statusline: boolean;
  notify?: boolean;
  mcp?: boolean;
  retrieval?: boolean;
  yes?: boolean;
  json?: boolean;
}

type ExtraFlag = InstallExtra["flag"];

/** The extras the options ask for; a flag the provider has no extra for is a usage error. */
function requestedExtras(
  installer: ProviderInstaller,
  opts: Partial<Record<ExtraFlag, boolean>>,
): InstallExtra[] {
  const out: InstallExtra[] = [];
  for (const flag of ["notify", "mcp"] as const) {
    if (!opts[flag]) continue;
    const extra = installer.extras?.find((e) => e.flag === flag);
    if (!extra) throw new CliError(`${providerName(installer.provider)} has no --${flag}`, EXIT.usage);
    out.push(extra);
  }
  return out;
}

function extraCommand(): ExtraCommand {
  return { node: process.execPath, hook: builtFile("hook.cjs"), cli: builtFile("cli.js") };
}

/** The Project row of the view: below the git root, it says which directory install chose and why. */
function projectRow(located: LocatedProject): string {
  if (located.root === located.cwd) return located.root;
  const here = relative(located.root, located.cwd);
  return located.source === "git"
    ? `${located.root} (the git root; you are in ${here}: pass --project . to record that directory instead)`
    : `${located.root} (installed there already; you are in ${here})`;
}

function hookCommand(transport: Transport, provider: string, project: string): string {
  return hookCommandFor(transport, provider, project, {
    node: process.execPath,
    hook: builtFile("hook.cjs"),
    client: builtFile("hook-client.sh"),
  });
}

function statusLineCommand(provider: string): string {
  return nodeHookCommand(process.execPath, builtFile("hook.cjs"), ["--statusline", provider]);
}

/** Under the system temp directory (by path or by realpath): no confirmation needed there. */
function isTemporary(path: string): boolean {
  const tmp = tmpdir();
  let realTmp = tmp;
  try {
    realTmp = resolveProjectRoot(tmp);
  } catch {
    // a TMPDIR that does not exist cannot contain anything
  }
  return isInside(tmp, resolve(path)) || isInside(realTmp, resolve(path));
}

function enablementView(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  // Paths in the rows are the user's and the project's: one line each, nothing that steers the terminal.
  return ["Record session", "", ...rows.map(([k, v]) => `${k.padEnd(width)}${printable(v)}`)].join("\n");
}

/** The options with the transport settled, each checked against what the provider supports. */
function settledOptions(
  provider: string,
  installer: ProviderInstaller,
  project: string,
  given: InstallOpts,
): InstallOpts & { transport: Transport } {
  // Without --transport a re-install keeps the transport it finds; a first install takes the provider's
  // default, unless there is no bash for the http transport's client.
  const fallbackTransport = clientShellAvailable() ? undefined : "command";
  const previousTransport = readConfig(project)?.providers[provider]?.transport;
  const transport =
    given.transport ?? previousTransport ?? fallbackTransport ?? installer.transports[0] ?? "command";
  if (given.mode !== "capture-only")
    throw new CliError(`unknown mode "${given.mode}" (use capture-only)`, EXIT.usage);
  if (transport !== "command" && transport !== "http") {
    throw new CliError(`unknown transport "${transport}" (use command or http)`, EXIT.usage);
  }
  if (!installer.transports.includes(transport)) {
    throw new CliError(
      `${providerName(provider)} supports --transport ${installer.transports.join(" or ")}`,
      EXIT.usage,
    );
  }
  if (given.retrieval && !injectorFor(provider)) {
    throw new CliError(
      `${providerName(provider)}'s hooks cannot add context to a prompt: no --retrieval`,
      EXIT.usage,
    );
  }
  return { ...given, transport };
}

/** What an install will do, read before anything is written: the view shows it, the steps after do it. */
interface InstallPlan {
  provider: string;
  installer: ProviderInstaller;
  located: LocatedProject;
  project: string;
  opts: InstallOpts & { transport: Transport };
  retrieval: RetrievalConfig | undefined;
  settingsPath: string;
  settings: Record<string, unknown>;
  sessionRootSetting: string | undefined;
  checkedRoot: ReturnType<typeof checkSessionRoot>;
  foreignStatus: boolean;
  extras: InstallExtra[];
}

function planInstall(provider: string, given: InstallOpts): InstallPlan {
  const installer = installerFor(provider, "install");
  const located = locateProject(given.project);
  const project = located.root;
  const opts = settledOptions(provider, installer, project, given);
  // A re-install keeps retrieval as it finds it; --retrieval switches it on.
  const previousRetrieval = readConfig(project)?.providers[provider]?.retrieval;
  const retrieval = opts.retrieval ? { ...previousRetrieval, state: "on" as const } : previousRetrieval;
  const settingsPath = settingsPathFor(installer, project, opts.settings);
  const sessionRootSetting = opts.sessionRoot
    ? isAbsolute(opts.sessionRoot)
      ? opts.sessionRoot
      : // "." when it is the project itself, so that the check below refuses it instead of taking the default
        relative(project, resolve(opts.sessionRoot)) || "."
    : undefined;
  const checkedRoot = checkSessionRoot(project, sessionRootSetting, provider);
  const settings = readSettings(settingsPath);
  const foreignStatus = installer.statusLine?.hasForeign(settings) ?? false;
  const extras = requestedExtras(installer, opts);
  return {
    provider,
    installer,
    located,
    project,
    opts,
    retrieval,
    settingsPath,
    settings,
    sessionRootSetting,
    checkedRoot,
    foreignStatus,
    extras,
  };
}

/** The enablement view's rows: what recording will be like, before the user confirms. */
function viewRows(plan: InstallPlan): Array<[string, string]> {
  const { project, checkedRoot, retrieval, installer, opts } = plan;
  const sessionRoot = checkedRoot.root;
  // A broken config is reported before the view, which would otherwise show defaults it does not hold.
  const limits = effectiveLimits(loadConfig(project));
  const shownRoot = isInside(project, sessionRoot) ? relative(project, sessionRoot) : sessionRoot;
  const rows: Array<[string, string]> = [
    ["Provider", providerName(plan.provider)],
    ["Mode", "Capture only"],
    ["Project", projectRow(plan.located)],
    [
      "Session root",
      checkedRoot.needsIgnore
        ? `${shownRoot} (tapedeck adds a .gitignore of * there${checkedRoot.git === "tracked" ? "; WARNING: git would track it now, and commit every recorded prompt" : ""})`
        : shownRoot,
    ],
    [
      "Retrieval",
      retrieval?.state === "on"
        ? `On (the project's promoted memory for each prompt, up to ${retrieval.budget_bytes ?? 4096} bytes)`
        : "Off",
    ],
    ["Native memory", "Unchanged"],
    ["Redaction", `Default policy (${REDACTION_POLICY})`],
    [
      "Size limits",
      `${formatBytes(limits.max_string_bytes)} per string · ${formatBytes(limits.max_event_bytes)} per event · ${formatBytes(limits.max_session_bytes)} per session`,
    ],
    [
      "Settings",
      `${relative(project, plan.settingsPath) || plan.settingsPath} (${installer.hookEvents} hooks${opts.statusline && installer.statusLine && !plan.foreignStatus ? ", status line" : ""})`,
    ],
    ["Transport", opts.transport],
  ];
  for (const extra of plan.extras)
    rows.push([extra.flag === "mcp" ? "MCP server" : "Notify", extra.describe(project)]);
  return rows;
}

/** Shows the view and asks; a session root under the temp directory (a throwaway project) is not asked about. */
async function showAndConfirm(plan: InstallPlan, rows: Array<[string, string]>): Promise<void> {
  const { opts, checkedRoot } = plan;
  const sessionRoot = checkedRoot.root;
  if (!opts.json) say(`${enablementView(rows)}\n\n`);
  if (checkedRoot.git === "tracked" && opts.json) {
    note(
      `tapedeck: git would track the session root ${sessionRoot}; tapedeck adds a .gitignore of * there\n`,
    );
  }
  if (opts.yes || isTemporary(sessionRoot)) return;
  const ok = await confirm("Start recording sessions of this project?");
  if (!ok) {
    throw new CliError(
      io().stdin.isTTY
        ? "cancelled; nothing was changed"
        : "not installed: pass --yes to confirm without a terminal",
      EXIT.usage,
    );
  }
}

/** The provider's entry of the project's config as this install leaves it (not yet written). */
async function providerConfig(
  plan: InstallPlan,
  previous: ProviderConfig | undefined,
): Promise<ProviderConfig> {
  const transport = await transportConfig(plan.opts.transport, previous);
  // With the MCP control installed recording starts dormant: the user starts it from inside the agent
  // (record_session) or with `tapedeck record start`. A re-install keeps the state it finds.
  const recording = plan.opts.mcp ? (previous?.recording ?? "off") : "on";
  const entry: ProviderConfig = {
    recording,
    ...(recording === "on"
      ? {
          recording_since: previous?.recording === "on" ? previous.recording_since : new Date().toISOString(),
        }
      : {}),
    mode: "capture-only",
    ...(plan.sessionRootSetting ? { session_root: plan.sessionRootSetting } : {}),
    ...transport,
    ...(plan.retrieval ? { retrieval: plan.retrieval } : {}),
  };
  return entry;
}

/** notify records only where it was asked for (a re-install keeps that while it is still installed). */
function keepsFallback(plan: InstallPlan, previous: ProviderConfig | undefined): boolean {
  const fallbackExtra = plan.installer.extras?.find((e) => e.fallback);
  if (!fallbackExtra) return false;
  if (plan.extras.includes(fallbackExtra)) return true;
  return !!previous?.fallback && fallbackExtra.present(plan.project, plan.settings);
}

/** Adds the requested extras in order; one that fails says which were added before it. */
function addExtras(plan: InstallPlan): void {
  for (const [i, extra] of plan.extras.entries()) {
    try {
      extra.add(plan.project, extraCommand(), plan.settings);
    } catch (error) {
      const done = plan.extras.slice(0, i).map((e) => `--${e.flag}`);
      throw new CliError(
        `${(error as Error).message}; ${done.length === 0 ? "nothing was changed" : `only ${done.join(" ")} was installed`}`,
      );
    }
  }
}

/** The hooks (and the status line, unless the user has one of their own) in the agent's settings file. */
function writeHooks(plan: InstallPlan): boolean {
  const { installer, settings, opts, provider } = plan;
  installer.add(settings, {
    command: hookCommand(opts.transport, provider, plan.project),
    timeoutSeconds: 10,
  });
  const statusLineAdded = opts.statusline && !!installer.statusLine && !plan.foreignStatus;
  if (statusLineAdded) installer.statusLine?.add(settings, statusLineCommand(provider));
  writeSettings(plan.settingsPath, settings, opts.settings ? undefined : plan.project);
  return statusLineAdded;
}

/** What the user reads after an install: the hooks added, how to stop and remove, what the extras did. */
function installedText(plan: InstallPlan, hooks: number, recording: string): string {
  const { provider, project, settingsPath } = plan;
  const lines = [
    `Installed ${hooks} hooks in ${relative(project, settingsPath) || settingsPath}. ${
      recording === "on"
        ? "Recording is on."
        : `Recording is dormant until you ask the agent to start it (record_session), or run: tapedeck record start --provider ${provider}`
    }`,
    recording === "on"
      ? `Stop with: tapedeck record stop --provider ${provider}    Remove with: tapedeck uninstall ${provider}`
      : `Remove with: tapedeck uninstall ${provider}`,
    ...plan.extras.map(
      (e) => `Added tapedeck's ${e.flag === "mcp" ? "MCP server" : "notify program"} to ${e.path(project)}.`,
    ),
    ...(plan.installer.afterInstall?.(project) ?? []),
  ];
  if (plan.foreignStatus && plan.opts.statusline) {
    lines.push(
      "Your status line was kept. To show the recording state in it, append the output of:",
      `  ${statusLineCommand(provider)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Plan, show and confirm, then write: the extras, the config, the hooks; nothing is written before the yes. */
async function installCommand(provider: string, given: InstallOpts): Promise<void> {
  const plan = planInstall(provider, given);
  const { project, opts, checkedRoot } = plan;
  const rows = viewRows(plan);
  await showAndConfirm(plan, rows);
  const config: ProjectConfig = readConfig(project) ?? { schema_version: 1, providers: {} };
  const previous = config.providers[provider];
  const entry = await providerConfig(plan, previous);
  config.providers[provider] = entry;
  const recording = entry.recording;
  addExtras(plan);
  if (keepsFallback(plan, previous)) entry.fallback = true;
  if (checkedRoot.needsIgnore) ignoreSessionRoot(checkedRoot.root);
  writeConfig(project, config);
  if (recording === "on" && previous?.recording !== "on") {
    logControlChange(project, { provider, action: "start", via: "cli" });
  }
  const statusLineAdded = writeHooks(plan);
  const result = {
    provider,
    project,
    settings: plan.settingsPath,
    session_root: checkedRoot.root,
    hooks: plan.installer.count(plan.settings),
    status_line: statusLineAdded ? "installed" : plan.foreignStatus ? "kept yours" : "not installed",
    extras: Object.fromEntries(plan.extras.map((e) => [e.flag, e.path(project)])),
    recording,
    retrieval: plan.retrieval?.state ?? "off",
  };
  if (opts.json) printJson({ ...result, view: Object.fromEntries(rows) });
  else say(installedText(plan, result.hooks, recording));
}

export function register(program: Command): void {
  program
    .command("install <provider>")
    .description("enable recording for a provider in this project (writes project-local settings only)")
    .option(
      "--project <dir>",
      "project directory (default: the nearest one with .tapedeck above the current directory, else the git root)",
    )
    .option("--mode <mode>", "recording mode", "capture-only")
    .option("--session-root <dir>", "where sessions are stored (default: .tapedeck/<provider>-sessions)")
    .option(
      "--transport <http|command>",
      "how hooks reach tapedeck: http (a ~3 ms bash client of a per-project server, recording in-process whenever the server is down; the default) or command (a Node process per event)",
    )
    .option(
      "--settings <path>",
      "edit this settings file instead of the project-local one (e.g. .claude/settings.local.json)",
    )
    .option("--no-statusline", "do not add the recording indicator to the status line")
    .option(
      "--notify",
      "also install the notify program (Codex: in the user-level $CODEX_HOME/config.toml), which records turns the hooks miss",
    )
    .option(
      "--mcp",
      "also install the tapedeck MCP server, so the agent can start and stop recording when you ask it",
    )
    .option(
      "--retrieval",
      "also hand the agent the project's promoted memory with each prompt (tapedeck retrieval on|off switches it later)",
    )
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "machine-readable output")
    .action(installCommand);
}
