// Settings of the transcript mirror. Layers, lowest to highest: defaults, the
// proxy's JSON config file (`mirror` section), TAPEDECK_MIRROR_* environment
// variables, and an explicit overrides object (CLI flags). A bad value never
// stops the proxy: it falls back to the layer below and yields a warning,
// because a typo in a backup setting must not take the agent's traffic down.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { readAgentFileText } from "../../agent-file.ts";

export interface MirrorSettings {
  /** Off by default: persisting plaintext conversations is a privacy decision the user makes. */
  enabled: boolean;
  /** Absolute mirror root. */
  dir: string;
  /** Active file size at which the next message opens a new file. */
  maxBytes: number;
  /** Mirror files whose mtime is older than this are unlinked by the sweep. */
  retentionDays: number;
  /** Bound on the in-memory dedup map (LRU). */
  maxSessions: number;
  includeThinking: boolean;
  /** Run content through tapedeck's redaction; off gives a byte-faithful private backup. */
  redact: boolean;
  /** Write the partial assistant message of an interrupted stream. */
  flushInterrupted: boolean;
}

export type MirrorOverrides = { [K in keyof MirrorSettings]?: unknown };

export interface LoadMirrorSettingsOptions {
  env?: Record<string, string | undefined>;
  overrides?: MirrorOverrides;
  /** Config file path; default `TAPEDECK_PROXY_CONFIG` or `~/.config/tapedeck/proxy.json`. */
  configPath?: string;
  home?: string;
  /** Receives each warning; default: none (the caller decides where they go). */
  warn?: (message: string) => void;
}

export interface LoadedMirrorSettings {
  settings: MirrorSettings;
  warnings: string[];
  /** The config file that was read, if one existed. */
  configPath?: string;
}

export function defaultMirrorSettings(home = homedir()): MirrorSettings {
  return {
    enabled: false,
    dir: join(home, ".claude", "session-mirrors"),
    maxBytes: 100 * 1024 * 1024,
    retentionDays: 30,
    maxSessions: 1024,
    includeThinking: true,
    redact: true,
    flushInterrupted: true,
  };
}

const ENV_NAMES: Record<keyof MirrorSettings, string> = {
  enabled: "TAPEDECK_MIRROR",
  dir: "TAPEDECK_MIRROR_DIR",
  maxBytes: "TAPEDECK_MIRROR_MAX_BYTES",
  retentionDays: "TAPEDECK_MIRROR_RETENTION_DAYS",
  maxSessions: "TAPEDECK_MIRROR_MAX_SESSIONS",
  includeThinking: "TAPEDECK_MIRROR_INCLUDE_THINKING",
  redact: "TAPEDECK_MIRROR_REDACT",
  flushInterrupted: "TAPEDECK_MIRROR_FLUSH_INTERRUPTED",
};

type Parsed<T> = { ok: true; value: T } | { ok: false; why: string };

const TRUE_WORDS = new Set(["1", "true", "on", "yes"]);
const FALSE_WORDS = new Set(["0", "false", "off", "no"]);

function parseBool(v: unknown): Parsed<boolean> {
  if (typeof v === "boolean") return { ok: true, value: v };
  if (typeof v === "string") {
    const w = v.trim().toLowerCase();
    if (TRUE_WORDS.has(w)) return { ok: true, value: true };
    if (FALSE_WORDS.has(w)) return { ok: true, value: false };
  }
  return { ok: false, why: "expected on/off (true/false, 1/0, yes/no)" };
}

// A Map: the unit is the user's text, and a plain object had an answer for `100constructor`.
const SIZE_UNITS = new Map([
  ["", 1],
  ["b", 1],
  ["k", 1024],
  ["kb", 1024],
  ["m", 1024 ** 2],
  ["mb", 1024 ** 2],
  ["g", 1024 ** 3],
  ["gb", 1024 ** 3],
]);

/** Bytes as a number or a string like `100MB` (binary units: people write MB and mean the file size ls shows). */
function parseBytes(v: unknown): Parsed<number> {
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (typeof v === "string") {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(v);
    const unit = m ? SIZE_UNITS.get((m[2] ?? "").toLowerCase()) : undefined;
    if (m && unit !== undefined) n = Number(m[1]) * unit;
  }
  if (n === undefined || !Number.isFinite(n) || n < 1 || n > Number.MAX_SAFE_INTEGER) {
    return { ok: false, why: "expected a positive byte count such as 104857600 or 100MB" };
  }
  return { ok: true, value: Math.floor(n) };
}

