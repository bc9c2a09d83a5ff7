// `tapedeck doctor`: is this project's recording going to work? Per installed
// provider: the config entry, the recording state, tapedeck's hooks in the
// provider's settings file and whether they run an existing dist/hook.cjs,
// the session root (writable, not a symlink, not a file), for Codex whether
// the hooks are trusted (Codex silently skips untrusted hooks), and for the
// http transport whether the hook server answers or could start. Exit 0 when
// nothing is wrong, 1 when a problem was found (warnings alone do not fail).
import { accessSync, constants, existsSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig, type ProjectConfig, type ProviderConfig } from "../core/config.ts";
import { lstatOrUndefined, readRegularFileSync } from "../core/fsutil.ts";
import { isInside, resolveSessionRoot, TAPEDECK_DIR, tapedeckDir } from "../core/paths.ts";
import { printable } from "../core/printable.ts";
import { readAgentFileText } from "../providers/agent-file.ts";
import { HOOK_MARKER } from "../providers/claude/settings.ts";
import { codexHookTrust, codexTrustFixes, defaultCodexHome } from "../providers/codex/installer.ts";
import type { ProviderInstaller } from "../providers/installer.ts";
import { INSTALLERS } from "../providers/installers.ts";
import { readSettingsFile } from "../providers/settings-file.ts";
import { parseClientCommand } from "../serve/client-command.ts";
import { health } from "../serve/launch.ts";
import { liveServer, runFilePath } from "../serve/runfile.ts";
import { type TranscriptDoctorOpts, transcriptDoctor } from "./commands/restore.ts";
import { CliError, checkProvider, EXIT, printJson, projectFromOption, say } from "./common.ts";
import { gitView } from "./session-root.ts";
import { providerName } from "./summary.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about it, for warn and fail. */
  fix?: string[];
  details?: Record<string, unknown>;
}

export interface ProviderReport {
  provider: string;
  ok: boolean;
  checks: DoctorCheck[];
}

export interface DoctorReport {
  project: string;
  ok: boolean;
  problems: number;
  warnings: number;
  providers: ProviderReport[];
}

interface DoctorOpts {
  project?: string;
  provider?: string;
  settings?: string;
  codexHome?: string;
  json?: boolean;
}

const RECENT_DIAGNOSTICS_MS = 24 * 3600 * 1000;

function check(
  name: string,
  status: CheckStatus,
  message: string,
  fix?: string[],
  details?: Record<string, unknown>,
): DoctorCheck {
  return {
    name,
    status,
    message,
    ...(fix && fix.length > 0 ? { fix } : {}),
    ...(details ? { details } : {}),
  };
}

function shown(project: string, path: string): string {
  return isInside(project, path) ? relative(project, path) || "." : path;
}

// ---------------------------------------------------------------------------
// Hooks in a settings file (the Claude-style shape all installers write)

interface FoundHook {
  event: string;
  type: string;
  command?: string;
  url?: string;
  headers?: Record<string, unknown>;
}

function tapedeckHooks(settings: Record<string, unknown>): FoundHook[] {
  const out: FoundHook[] = [];
  const hooks = settings.hooks;
  if (!hooks || typeof hooks !== "object" || Array.isArray(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const entries = (group as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        if (!entry || typeof entry !== "object") continue;
        const e = entry as { type?: unknown; command?: unknown; url?: unknown; headers?: unknown };
        const headers =
          e.headers && typeof e.headers === "object" ? (e.headers as Record<string, unknown>) : undefined;
        const ours =
          (typeof e.command === "string" && e.command.trimEnd().endsWith(HOOK_MARKER)) ||
          (e.type === "http" && headers?.["X-Tapedeck"] === "1");
        if (!ours) continue;
        out.push({
          event,
          type: typeof e.type === "string" ? e.type : "?",
          ...(typeof e.command === "string" ? { command: e.command } : {}),
          ...(typeof e.url === "string" ? { url: e.url } : {}),
          ...(headers ? { headers } : {}),
        });
      }
    }
  }
  return out;
}

