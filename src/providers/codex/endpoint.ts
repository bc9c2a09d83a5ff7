// Where a `codex` run sends its model calls, and the config override that
// sends them elsewhere (through tapedeck's proxy). Codex picks the provider
// from `-c model_provider=…`, a profile, the project's `.codex/config.toml`
// or `$CODEX_HOME/config.toml`, in that order of precedence; the built-in
// `openai` provider takes its URL from `openai_base_url` or OPENAI_BASE_URL,
// a custom one from `[model_providers.<id>] base_url`.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readAgentFileText } from "../agent-file.ts";
import { codexConfigFile, codexProjectConfigFile, defaultCodexHome } from "./home.ts";
import { parseTomlTables, type TomlTables, type TomlValue, tableKey } from "./toml.ts";

export const OPENAI_API_BASE = "https://api.openai.com/v1";
const BUILT_IN_OPENAI = "openai";

export interface CodexEndpoint {
  /** The model provider id the run uses. */
  provider: string;
  /** Its base URL (the Responses API is `<baseUrl>/responses`), or undefined when no config names one. */
  baseUrl: string | undefined;
  /** Where the provider and URL were found, for messages. */
  from: string;
  /** The command line already sets the key tapedeck would override (the proxy would be bypassed). */
  userOverride?: string;
  /** Codex signs in with ChatGPT: its calls go to ChatGPT's backend, which the proxy does not cover. */
  chatgpt?: boolean;
}

/** `-c key=value` / `--config key=value` / `--config=key=value` overrides on a codex command line. */
function cliOverrides(args: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    let kv: string | undefined;
    if (a === "-c" || a === "--config") kv = args[++i];
    else if (a.startsWith("--config=")) kv = a.slice("--config=".length);
    else if (a.startsWith("-c") && a.length > 2 && a[2] !== "-") kv = a.slice(2);
    if (kv === undefined) continue;
    const eq = kv.indexOf("=");
    if (eq > 0) out.set(kv.slice(0, eq).trim(), tomlValueText(kv.slice(eq + 1).trim()));
  }
  return out;
}

/** A `-c` value is TOML when it parses as TOML, else the literal text (Codex's own rule). */
function tomlValueText(raw: string): string {
  const v = parseTomlTables(`v = ${raw}\n`).get(tableKey([]))?.get("v");
  return typeof v === "string" ? v : raw;
}

/** The value of a flag given as `-x v`, `--long v` or `--long=v`, before any `--`. */
function flagValue(args: readonly string[], short: string, long: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (a === short || a === long) return args[i + 1];
    if (a.startsWith(`${long}=`)) return a.slice(long.length + 1);
  }
  return undefined;
}

function profileOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (a === "-p" || a === "--profile") return args[i + 1];
    if (a.startsWith("--profile=")) return a.slice("--profile=".length);
  }
  return undefined;
}

function readToml(path: string): TomlTables | undefined {
  try {
    return parseTomlTables(readAgentFileText(path));
  } catch {
    return undefined;
  }
}

/**
 * The nearest `.codex/config.toml` at or above `cwd` that is not CODEX_HOME's own, looking no higher than the
 * project root (the directory with `.git`), as Codex does.
 */
function projectConfig(cwd: string, codexHome: string): string | undefined {
  for (let d = resolve(cwd); ; d = dirname(d)) {
    const p = codexProjectConfigFile(d);
    if (existsSync(p) && resolve(d, ".codex") !== resolve(codexHome)) return p;
    if (existsSync(join(d, ".git")) || dirname(d) === d) return undefined;
  }
}

function str(v: TomlValue | undefined): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

