import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `$CODEX_HOME`, else `~/.codex`: where Codex keeps its user config, rollouts and hook trust. */
export function defaultCodexHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CODEX_HOME;
  return configured && configured.trim() !== "" ? resolve(configured) : join(homedir(), ".codex");
}

/** Codex's user-level config file in `codexHome`. */
export function codexConfigFile(codexHome: string): string {
  return join(codexHome, "config.toml");
}

/** A project's own Codex config file (read by Codex once the project is trusted). */
export function codexProjectConfigFile(dir: string): string {
  return join(dir, ".codex", "config.toml");
}
