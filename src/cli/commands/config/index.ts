// `tapedeck config get|set|list [KEY] [VALUE]`: the settings of ../config/settings.ts, each with its effective
// value and where that came from (default, project, user, environment). `set` validates against the setting's
// schema and refuses anything else with the allowed range (exit 2), leaving the file byte for byte as it was.
import { homedir } from "node:os";
import type { Command } from "commander";
import { loadConfig, type ProjectConfig, writeConfig } from "../../../core/archive/config.ts";
import { readJsonOrUndefined } from "../../../core/base/fsutil.ts";
import { printable } from "../../../core/base/printable.ts";
import { defaultProxyConfigPath, loadMirrorSettings } from "../../../providers/claude/mirror/settings.ts";
import {
  CliError,
  checkProvider,
  EXIT,
  printJson,
  projectFromOption,
  providersIn,
  say,
} from "../../common.ts";
import { PROJECT_HELP } from "../../options.ts";
import { parseValue, SETTINGS, type Setting, type Source, settingFor } from "./settings.ts";

interface ConfigOpts {
  project?: string;
  provider?: string;
  json?: boolean;
}

interface Effective {
  key: string;
  provider?: string;
  value: unknown;
  source: Source;
  allowed: string;
  description: string;
  /** Where a project or provider value is written. */
  path?: string;
  env?: string;
}

function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== "object" || Array.isArray(next)) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts.at(-1)!] = value;
}

function fromEnv(s: Setting): { value: string; env: string } | undefined {
  for (const name of s.env ?? []) {
    const v = process.env[name];
    if (v !== undefined && v.trim() !== "") return { value: v, env: name };
  }
  return undefined;
}

function mirrorValue(s: Setting): Effective {
  const base = { key: s.key, allowed: s.allowed, description: s.help };
  const env = fromEnv(s);
  const settings = loadMirrorSettings().settings as unknown as Record<string, unknown>;
  const value = settings[s.userKey!];
  if (env) return { ...base, value, source: "environment", env: env.env };
  const file = defaultProxyConfigPath(process.env, homedir());
  const user = getPath(readJsonOrUndefined(file, 1024 * 1024), `mirror.${s.userKey}`);
  return { ...base, value, source: user === undefined ? "default" : "user", path: file };
}

function effective(s: Setting, config: ProjectConfig | undefined, provider?: string): Effective {
  const base = { key: s.key, allowed: s.allowed, description: s.help };
  if (s.scope === "user") return mirrorValue(s);
  if (s.scope === "fixed") return { ...base, value: s.default, source: "fixed" };
  const path = s.scope === "provider" ? `providers.${provider}.${s.key}` : s.key;
  const inFile = getPath(config, path);
  const env = fromEnv(s);
  const withProvider = provider ? { ...base, provider } : base;
  if (inFile !== undefined) return { ...withProvider, value: inFile, source: "project", path };
  if (env) return { ...withProvider, value: env.value, source: "environment", env: env.env };
  return { ...withProvider, value: s.default ?? null, source: "default", path };
}

/** KEY as given: `limits.max_depth`, `transport` with --provider, or `providers.claude.transport`. */
function resolveKey(key: string, opts: ConfigOpts): { setting: Setting; provider?: string } {
  const m = /^providers\.([^.]+)\.(.+)$/.exec(key);
  const provider = checkProvider(m ? m[1] : opts.provider);
  const setting = settingFor(m ? m[2]! : key);
  if (!setting) {
    throw new CliError(`unknown setting "${key}" (tapedeck config list shows them all)`, EXIT.usage);
  }
  if (setting.scope === "provider" && !provider) {
    throw new CliError(
      `${setting.key} is a provider's setting: pass --provider (claude, codex, ...)`,
      EXIT.usage,
    );
  }
  return { setting, provider: setting.scope === "provider" ? provider : undefined };
}

/** A value as the config file or the environment holds it, on one line whatever it holds. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return "(unset)";
  return printable(typeof value === "string" ? value : JSON.stringify(value));
}

function listCommand(opts: ConfigOpts): void {
  const project = projectFromOption(opts.project);
  const config = loadConfig(project);
  const providers = providersIn(config, opts.provider);
  const rows: Effective[] = [];
  for (const s of SETTINGS) {
    if (s.scope === "provider") for (const p of providers) rows.push(effective(s, config, p));
    else rows.push(effective(s, config));
  }
  if (opts.json) {
    printJson(rows);
    return;
  }
  const width = Math.max(
    ...rows.map((r) => (r.provider ? `providers.${r.provider}.${r.key}` : r.key).length),
  );
  for (const r of rows) {
    const key = r.provider ? `providers.${r.provider}.${r.key}` : r.key;
    say(`${printable(key).padEnd(width)}  ${shown(r.value)}  (${r.source}${r.env ? `: ${r.env}` : ""})\n`);
  }
}

function getCommand(key: string, opts: ConfigOpts): void {
  const project = projectFromOption(opts.project);
  const { setting, provider } = resolveKey(key, opts);
  const e = effective(setting, loadConfig(project), provider);
  if (opts.json) printJson(e);
  else say(`${shown(e.value)}\n`);
}

function setCommand(key: string, text: string, opts: ConfigOpts): void {
  const project = projectFromOption(opts.project);
  const { setting, provider } = resolveKey(key, opts);
  if (setting.scope === "user" || setting.scope === "fixed") {
    const where =
      setting.scope === "user" ? "the user's proxy config or TAPEDECK_MIRROR_* variables" : "nowhere";
    throw new CliError(`${setting.key} is not a project setting: it is set in ${where}`, EXIT.usage);
  }
  const value = parseValue(text);
  const parsed = setting.schema.safeParse(value);
  if (!parsed.success) {
    throw new CliError(`${key}: "${text}" is not allowed: use ${setting.allowed}`, EXIT.usage);
  }
  // A broken config throws its ConfigError here, before anything is written (writeConfig refuses it too).
  const config: ProjectConfig = loadConfig(project) ?? { schema_version: 1, providers: {} };
  if (provider && !config.providers[provider]) {
    throw new CliError(
      `${provider} is not installed in this project: tapedeck install ${provider} first`,
      EXIT.usage,
    );
  }
  const path = provider ? `providers.${provider}.${setting.key}` : setting.key;
  setPath(config as unknown as Record<string, unknown>, path, parsed.data);
  writeConfig(project, config);
  if (opts.json) printJson(effective(setting, config, provider));
  else say(`${printable(path)} = ${shown(parsed.data)} (project: .tapedeck/config.json)\n`);
}

export function register(program: Command): void {
  const config = program
    .command("config")
    .description(
      "read and change settings (limits, transport, retention, retrieval budget, OTLP): value and source",
    );
  const common = (c: Command) =>
    c
      .option("--project <dir>", PROJECT_HELP)
      .option("--provider <name>", "a provider's setting (transport, retrieval.budget_bytes)")
      .option("--json", "machine-readable output");
  common(config.command("list").description("every setting: effective value and where it came from")).action(
    listCommand,
  );
  common(config.command("get <key>").description("a setting's effective value")).action(getCommand);
  common(
    config
      .command("set <key> <value>")
      .description("set a project setting (validated; refused with the allowed range)"),
  ).action(setCommand);
}
