// Per-project recording configuration, `.tapedeck/config.json`. It lives in
// the git-ignored directory on purpose: enabling recording is a personal
// choice, never something a clone inherits.
//
// A config that exists but cannot be used (not JSON, not a config, not a
// regular file) is never read as "not installed": that made `status` say off,
// `doctor` say install, and `install` overwrite it, losing the other
// providers' settings. It is a ConfigError naming the file, line and column
// (never its content), and writeConfig refuses to replace it.
import { dirname, join, resolve } from "node:path";
import { isErrno, readRegularFileSync, UnsafePathError, writeJsonAtomicSync } from "../base/fsutil.ts";
import { jsonErrorOffset, positionOf } from "../base/json-position.ts";
import { UserError } from "../base/user-error.ts";
import { DEFAULT_LIMITS, type Limits } from "./bound.ts";
import { ensureTapedeckDir, TAPEDECK_DIR } from "./paths.ts";

export interface ProviderConfig {
  recording: "on" | "off";
  mode: "capture-only" | "ab";
  /** Relative to the project root unless absolute. */
  session_root?: string;
  transport?: "command" | "http";
  /** http transport: the project's hook server port and the token its hooks send */
  http_port?: number;
  http_token?: string;
  /** A fallback capture path is installed (Codex's notify): the hooks mark the turns they record. */
  fallback?: boolean;
  /**
   * When recording last went from off to on. A session whose reading position (of its transcript) dates from
   * an earlier period starts reading afresh, so the turns made while recording was off are never recorded.
   */
  recording_since?: string;
  /** Memory handed to the agent as added context on each prompt; off unless set. Independent of `recording`. */
  retrieval?: RetrievalConfig;
}

export interface RetrievalConfig {
  state: "on" | "off";
  /** Bytes of added context per prompt, marker included (default 4096, at most 8192). */
  budget_bytes?: number;
  /** The relevance score (0 to 1) an item needs to be given (default in memory/store/inject.ts). */
  threshold?: number;
}

/** Switches recording on or off; answers whether that changed anything. */
export function setRecording(entry: ProviderConfig, on: boolean): boolean {
  const want = on ? "on" : "off";
  if (entry.recording === want) return false;
  entry.recording = want;
  if (on) entry.recording_since = new Date().toISOString();
  return true;
}

/** OpenTelemetry export of finished turns (src/otel/, docs/team.md); off unless an endpoint is set. */
export interface OtelConfig {
  /** the full OTLP/HTTP traces URL */
  endpoint?: string;
  protocol?: "http/protobuf" | "http/json";
  /** sent with every request (credentials: never printed) */
  headers?: Record<string, string>;
  compression?: "gzip" | "none";
  /** prompts, answers and tool input/output, from the redacted archive (default false) */
  content?: boolean;
  /** export after a session ends or goes idle, from the hook server (default true when an endpoint is set) */
  auto?: boolean;
  /** an active session with no event for this long counts as over (default 30) */
  idle_minutes?: number;
}

export interface ProjectConfig {
  schema_version: 1;
  providers: Record<string, ProviderConfig>;
  limits?: Partial<Limits>;
  lock_timeout_ms?: number;
  /** Prices for the cost estimates of show and list, over the built-in table (USD per million tokens). */
  pricing?: {
    as_of?: string;
    models?: Record<string, { input: number; output: number; cache_read?: number; cache_write?: number }>;
  };
  otel?: OtelConfig;
  /** `tapedeck prune`'s rule, applied daily by the hook server when set (src/core/read/retention.ts). */
  retention?: RetentionConfig;
}

/** What the configured retention removes; with neither older_than nor keep_last it removes nothing. */
export interface RetentionConfig {
  /** e.g. "30d": sessions whose last event is older go */
  older_than?: string;
  /** the newest N sessions always stay */
  keep_last?: number;
  status?: "incomplete" | "complete";
  /** `tapedeck doctor` warns when the project's tapedeck data passes this many bytes (default 2 GiB) */
  warn_bytes?: number;
}

export const CONFIG_FILE = "config.json";

