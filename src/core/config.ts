// Per-project recording configuration, `.tapedeck/config.json`. It lives in
// the git-ignored directory on purpose: enabling recording is a personal
// choice, never something a clone inherits.
import { dirname, join, resolve } from "node:path";
import { DEFAULT_LIMITS, type Limits } from "./bound.ts";
import { readJsonOrUndefined, writeJsonAtomicSync } from "./fsutil.ts";
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
}

/** Switches recording on or off; answers whether that changed anything. */
export function setRecording(entry: ProviderConfig, on: boolean): boolean {
  const want = on ? "on" : "off";
  if (entry.recording === want) return false;
  entry.recording = want;
  if (on) entry.recording_since = new Date().toISOString();
  return true;
}

export interface ProjectConfig {
  schema_version: 1;
  providers: Record<string, ProviderConfig>;
  limits?: Partial<Limits>;
  lock_timeout_ms?: number;
}

export const CONFIG_FILE = "config.json";

export function configPath(projectRoot: string): string {
  return join(projectRoot, TAPEDECK_DIR, CONFIG_FILE);
}

export function readConfig(projectRoot: string): ProjectConfig | undefined {
  const config = readJsonOrUndefined<ProjectConfig>(configPath(projectRoot));
  if (config?.schema_version !== 1 || typeof config.providers !== "object" || !config.providers) {
    return undefined;
  }
  return config;
}

export function writeConfig(projectRoot: string, config: ProjectConfig): void {
  ensureTapedeckDir(projectRoot);
  writeJsonAtomicSync(configPath(projectRoot), config);
}

export function effectiveLimits(config: ProjectConfig | undefined): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(config?.limits ?? {})) {
    if (key in limits && typeof value === "number" && Number.isFinite(value) && value > 0) {
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
    if (readConfig(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}
