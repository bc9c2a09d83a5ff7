import type { Command } from "commander";
import { beforeAll, describe, expect, it } from "vitest";
import { CATALOG } from "../../src/cli/catalog.ts";
import { HELP_EXTRAS } from "../../src/cli/help-extras.ts";
import { HELP_GROUPS } from "../../src/cli/help-groups.ts";
import { buildProgram } from "../../src/cli/program.ts";
import { ensureBuilt, runCli } from "../helpers/cli-run.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

beforeAll(ensureBuilt);
const project = useTempProjects();

describe("tapedeck --help", () => {
  // The built CLI's own help, end to end; a command's help is the same in process.
  it("lists the commands by group, internal last, every catalog command in a named group", () => {
    const out = runCli(["--help"], project()).stdout;
    const headings = HELP_GROUPS.map((g) => g.heading).filter((h) => out.includes(`\n${h}\n`));
    expect(headings[0]).toBe("Recording:");
    expect(headings.at(-1)).toMatch(/^Internal/);
    expect(out.indexOf("Maintenance:")).toBeLessThan(out.indexOf("\n  hook "));
    expect(out).not.toContain("\nOther:\n");
    const named = HELP_GROUPS.flatMap((g) => g.commands);
    expect(CATALOG.map((e) => e.name).filter((n) => !named.includes(n))).toEqual([]);
  });

  it("every command's --help ends with examples and its exit codes", async () => {
    const home = project();
    expect(CATALOG.map((e) => e.name).filter((n) => !HELP_EXTRAS[n])).toEqual([]);
    for (const name of ["prune", "delete", "config", "run", "scenario"]) {
      const out = (await runCliInProcess([name, "--help"], home)).stdout;
      expect(out, name).toMatch(/\nExamples:\n {2}tapedeck /);
      expect(out, name).toContain("\nExit codes: ");
    }
    expect((await runCliInProcess(["help", "du"], home)).stdout).toContain(
      "tapedeck du --all-projects --json",
    );
  });

  it("every example names a real command and only options it has", async () => {
    const program = await buildProgram("all");
    for (const [name, extra] of Object.entries(HELP_EXTRAS)) {
      for (const example of extra.examples) {
        // Without a trailing "   (note)" and a shell's "$(...)" around the command.
        const line = example
          .replace(/\s{2,}\(.*\)$/, "")
          .replace('"$(', "")
          .replace(')"', "");
        const words = line.split(/\s+/).filter(Boolean);
        const at = words.indexOf("tapedeck");
        expect(words[at + 1], example).toBe(name);
        let cmd: Command | undefined = program.commands.find((c) => c.name() === name);
        const sub = cmd?.commands.find((c) => c.name() === words[at + 2]);
        const next = words[at + 2];
        if (cmd!.commands.length > 0 && next && !next.startsWith("-")) expect(sub, example).toBeDefined();
        if (sub) cmd = sub;
        if (name === "run") continue; // the agent's own options follow
        const known = new Set(cmd!.options.flatMap((o) => [o.long, o.short]));
        for (const flag of words.slice(at + 2).filter((w) => w.startsWith("-"))) {
          expect(known.has(flag), `${example}: ${flag}`).toBe(true);
        }
      }
    }
  });
});

describe("the manual page", () => {
  it("is built from every command's own help and shipped as the package's man page", async () => {
    const { readFileSync } = await import("node:fs");
    const page = readFileSync("dist/tapedeck.1", "utf8");
    expect(page.startsWith(".TH TAPEDECK 1")).toBe(true);
    for (const e of CATALOG) expect(page, e.name).toContain(`.SS "tapedeck ${e.name}"`);
    expect(page).toContain('.SS "tapedeck memory forget"');
    expect(page).toContain("tapedeck prune --older-than 30d --dry-run");
    // troff reads bytes: nothing outside ASCII (an em dash goes as its troff Unicode escape).
    expect(page).toMatch(/^[\x00-\x7f]*$/);
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    // An array: npm's global install links only an array (a string left `man tapedeck` empty).
    expect(pkg.man).toEqual(["./dist/tapedeck.1"]);
    expect(pkg.files).toContain("dist");
  });
});
