// The built CLI (dist/cli.js) in a child process, with the user's tapedeck home and mirror in a temp directory:
// a test of a command that reads the registry or the mirror never sees (nor removes) the real ones.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const CLI = join(process.cwd(), "dist", "cli.js");
/** The hook bundle the agents run. */
export const HOOK = join(process.cwd(), "dist", "hook.cjs");

const BUNDLES = [CLI, HOOK, join(process.cwd(), "dist", "mcp.js")];

/** Builds dist/ when the CLI, the hook or the MCP bundle is missing (all come from one build). */
/** The chunk dist/cli.js loads for a command (the build names each by its content's hash). */
export function commandChunk(name: string): string {
  const text = readFileSync(CLI, "utf8");
  const m = text.match(new RegExp(`import\\("\\./(cli-chunks/${name}-[A-Z0-9]+\\.js)"\\)`));
  if (!m) throw new Error(`no chunk for ${name} in dist/cli.js`);
  return join(process.cwd(), "dist", m[1]!);
}

export function ensureBuilt(): void {
  if (BUNDLES.some((b) => !existsSync(b)))
    execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], home: string, env: Record<string, string> = {}): CliResult {
  mkdirSync(home, { recursive: true });
  const r = spawnSync(process.execPath, [CLI, ...args], {
    input: "",
    encoding: "utf8",
    env: {
      ...process.env,
      HOME: home,
      TAPEDECK_HOME: join(home, ".tapedeck"),
      TAPEDECK_MIRROR_DIR: join(home, "mirror"),
      ...env,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The built hook bundle run as the agent runs it for the project at `root`, the payload on stdin. */
export function runHook(root: string, payload: object, provider = "claude") {
  return spawnSync(process.execPath, [HOOK, provider], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    env: { ...process.env, CLAUDE_PROJECT_DIR: root },
  });
}