/** Splits a POSIX shell command into words (single, double quotes and backslashes); undefined if unbalanced. */
export function shellWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i += 1;
      for (;;) {
        if (i >= command.length) return undefined;
        const c = command[i]!;
        if (c === '"') break;
        if (c === "\\" && i + 1 < command.length && '"\\$`\n'.includes(command[i + 1]!)) {
          word += command[i + 1];
          i += 2;
          continue;
        }
        word += c;
        i += 1;
      }
      inWord = true;
      i += 1;
    } else if (ch === "\\") {
      if (i + 1 >= command.length) return undefined;
      word += command[i + 1];
      inWord = true;
      i += 2;
    } else if (ch === "#" && !inWord) {
      break;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i += 1;
    } else {
      word += ch;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function checkHookCommands(provider: string, found: FoundHook[]): DoctorCheck | undefined {
  const commands = [...new Set(found.filter((h) => h.command !== undefined).map((h) => h.command!))];
  if (commands.length === 0) return undefined;
  const problems: string[] = [];
  const targets = new Set<string>();
  for (const command of commands) {
    // The http transport's hook client names the Node hook it falls back to: check that one, and the client.
    const client = parseClientCommand(command);
    if (client && !existsSync(client.client))
      problems.push(`${client.client} does not exist (moved or not built?)`);
    const words = client ? [client.node, client.hook, client.provider] : shellWords(command);
    if (!words || words.length < 2) {
      problems.push(`cannot read the hook command: ${command}`);
      continue;
    }
    // `'<node>' '<dist>/hook.cjs' [--statusline] <provider> # tapedeck`
    const [node, script, ...rest] = words;
    if (!isExecutable(node!)) problems.push(`${node} is not an executable Node.js`);
    if (!script!.endsWith("hook.cjs")) problems.push(`unexpected hook script ${script}`);
    else if (!existsSync(script!)) problems.push(`${script} does not exist (moved or not built?)`);
    else targets.add(script!);
    const named = rest.filter((w) => w !== "--statusline");
    if (named[0] !== provider) problems.push(`a hook records as "${named[0] ?? "?"}", not "${provider}"`);
  }
  if (problems.length > 0) {
    return check("hook command", "fail", [...new Set(problems)].join("; "), [
      `Reinstall from the tapedeck you use: tapedeck install ${provider}`,
    ]);
  }
  return check("hook command", "ok", `hooks run ${[...targets].join(", ")}`, undefined, {
    commands,
  });
}

// ---------------------------------------------------------------------------

function checkHooks(
  project: string,
  provider: string,
  installer: ProviderInstaller | undefined,
  settingsOverride: string | undefined,
): { checks: DoctorCheck[]; found: FoundHook[] } {
  if (!installer) {
    return {
      checks: [
        check(
          "hooks",
          "warn",
          `tapedeck cannot check ${providerName(provider)}'s hooks (no installer for it)`,
        ),
      ],
      found: [],
    };
  }
  const path = settingsOverride ? resolve(settingsOverride) : installer.settingsPath(project);
  const name = shown(project, path);
  let text: string;
  try {
    text = readAgentFileText(path);
  } catch {
    return {
      checks: [
        check("hooks", "fail", `${name} is missing: no hook will record anything`, [
          `tapedeck install ${provider}${settingsOverride ? ` --settings ${settingsOverride}` : ""}`,
        ]),
      ],
      found: [],
    };
  }
  let settings: Record<string, unknown>;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    settings = parsed as Record<string, unknown>;
  } catch {
    return {
      checks: [
        check(
          "hooks",
          "fail",
          `${name} is not a JSON object: ${providerName(provider)} cannot read its hooks`,
          [`Fix ${name}, then: tapedeck install ${provider}`],
        ),
      ],
      found: [],
    };
  }
  const found = tapedeckHooks(settings);
  const count = installer.count(settings);
  const checks: DoctorCheck[] = [];
  if (count === 0) {
    checks.push(
      check("hooks", "fail", `no tapedeck hooks in ${name}`, [`tapedeck install ${provider}`], {
        file: path,
      }),
    );
    return { checks, found };
  }
  if (count < installer.hookEvents) {
    const events = [...new Set(found.map((h) => h.event))].sort();
    checks.push(
      check(
        "hooks",
        "fail",
        `${count} of ${installer.hookEvents} tapedeck hooks in ${name}: some events go unrecorded`,
        [`tapedeck install ${provider}`],
        { file: path, events },
      ),
    );
  } else {
    checks.push(
      check("hooks", "ok", `${count} of ${installer.hookEvents} hooks in ${name}`, undefined, { file: path }),
    );
  }
  const commands = checkHookCommands(provider, found);
  if (commands) checks.push(commands);
  const legacy = found.filter((h) => h.type === "http");
  if (legacy.length > 0) {
    // Claude's own http hooks: they print "hook failed" on the agent's screen whenever the server is down, and
    // their token sits in the settings file. The hook client replaced them.
    checks.push(
      check(
        "http hooks",
        "fail",
        `${legacy.length} hooks from an older tapedeck post to the server directly: they show errors when it is down`,
        [`tapedeck install ${provider}`],
      ),
    );
  }
  return { checks, found };
}

