// Every test file is in one tier (test/tiers.ts), and does only what its tier allows: the fast tiers
// (`npm test`) never reach a built bundle from a unit test, a browser, a real agent CLI or promptfoo.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_TAGS, ISOLATED, TIERS, type Tier } from "../tiers.ts";

const REPO = process.cwd();
const SELF = "test/architecture/tiers.test.ts";

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : testFiles(path);
    return e.name.endsWith(".test.ts") ? [relative(REPO, path)] : [];
  });
}

/** The glob forms test/tiers.ts uses: `**` for any folders, `*` within a name. */
function globRegex(glob: string): RegExp {
  const body = glob
    .split("/")
    .map((part) =>
      part === "**" ? "(?:[^/]+/)*" : `${part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}/`,
    )
    .join("");
  return new RegExp(`^${body.slice(0, -1)}$`);
}

function inTier(file: string, tier: Tier): boolean {
  const matches = (globs: readonly string[]) => globs.some((g) => globRegex(g).test(file));
  return matches(tier.include) && !matches(tier.exclude);
}

function tierOf(file: string): string[] {
  return TIERS.filter((t) => inTier(file, t)).map((t) => t.name);
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(REPO, file), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
}

/** A built bundle (dist/): only the cli tier (and those above) build and run it. */
const BUILT = [/helpers\/cli-run\.ts$/, /e2e\/sandboxes\.ts$/];
/** A browser, a real agent CLI or promptfoo: what only the e2e tier installs and runs. */
const E2E_ONLY = [
  /helpers\/chromium\.ts$/,
  /playwright/,
  /e2e\/(agents|claude-runner|replay-harness|receivers)\.ts$/,
];
const REAL_AGENT = /\brun(Claude|Codex|Gemini)\(|test-promptfoo|test-receivers/;

function offending(file: string, modules: readonly RegExp[]): string[] {
  const found = importsOf(file)
    .filter((i) => modules.some((r) => r.test(i)))
    .map((i) => `${file}: ${i}`);
  // This file names the pattern itself.
  if (file !== SELF && REAL_AGENT.test(readFileSync(join(REPO, file), "utf8")))
    found.push(`${file}: runs a real agent or peer`);
  return found;
}

const files = [
  ...testFiles(join(REPO, "test")),
  ...readdirSync(join(REPO, "packages")).flatMap((p) => testFiles(join(REPO, "packages", p, "test"))),
];

describe("test tiers", () => {
  it("every test file is in exactly one tier", () => {
    const wrong = files.map((f) => ({ f, tiers: tierOf(f) })).filter((x) => x.tiers.length !== 1);
    expect(wrong).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });

  it("a unit test needs no build: no dist/ bundle, browser, real agent or peer", () => {
    const unit = files.filter((f) => tierOf(f)[0] === "unit");
    expect(unit.flatMap((f) => offending(f, [...BUILT, ...E2E_ONLY]))).toEqual([]);
  });

  it("a cli or soak test needs no browser, real agent or peer", () => {
    const fast = files.filter((f) => ["cli", "soak"].includes(tierOf(f)[0]!));
    expect(fast.flatMap((f) => offending(f, E2E_ONLY))).toEqual([]);
  });

  it("an e2e file tags the agents and peers it runs, with tags the config knows", () => {
    const e2e = files.filter((f) => tierOf(f)[0] === "e2e");
    const tags = (f: string) =>
      [...readFileSync(join(REPO, f), "utf8").matchAll(/^\/\/ @module-tag (\S+)$/gm)].map((m) => m[1]!);
    expect(e2e.filter((f) => tags(f).length === 0)).toEqual([]);
    const known = new Set<string>(AGENT_TAGS);
    expect(e2e.flatMap((f) => tags(f).filter((t) => !known.has(t)))).toEqual([]);
  });

  it("a unit file that replaces a module or adds to the catalog runs isolated: *.isolated.test.ts", () => {
    const mocks = (f: string) =>
      /\bvi\.(mock|doMock)\(|\b(CATALOG|ADAPTERS|IDENTITIES|USAGE_FACTS)\]?\s*\)?\[[^\]]+\]\s*=[^=]|\[(CATALOG|ADAPTERS), /.test(
        readFileSync(join(REPO, f), "utf8"),
      );
    const shared = files.filter((f) => f !== SELF && ["unit", "cli"].includes(tierOf(f)[0]!));
    expect(shared.filter((f) => mocks(f) && !globRegex(ISOLATED).test(f))).toEqual([]);
    // The cli tier's isolated project takes its files from test/cli/ (vitest.config.ts).
    const cliIsolated = shared.filter((f) => tierOf(f)[0] === "cli" && globRegex(ISOLATED).test(f));
    expect(cliIsolated.filter((f) => !f.startsWith("test/cli/"))).toEqual([]);
    expect(shared.filter((f) => globRegex(ISOLATED).test(f)).length).toBeGreaterThan(1);
  });

  it("the glob reader reads the tiers' globs as vitest does", () => {
    expect(tierOf("test/core/store.test.ts")).toEqual(["unit"]);
    expect(tierOf("test/core/store.soak.test.ts")).toEqual(["soak"]);
    expect(tierOf("test/cli/list.test.ts")).toEqual(["cli"]);
    expect(tierOf("test/mcp/stdio.cli.test.ts")).toEqual(["cli"]);
    expect(tierOf("test/e2e/claude-smoke.test.ts")).toEqual(["e2e"]);
    expect(tierOf("test/cli/completion-zsh.e2e.test.ts")).toEqual(["e2e"]);
    expect(tierOf("test/hook-entry.cli.test.ts")).toEqual(["cli"]);
    expect(tierOf("packages/redact/test/shapes.test.ts")).toEqual(["unit"]);
    expect(tierOf("test/core/lock-claim.isolated.test.ts")).toEqual(["unit"]);
  });
});
