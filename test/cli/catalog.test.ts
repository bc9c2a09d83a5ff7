// The CLI's layout: the catalog (src/cli/catalog.ts) says what each command is without loading it, each
// command's file defines it, and the built entry loads only the command it runs.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Command, Help } from "commander";
import { beforeAll, describe, expect, it } from "vitest";
import { CATALOG } from "../../src/cli/catalog.ts";
import { buildProgram, commandNameOf } from "../../src/cli/program.ts";
import { PROVIDERS } from "../../src/cli/providers.ts";
import { ADAPTERS } from "../../src/providers/registry.ts";
import { commandChunk } from "../helpers/cli-run.ts";

const DIST = join(process.cwd(), "dist");
const CLI = join(DIST, "cli.js");

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

describe("the catalog", () => {
  it.each(CATALOG.map((e) => [e.name, e] as const))(
    "%s: its file registers exactly its entry",
    async (_n, entry) => {
      // As the entry builds it: `run` passes options through, which needs positional options.
      const program = new Command().enablePositionalOptions();
      (await entry.load()).register(program);
      expect(program.commands.map((c) => c.name())).toEqual([entry.name]);
      const cmd = program.commands[0]!;
      expect(cmd.description()).toBe(entry.description);
      expect(new Help().subcommandTerm(cmd)).toBe(entry.term);
    },
  );

  it("lists the commands in the order `tapedeck --help` always had", () => {
    expect(CATALOG.map((e) => e.name)).toEqual([
      "hook",
      "serve",
      "install",
      "uninstall",
      "import",
      "record",
      "status",
      "list",
      "inspect",
      "show",
      "view",
      "usage",
      "last",
      "export",
      "otel",
      "search",
      "index",
      "promote",
      "memory",
      "retrieval",
      "delete",
      "repair",
      "redact",
      "proxy",
      "run",
      "mirror",
      "restore",
      "replay",
      "experiment",
      "scenario",
      "demo",
      "doctor",
      "mcp",
      "prune",
      "du",
      "config",
      "completion",
    ]);
  });

  it("`tapedeck --help` from the catalog alone is the help of the program with every command loaded", async () => {
    const light = await buildProgram(undefined);
    const full = await buildProgram("all");
    expect(light.helpInformation()).toBe(full.helpInformation());
  });

  it.each(CATALOG.map((e) => [e.name]))(
    "`tapedeck %s --help` is complete with only that command loaded",
    async (name) => {
      const alone = (await buildProgram(name)).commands.find((c) => c.name() === name)!;
      const full = (await buildProgram("all")).commands.find((c) => c.name() === name)!;
      expect(alone.helpInformation()).toBe(full.helpInformation());
      for (const sub of full.commands) {
        expect(alone.commands.find((c) => c.name() === sub.name())?.helpInformation()).toBe(
          sub.helpInformation(),
        );
      }
    },
  );

  it("knows the providers the hot path's registry records, in its order", () => {
    expect(PROVIDERS).toEqual(Object.keys(ADAPTERS));
    const hook = CATALOG.find((e) => e.name === "hook")!;
    expect(hook.description).toContain(`(providers: ${Object.keys(ADAPTERS).join(", ")})`);
  });
});

describe("which command argv runs", () => {
  it.each([
    [["--version"], undefined],
    [["-V"], undefined],
    [[], undefined],
    [["list", "--json"], "list"],
    [["--help", "list"], "list"],
    [["help", "doctor"], "doctor"],
    [["help"], undefined],
    [["run", "claude", "-p", "help"], "run"],
    [["mirror", "restore", "last"], "mirror"],
    [["--", "status"], "status"],
    [["lst"], "lst"],
  ] as const)("%j -> %s", (args, name) => {
    expect(commandNameOf(args)).toBe(name);
  });
});

/** The files a built file loads before it runs (static imports, followed), with the sources each came from. */
function staticClosure(entry: string): { files: string[]; sources: string[]; packages: string[] } {
  const files: string[] = [];
  const sources = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string) => {
    if (files.includes(file)) return;
    files.push(file);
    const text = readFileSync(file, "utf8");
    // esbuild heads each bundled module with its source path.
    for (const m of text.matchAll(/^\/\/ (src\/\S+|node_modules\/\S+)$/gm)) sources.add(m[1]!);
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gms)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith(".")) walk(resolve(dirname(file), spec));
      else if (!spec.startsWith("node:")) packages.add(spec);
    }
  };
  walk(entry);
  return { files, sources: [...sources], packages: [...packages] };
}

describe("the built CLI loads only the command it runs", () => {
  it("dist/cli.js loads no command, no package from node_modules and no provider code", () => {
    const { sources, packages } = staticClosure(CLI);
    expect(packages).toEqual([]);
    expect(sources.filter((s) => s.startsWith("src/cli/commands/"))).toEqual([]);
    expect(sources.filter((s) => s.startsWith("src/providers/") || s.startsWith("src/proxy/"))).toEqual([]);
  });

  it("every command in the catalog has its own chunk", () => {
    for (const e of CATALOG) expect(existsSync(commandChunk(e.name))).toBe(true);
  });

  it("status and list load no provider normalizer and no proxy", () => {
    for (const name of ["status", "list", "record"]) {
      const { sources, packages } = staticClosure(commandChunk(name));
      expect(sources.filter((s) => /^src\/providers\/.*\/(normalize|adapter)\.ts$/.test(s))).toEqual([]);
      expect(sources.filter((s) => s.startsWith("src/proxy/"))).toEqual([]);
      expect(packages).toEqual([]);
    }
  });

  it("a command loads the entry's files and one file of its own (the loader pays per file)", () => {
    const entry = staticClosure(CLI).files;
    for (const e of CATALOG) {
      const own = staticClosure(commandChunk(e.name)).files.filter((f) => !entry.includes(f));
      expect(own, e.name).toEqual([commandChunk(e.name)]);
    }
  });

  it("list and status load no store, recovery scan or redaction rules", () => {
    for (const name of ["status", "list"]) {
      const { sources } = staticClosure(commandChunk(name));
      const heavy =
        /^(src\/core\/archive\/(session-store|recovery|session-scan|identity)|src\/core\/read\/sessions|packages\/redact\/)/;
      expect(sources.filter((s) => heavy.test(s))).toEqual([]);
    }
  });

  it("only proxy and run load the proxy's packages", () => {
    const withUndici = CATALOG.filter((e) => staticClosure(commandChunk(e.name)).packages.includes("undici"));
    expect(withUndici.map((e) => e.name).sort()).toEqual(["proxy", "run"]);
  });
});