function checkSessionRoot(project: string, provider: string, entry: ProviderConfig): DoctorCheck {
  const td = lstatOrUndefined(tapedeckDir(project));
  if (td?.isSymbolicLink()) {
    return check(
      "session root",
      "fail",
      `${TAPEDECK_DIR} is a symlink: tapedeck refuses to write through it`,
      [`Replace ${tapedeckDir(project)} with a real directory`],
    );
  }
  let root: string;
  try {
    root = resolveSessionRoot(project, entry.session_root, provider);
  } catch (error) {
    return check("session root", "fail", (error as Error).message, [
      "Point session_root in .tapedeck/config.json at a real directory, or remove the symlink",
    ]);
  }
  const name = shown(project, root);
  const st = lstatOrUndefined(root);
  if (st?.isSymbolicLink()) {
    return check("session root", "fail", `${name} is a symlink: the recorder refuses to follow it`, [
      `Replace ${root} with a real directory`,
    ]);
  }
  if (st && !st.isDirectory()) {
    return check("session root", "fail", `${name} is not a directory: nothing can be recorded`, [
      `Move ${root} away; tapedeck recreates the directory at the next session`,
    ]);
  }
  // A missing root is created at the first event: then its nearest existing parent must be writable.
  let probe = root;
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  try {
    accessSync(probe, constants.W_OK | constants.X_OK);
  } catch {
    return check("session root", "fail", `${shown(project, probe)} is not writable`, [
      `Make ${probe} writable for ${process.env.USER ?? "this user"}`,
    ]);
  }
  // Sessions hold prompts and tool output: a root git would track is one `git add -A` from a commit.
  if (!isInside(tapedeckDir(project), root) && gitView(root) === "tracked") {
    return check(
      "session root",
      "warn",
      `${name} is not ignored by git: a commit could take every recorded prompt`,
      [`printf '*\\n' > ${join(root, ".gitignore")}   (what install writes there)`],
    );
  }
  return check(
    "session root",
    "ok",
    st ? `${name} (writable)` : `${name} (created at the first session)`,
    undefined,
    {
      path: root,
    },
  );
}

function checkRecording(project: string, provider: string, entry: ProviderConfig): DoctorCheck {
  const on = entry.recording === "on";
  const detail = `${entry.mode ?? "capture-only"}, transport ${entry.transport ?? "command"}`;
  return on
    ? check("recording", "ok", `on (${detail})`)
    : check("recording", "warn", `stopped: hooks run but record nothing (${detail})`, [
        `tapedeck record start --provider ${provider} --project ${project}`,
      ]);
}

function checkCodexTrust(project: string, codexHome: string): DoctorCheck[] {
  const trust = codexHookTrust(project, codexHome);
  const checks: DoctorCheck[] = [];
  const details = {
    codex_home: codexHome,
    state: trust.state,
    installed: trust.installed,
    trusted: trust.trusted,
    modified: trust.modified,
    untrusted: trust.untrusted,
    disabled: trust.disabled,
    not_running: trust.not_running,
    project_trusted: trust.project_trusted,
  };
  if (!trust.project_trusted) {
    checks.push(
      check(
        "project trust",
        "fail",
        `Codex does not list ${project} as trusted in ${trust.config_path}: it ignores the project's .codex/hooks.json`,
        [
          `Run \`codex\` in ${project} once and trust the folder (or set [projects."${project}"] trust_level = "trusted")`,
        ],
        { config: trust.config_path },
      ),
    );
  }
  if (trust.state === "trusted") {
    checks.push(
      check(
        "hook trust",
        "ok",
        `all ${trust.installed} tapedeck hooks trusted in ${trust.config_path}`,
        undefined,
        details,
      ),
    );
  } else if (trust.state === "untrusted") {
    checks.push(
      check(
        "hook trust",
        "fail",
        `installed but NOT trusted: Codex silently skips all ${trust.installed} tapedeck hooks, nothing is recorded (no trust entry in ${trust.config_path})`,
        codexTrustFixes(project),
        details,
      ),
    );
  } else if (trust.state === "partial") {
    const parts = [
      trust.modified > 0 ? `${trust.modified} trusted for a different version of the hook (modified)` : "",
      trust.untrusted > 0 ? `${trust.untrusted} not trusted` : "",
      trust.disabled > 0 ? `${trust.disabled} disabled` : "",
    ].filter(Boolean);
    checks.push(
      check(
        "hook trust",
        "fail",
        `${trust.trusted} of ${trust.installed} tapedeck hooks trusted; ${parts.join(", ")}: Codex skips ${[...new Set(trust.not_running)].join(", ")}`,
        codexTrustFixes(project),
        details,
      ),
    );
  }
  for (const warning of trust.warnings) checks.push(check("codex config", "warn", warning));
  return checks;
}