function parsePositive(v: unknown, integer: boolean): Parsed<number> {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    return { ok: false, why: integer ? "expected a positive integer" : "expected a positive number" };
  }
  return { ok: true, value: n };
}

function parseDir(v: unknown, home: string): Parsed<string> {
  if (typeof v !== "string" || v.trim() === "") return { ok: false, why: "expected a directory path" };
  if (v.includes("\0")) return { ok: false, why: "path contains a NUL byte" };
  let p = v.trim();
  if (p === "~") p = home;
  else if (p.startsWith("~/")) p = join(home, p.slice(2));
  // A relative root would move with the proxy's cwd; pin it once, at load.
  return { ok: true, value: resolve(p) };
}

function parseField<K extends keyof MirrorSettings>(
  key: K,
  v: unknown,
  home: string,
): Parsed<MirrorSettings[K]> {
  switch (key) {
    case "enabled":
    case "includeThinking":
    case "redact":
    case "flushInterrupted":
      return parseBool(v) as Parsed<MirrorSettings[K]>;
    case "dir":
      return parseDir(v, home) as Parsed<MirrorSettings[K]>;
    case "maxBytes":
      return parseBytes(v) as Parsed<MirrorSettings[K]>;
    case "retentionDays":
      return parsePositive(v, false) as Parsed<MirrorSettings[K]>;
    case "maxSessions":
      return parsePositive(v, true) as Parsed<MirrorSettings[K]>;
    default:
      return { ok: false, why: "unknown setting" };
  }
}

const KEYS = Object.keys(ENV_NAMES) as (keyof MirrorSettings)[];

/** Shortened so that a warning never echoes a long (possibly pasted-secret) value back into a log. */
function show(v: unknown): string {
  const s = typeof v === "string" ? JSON.stringify(v) : String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

function applyLayer(
  settings: MirrorSettings,
  layer: Record<string, unknown>,
  label: (key: keyof MirrorSettings) => string,
  home: string,
  warnings: string[],
): void {
  for (const key of KEYS) {
    const raw = layer[key];
    if (raw === undefined) continue;
    const parsed = parseField(key, raw, home);
    if (parsed.ok) (settings as unknown as Record<string, unknown>)[key] = parsed.value;
    else warnings.push(`${label(key)}=${show(raw)} ignored: ${parsed.why}`);
  }
}

function readConfigLayer(
  path: string,
  warnings: string[],
): { layer: Record<string, unknown>; found: boolean } {
  let text: string;
  try {
    text = readAgentFileText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") warnings.push(`${path}: unreadable (${code ?? "error"})`);
    return { layer: {}, found: false };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    warnings.push(`${path}: not valid JSON, ignored`);
    return { layer: {}, found: true };
  }
  const mirror = (json as { mirror?: unknown } | null)?.mirror;
  if (mirror === undefined) return { layer: {}, found: true };
  if (typeof mirror !== "object" || mirror === null || Array.isArray(mirror)) {
    warnings.push(`${path}: "mirror" must be an object, ignored`);
    return { layer: {}, found: true };
  }
  for (const k of Object.keys(mirror)) {
    if (!Object.hasOwn(ENV_NAMES, k)) warnings.push(`${path}: unknown mirror setting "${k}" ignored`);
  }
  return { layer: mirror as Record<string, unknown>, found: true };
}

export function defaultProxyConfigPath(env: Record<string, string | undefined>, home: string): string {
  const explicit = env.TAPEDECK_PROXY_CONFIG;
  if (explicit && explicit.trim() !== "") return explicit;
  return join(home, ".config", "tapedeck", "proxy.json");
}

export function loadMirrorSettings(opts: LoadMirrorSettingsOptions = {}): LoadedMirrorSettings {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homedir();
  const warnings: string[] = [];
  const settings = defaultMirrorSettings(home);

  const configPath = opts.configPath ?? defaultProxyConfigPath(env, home);
  const config = readConfigLayer(configPath, warnings);
  applyLayer(settings, config.layer, (k) => `${configPath}: mirror.${k}`, home, warnings);

  const envLayer: Record<string, unknown> = {};
  for (const key of KEYS) {
    const v = env[ENV_NAMES[key]];
    if (v !== undefined && v !== "") envLayer[key] = v;
  }
  applyLayer(settings, envLayer, (k) => ENV_NAMES[k], home, warnings);

  if (opts.overrides) applyLayer(settings, opts.overrides, (k) => `override ${k}`, home, warnings);

  for (const w of warnings) opts.warn?.(w);
  return config.found ? { settings, warnings, configPath } : { settings, warnings };
}