export function configPath(projectRoot: string): string {
  return join(projectRoot, TAPEDECK_DIR, CONFIG_FILE);
}

/** A config file is a few KB; anything near this is not one (config.json linked to /dev/zero read to 2 GB). */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** A config.json that exists but cannot be used. The message names the file and place, never the content. */
export class ConfigError extends UserError {
  override name = "ConfigError";
  readonly code = "ECONFIG";
  constructor(
    readonly path: string,
    readonly problem: string,
    readonly position?: { line: number; column: number },
  ) {
    super(
      `${path}${position ? `:${position.line}:${position.column}` : ""}: ${problem}. tapedeck does not record and will not overwrite it: fix the file, or move it away and run tapedeck install again`,
    );
  }
}

export type ConfigRead =
  | { state: "missing" }
  | { state: "ok"; config: ProjectConfig }
  | { state: "invalid"; error: ConfigError };

function isProjectConfig(value: unknown): value is ProjectConfig {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Partial<ProjectConfig>;
  return (
    v.schema_version === 1 &&
    typeof v.providers === "object" &&
    v.providers !== null &&
    !Array.isArray(v.providers)
  );
}

/** Reads the project's config and says which of missing, usable or broken it is. */
export function readConfigFile(projectRoot: string): ConfigRead {
  const path = configPath(projectRoot);
  let text: string;
  try {
    text = readRegularFileSync(path, MAX_CONFIG_BYTES).toString("utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return { state: "missing" };
    if (error instanceof UnsafePathError)
      return { state: "invalid", error: new ConfigError(path, error.reason) };
    return {
      state: "invalid",
      error: new ConfigError(
        path,
        `cannot be read (${String((error as NodeJS.ErrnoException).code ?? "error")})`,
      ),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const offset = jsonErrorOffset(text);
    const position = positionOf(text, offset < 0 ? text.length : offset);
    return { state: "invalid", error: new ConfigError(path, "is not valid JSON", position) };
  }
  if (!isProjectConfig(value)) {
    return {
      state: "invalid",
      error: new ConfigError(
        path,
        'is not a tapedeck config (needs "schema_version": 1 and a "providers" object)',
      ),
    };
  }
  return { state: "ok", config: value };
}

/** The config, or undefined when there is none or it is broken (the hook path: never throws). */
export function readConfig(projectRoot: string): ProjectConfig | undefined {
  const read = readConfigFile(projectRoot);
  return read.state === "ok" ? read.config : undefined;
}

/** The config, undefined when there is none; a broken one throws its ConfigError (the CLI prints it). */
export function loadConfig(projectRoot: string): ProjectConfig | undefined {
  const read = readConfigFile(projectRoot);
  if (read.state === "invalid") throw read.error;
  return read.state === "ok" ? read.config : undefined;
}

/** What is wrong with the project's config, when something is. */
export function configProblem(projectRoot: string): ConfigError | undefined {
  const read = readConfigFile(projectRoot);
  return read.state === "invalid" ? read.error : undefined;
}

/** Writes the config; refuses to replace a broken one, which may hold settings the user wants back. */
export function writeConfig(projectRoot: string, config: ProjectConfig): void {
  ensureTapedeckDir(projectRoot);
  const current = readConfigFile(projectRoot);
  if (current.state === "invalid") throw current.error;
  writeJsonAtomicSync(configPath(projectRoot), config);
}

export function effectiveLimits(config: ProjectConfig | undefined): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(config?.limits ?? {})) {
    if (Object.hasOwn(limits, key) && typeof value === "number" && Number.isFinite(value) && value > 0) {
      limits[key as keyof Limits] = Math.floor(value);
    }
  }
  return limits;
}

/**
 * The nearest directory at or above `start` holding a tapedeck config: a
 * hook fired after the agent `cd`s into a subdirectory still finds its project.
 */
export function findProjectRoot(start: string): string | undefined {
  let dir = resolve(start);
  for (let i = 0; i < 64; i += 1) {
    // A broken config still marks its project: found, so its error can be told, not skipped past.
    if (readConfigFile(dir).state !== "missing") return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}