/** The MCP server entry and the notify program, reported when installed (they are optional). */
function checkExtras(project: string, installer: ProviderInstaller, settingsPath?: string): DoctorCheck[] {
  let settings: Record<string, unknown> = {};
  try {
    settings = readSettingsFile(settingsPath ? resolve(settingsPath) : installer.settingsPath(project));
  } catch {
    // unreadable settings: an extra kept there is simply not present (the hooks check reports the file)
  }
  const out: DoctorCheck[] = [];
  for (const extra of installer.extras ?? []) {
    let present = false;
    try {
      present = extra.present(project, settings);
    } catch {
      present = false;
    }
    if (!present) continue;
    const what = extra.flag === "mcp" ? "MCP server" : "notify";
    const where = shown(project, extra.path(project));
    // The entry runs this Node and a file of this tapedeck: a moved or removed checkout breaks it silently
    // (the agent just has no tool, or no notify).
    const missing = (extra.runs?.(project, settings) ?? []).filter((p) => isAbsolute(p) && !existsSync(p));
    out.push(
      missing.length > 0
        ? check(what, "fail", `the entry in ${where} runs ${missing.join(" and ")}, which does not exist`, [
            `tapedeck install ${installer.provider} --${extra.flag} --project ${project}`,
          ])
        : check(what, "ok", `installed in ${where}`),
    );
  }
  return out;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function checkHookServer(
  project: string,
  provider: string,
  entry: ProviderConfig,
): Promise<DoctorCheck> {
  const port = entry.http_port;
  if (!port) {
    return check("hook server", "fail", "transport http without a port in .tapedeck/config.json", [
      `tapedeck install ${provider} --transport http`,
    ]);
  }
  const info = liveServer(runFilePath(project));
  const running = info ? await health(info, 800) : undefined;
  if (running?.project === project) {
    return check("hook server", "ok", `answers on 127.0.0.1:${info!.port} (pid ${running.pid})`, undefined, {
      port: info!.port,
      pid: running.pid,
    });
  }
  if (!(await portFree(port))) {
    return check(
      "hook server",
      "fail",
      `127.0.0.1:${port} is held by another program, so the hook server cannot start`,
      [
        `Hooks record in their own process meanwhile (slower, nothing goes to that program). Stop it, or reinstall for a new port: tapedeck uninstall ${provider} && tapedeck install ${provider}`,
        `Or use the command transport: tapedeck install ${provider} --transport command`,
      ],
      { port },
    );
  }
  return check(
    "hook server",
    "ok",
    `not running (port ${port} is free; the next hook brings it up)`,
    undefined,
    { port },
  );
}

function checkDiagnostics(project: string): DoctorCheck | undefined {
  let text: string;
  try {
    // Our own file: never through a symlink, and a FIFO planted there is refused instead of hanging doctor.
    text = readRegularFileSync(join(tapedeckDir(project), "diagnostics.jsonl")).toString("utf8");
  } catch {
    return undefined;
  }
  const since = Date.now() - RECENT_DIAGNOSTICS_MS;
  const recent: Array<{ at?: string; what?: string; stage?: string; code?: string }> = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const d = JSON.parse(line) as { at?: string; what?: string; stage?: string; code?: string };
      if (d.what === "error" && d.at && Date.parse(d.at) >= since) recent.push(d);
    } catch {
      // a torn line
    }
  }
  if (recent.length === 0) return undefined;
  const last = recent.at(-1)!;
  return check(
    "recorder errors",
    "warn",
    `${recent.length} in the last 24 h (last: ${last.stage ?? "?"}/${last.code ?? "?"} at ${last.at})`,
    [`See ${join(tapedeckDir(project), "diagnostics.jsonl")} (no payload content is logged there)`],
  );
}

