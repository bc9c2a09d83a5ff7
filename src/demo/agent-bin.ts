// Which agent CLI the demo and the tests run. A checkout has the pinned one in
// node_modules/.bin (a dev dependency); a packaged install (`npm pack`, then the
// tarball installed) has no dev dependencies, so the user's own CLI on the PATH
// is used, and without one the user is told how to get it, not shown an ENOENT.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface AgentCli {
  /** The command name on the PATH. */
  name: string;
  /** The npm package that provides it, for the install hint. */
  npmPackage: string;
}

export const CLAUDE_CLI: AgentCli = { name: "claude", npmPackage: "@anthropic-ai/claude-code" };

export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` on `PATH` (absolute entries only: a relative one would depend on the cwd). */
export function findOnPath(name: string, path: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The pinned dev dependency next to this module (src/demo/ under the test runner, dist/ when bundled), else
 * the CLI on the PATH, else undefined.
 */
export function findAgentCli(cli: AgentCli, from: string = import.meta.url): string | undefined {
  const pinned = [`../../node_modules/.bin/${cli.name}`, `../node_modules/.bin/${cli.name}`]
    .map((rel) => fileURLToPath(new URL(rel, from)))
    .find(isExecutableFile);
  return pinned ?? findOnPath(cli.name);
}

/** What to tell a user who has no such CLI. */
export function installHint(cli: AgentCli): string {
  return `${cli.name} is not installed (not on the PATH): install it with  npm install -g ${cli.npmPackage}  and run this again`;
}