export function codexEndpoint(
  args: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): CodexEndpoint {
  const env = opts.env ?? process.env;
  const codexHome = defaultCodexHome(env);
  const userPath = codexConfigFile(codexHome);
  const cwd = resolve(opts.cwd ?? process.cwd(), flagValue(args, "-C", "--cd") ?? ".");
  const projectPath = projectConfig(cwd, codexHome);
  // Later layers win.
  const layers: { name: string; tables: TomlTables }[] = [];
  const user = readToml(userPath);
  if (user) layers.push({ name: userPath, tables: user });
  const project = projectPath ? readToml(projectPath) : undefined;
  if (project && projectPath) layers.push({ name: projectPath, tables: project });
  const cli = cliOverrides(args);
  const profile = cli.get("profile") ?? profileOf(args);

  const lookup = (table: string[], key: string): { value: string; from: string } | undefined => {
    const dotted = [...table, key].join(".");
    const fromCli = cli.get(dotted);
    if (fromCli !== undefined && fromCli !== "") return { value: fromCli, from: "the command line" };
    for (const layer of [...layers].reverse()) {
      const v = str(layer.tables.get(tableKey(table))?.get(key));
      if (v !== undefined) return { value: v, from: layer.name };
    }
    return undefined;
  };

  const activeProfile = profile ?? lookup([], "profile")?.value;
  const chosen =
    (activeProfile ? lookup(["profiles", activeProfile], "model_provider") : undefined) ??
    lookup([], "model_provider");
  const provider = chosen?.value ?? BUILT_IN_OPENAI;
  const overrideKey = baseUrlKey(provider);
  const userOverride = cli.has(overrideKey) ? overrideKey : undefined;
  if (provider === BUILT_IN_OPENAI) {
    const configured = lookup([], "openai_base_url");
    if (configured) return { provider, baseUrl: configured.value, from: configured.from, userOverride };
    if (env.OPENAI_BASE_URL) {
      return { provider, baseUrl: env.OPENAI_BASE_URL, from: "OPENAI_BASE_URL", userOverride };
    }
    return {
      provider,
      baseUrl: OPENAI_API_BASE,
      from: "the default",
      userOverride,
      ...(chatGptLogin(codexHome, env) ? { chatgpt: true } : {}),
    };
  }
  const base = lookup(["model_providers", provider], "base_url");
  return { provider, baseUrl: base?.value, from: base?.from ?? chosen?.from ?? "the config", userOverride };
}

/**
 * Whether codex signs in with a ChatGPT account rather than an API key: it then calls ChatGPT's own backend,
 * not the OpenAI API, and a proxy in front of api.openai.com would only break it. Read from
 * `$CODEX_HOME/auth.json` (`auth_mode`, or tokens without an API key), which decides even when OPENAI_API_KEY is
 * set. A sign-in kept only in the system keyring is not seen.
 */
export function chatGptLogin(codexHome: string, _env: NodeJS.ProcessEnv = process.env): boolean {
  let auth: unknown;
  try {
    auth = JSON.parse(readAgentFileText(join(codexHome, "auth.json")));
  } catch {
    return false;
  }
  if (!auth || typeof auth !== "object") return false;
  const a = auth as { auth_mode?: unknown; OPENAI_API_KEY?: unknown; tokens?: unknown };
  if (typeof a.auth_mode === "string") return a.auth_mode.toLowerCase().includes("chatgpt");
  return !a.OPENAI_API_KEY && !!a.tokens && typeof a.tokens === "object";
}

/** A TOML key segment: bare when it can be, else quoted. */
function keySegment(s: string): string {
  return /^[A-Za-z0-9_-]+$/.test(s) ? s : JSON.stringify(s);
}

function baseUrlKey(provider: string): string {
  return provider === BUILT_IN_OPENAI
    ? "openai_base_url"
    : `model_providers.${keySegment(provider)}.base_url`;
}

/** The `-c` arguments that point the run's provider at `baseUrl`. */
export function codexBaseUrlOverride(provider: string, baseUrl: string): string[] {
  return ["-c", `${baseUrlKey(provider)}=${JSON.stringify(baseUrl)}`];
}
