import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, ensureBuilt } from "../helpers/cli-run.ts";
import { useTempProjects } from "../helpers/session.ts";

beforeAll(ensureBuilt);
const project = useTempProjects();

/**
 * Runs `tapedeck view` with a stand-in opener that writes its argv down, then stops it with Ctrl-C: the built
 * CLI, as the viewer serves until a real SIGINT ends it and then removes its launcher page.
 */
async function viewWithOpener(root: string): Promise<{ url: string; argv: string[]; home: string }> {
  const home = join(root, "home");
  const bin = join(root, "bin");
  mkdirSync(bin, { recursive: true });
  const argvFile = join(root, "opener-argv");
  for (const name of ["xdg-open", "open"]) {
    writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const child = spawn(process.execPath, [CLI, "view", "--project", root, "--json"], {
    env: {
      ...process.env,
      HOME: home,
      TAPEDECK_HOME: join(home, ".tapedeck"),
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  while (!existsSync(argvFile) || !out.endsWith("}\n")) await new Promise((r) => setTimeout(r, 50));
  const argv = readFileSync(argvFile, "utf8").split("\n").filter(Boolean);
  const url = (JSON.parse(out) as { url: string }).url;
  const launcher = fileURLToPath(argv[0]!);
  expect(statSync(launcher).mode & 0o777).toBe(0o600);
  expect(statSync(join(launcher, "..")).mode & 0o777).toBe(0o700);
  expect(readFileSync(launcher, "utf8")).toContain(`url=${url}"`);
  child.kill("SIGINT");
  await exited;
  expect(existsSync(launcher), "the launcher page goes when the viewer stops").toBe(false);
  return { url, argv, home };
}

describe("tapedeck view opening a browser", () => {
  it("hands the opener a private page that forwards to the URL, never the URL and its token", async () => {
    const root = project();
    const { url, argv } = await viewWithOpener(root);
    const token = new URL(url).pathname.split("/")[1]!;
    expect(token.length).toBeGreaterThan(20);
    // Whatever the opener starts (a browser keeps its argv for as long as it runs) is visible in `ps`.
    expect(argv).toHaveLength(1);
    expect(argv[0]).toMatch(/^file:\/\//);
    expect(argv.join(" ")).not.toContain(token);
  }, 30_000);
});