async function providerReport(
  project: string,
  provider: string,
  config: ProjectConfig | undefined,
  opts: DoctorOpts,
): Promise<ProviderReport> {
  const entry = config?.providers[provider];
  const checks: DoctorCheck[] = [];
  if (!entry) {
    checks.push(
      check("config", "fail", `${providerName(provider)} is not installed in ${project}`, [
        `tapedeck install ${provider} --project ${project}`,
      ]),
    );
    return { provider, ok: false, checks };
  }
  checks.push(check("config", "ok", `.tapedeck/config.json has ${provider}`));
  checks.push(checkRecording(project, provider, entry));
  const installer = Object.hasOwn(INSTALLERS, provider) ? INSTALLERS[provider] : undefined;
  const hooks = checkHooks(project, provider, installer, opts.settings);
  checks.push(...hooks.checks);
  checks.push(checkSessionRoot(project, provider, entry));
  if (provider === "codex" && hooks.found.length > 0) {
    checks.push(...checkCodexTrust(project, opts.codexHome ?? defaultCodexHome()));
  }
  if (entry.transport === "http") checks.push(await checkHookServer(project, provider, entry));
  if (installer) checks.push(...checkExtras(project, installer, opts.settings));
  return { provider, ok: !checks.some((c) => c.status === "fail"), checks };
}

export async function runDoctor(opts: DoctorOpts): Promise<DoctorReport> {
  const project = projectFromOption(opts.project);
  const config = loadConfig(project);
  const asked = checkProvider(opts.provider);
  const providers = asked ? [asked] : Object.keys(config?.providers ?? {});
  const reports: ProviderReport[] = [];
  for (const provider of providers) reports.push(await providerReport(project, provider, config, opts));
  if (providers.length === 0) {
    reports.push({
      provider: "none",
      ok: false,
      checks: [
        check("config", "fail", `tapedeck is not installed in ${project}`, [
          "tapedeck install claude   (or codex, gemini)",
        ]),
      ],
    });
  }
  const diagnostics = checkDiagnostics(project);
  if (diagnostics && reports[0]) reports[0].checks.push(diagnostics);
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

const MARK: Record<CheckStatus, string> = { ok: "✓", warn: "!", fail: "✗" };

export function renderDoctor(report: DoctorReport): string {
  const lines = [`tapedeck doctor · ${printable(report.project)}`];
  const width = Math.max(12, ...report.providers.flatMap((p) => p.checks.map((c) => c.name.length))) + 2;
  for (const p of report.providers) {
    lines.push("", p.provider === "none" ? "Project" : providerName(p.provider));
    for (const c of p.checks) {
      // Messages name paths and ids from the project: one line each, nothing that steers the terminal.
      lines.push(`  ${MARK[c.status]} ${c.name.padEnd(width)}${printable(c.message)}`);
      for (const fix of c.fix ?? []) lines.push(`    ${" ".repeat(width)}→ ${printable(fix.trim())}`);
    }
  }
  lines.push(
    "",
    report.ok
      ? `No problems found${report.warnings > 0 ? ` (${report.warnings} warning${report.warnings === 1 ? "" : "s"})` : ""}.`
      : `${report.problems} problem${report.problems === 1 ? "" : "s"} found.`,
  );
  return lines.join("\n");
}

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description(
      "check that recording works here: config, hooks, session root, hook trust (Codex), hook server",
    )
    .option("--project <dir>", "project directory (default: the enabled project at or above the cwd)")
    .option("--provider <name>", "check only this provider (default: every installed one)")
    .option(
      "--settings <path>",
      "the settings file install was given (default: the provider's project-local one)",
    )
    .option("--codex-home <dir>", "Codex's home, for hook trust (default: $CODEX_HOME or ~/.codex)")
    .option("--json", "machine-readable output")
    .option(
      "--transcripts",
      "check Claude Code's transcripts of recorded sessions instead (lost, stubbed, shrunk)",
    )
    .option("--all-projects", "with --transcripts: every project this user recorded Claude sessions in")
    .option("--claude-home <dir>", "with --transcripts: Claude's config directory (default: ~/.claude)")
    .option("--mirror-dir <dir>", "with --transcripts: the proxy mirror root (default: the configured one)")
    .action(async (opts: DoctorOpts & TranscriptDoctorOpts & { transcripts?: boolean }) => {
      if (opts.transcripts) return transcriptDoctor(opts);
      const report = await runDoctor(opts);
      if (opts.json) printJson(report);
      else say(`${renderDoctor(report)}\n`);
      if (!report.ok) {
        throw new CliError(
          `${report.problems} problem${report.problems === 1 ? "" : "s"} found`,
          EXIT.failed,
        );
      }
    });
}
