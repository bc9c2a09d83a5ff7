import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `$CODEX_HOME`, else `~/.codex`: where Codex keeps its user config, rollouts and hook trust. */
export function defaultCodexHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CODEX_HOME;
  return configured && configured.trim() !== "" ? resolve(configured) : join(homedir(), ".codex");
}
