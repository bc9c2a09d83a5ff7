// Which agent CLI binary tapedeck runs (the demo, `tapedeck run`, replays and experiments), in one order:
//   1. TAPEDECK_<NAME>_BIN, when set: the user's explicit choice;
//   2. the pinned copy of a checkout (node_modules/.bin beside the package: a dev dependency, absent from a
//      packaged install), so that a checkout's tests and demo run the version the mocks were measured with;
//   3. the CLI on the PATH: a user's own install;
// and without any, the user is told how to install it, never shown an ENOENT.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { UserError } from "../core/base/user-error.ts";

export interface AgentCli {
  /** The command name on the PATH. */
  name: string;
  /** The npm package that provides it, for the install hint. */
  npmPackage: string;
}

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

/** The checkout's pinned copy: from src/providers/ under the test runner, from dist/ (or dist/cli-chunks/) built. */
function pinnedCopy(cli: AgentCli, from: string): string | undefined {
  return [`../../node_modules/.bin/${cli.name}`, `../node_modules/.bin/${cli.name}`]
    .map((rel) => fileURLToPath(new URL(rel, from)))
    .find(isExecutableFile);
}

/** The variable that names a binary of one's own: TAPEDECK_CLAUDE_BIN, TAPEDECK_CODEX_BIN, … */
export function binVariable(cli: AgentCli): string {
  return `TAPEDECK_${cli.name.toUpperCase()}_BIN`;
}

export class MissingAgentCli extends UserError {
  override name = "MissingAgentCli";
}

/** What to tell a user who has no such CLI. */
export function installHint(cli: AgentCli): string {
  return `${cli.name} is not installed (not on the PATH): install it with  npm install -g ${cli.npmPackage}  and run this again`;
}

export interface BinaryLookup {
  env?: Record<string, string | undefined>;
  /** Where the pinned copy is looked for (a module URL two levels below the package; tests point it away). */
  from?: string;
}

/** The binary of `cli` in the one order above, or undefined. */
export function findAgentCli(cli: AgentCli, where: BinaryLookup = {}): string | undefined {
  const env = where.env ?? process.env;
  return (
    env[binVariable(cli)] || pinnedCopy(cli, where.from ?? import.meta.url) || findOnPath(cli.name, env.PATH)
  );
}

/** The binary of `cli`, or a MissingAgentCli that says how to install it (or to name one). */
export function agentBinary(cli: AgentCli, where: BinaryLookup = {}): string {
  const found = findAgentCli(cli, where);
  if (!found) throw new MissingAgentCli(`${installHint(cli)} (or set ${binVariable(cli)} to its path)`);
  return found;
}
