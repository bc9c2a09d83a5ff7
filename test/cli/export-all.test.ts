// `tapedeck export --all --out DIR` (issue 41, item 13): every session in scope a file in DIR, for html a site
// (a page per session, an index per project, with --all-projects a folder per project and an index over all)
// whose pages link to each other; a secret planted in a prompt appears nowhere in DIR in any letter case;
// files 0600 and directories 0700; never through a symlink; a non-empty directory no export made is refused
// unless --force; --json says what was written.
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { registerSession } from "../../src/core/archive/session-registry.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { GITHUB_TOKEN } from "../e2e/planted-secrets.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { runProgram } from "../helpers/program.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";

const temp = useTempProjects("tapedeck-export-all-");
const HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=alert(1)>";

interface World {
  alpha: string;
  beta: string;
  home: string;
  out: string;
}

function record(root: string, id: string, prompt: string, provider = "claude"): void {
  const { tick, ev } = eventClock();
  recordEvents(
    spec(root, {
      identity: identity(id, provider),
      sessionRoot: join(root, ".tapedeck", `${provider}-sessions`),
    }),
    [
      ev("session_start", `s-${id}`, { source: "startup" }),
      ev("user_prompt", `p-${id}`, { prompt }),
      ev("assistant_message", `a-${id}`, { text: `answer of ${id}` }),
      ev("session_end", `e-${id}`, { reason: "other" }),
    ],
    tick,
  );
}

function world(): World {
  const root = temp();
  const alpha = join(root, "alpha-service");
  const beta = join(root, "beta-frontend");
  const home = join(root, "home");
  for (const d of [alpha, beta, home]) mkdirSync(d, { mode: 0o700 });
  record(alpha, "a1", `deploy with token ${GITHUB_TOKEN} please`);
  record(alpha, "a2", `render this: ${HOSTILE}`);
  record(alpha, "../../escape", "a hostile id", "codex");
  record(beta, "b1", "the beta task about wombats");
  const env = { TAPEDECK_HOME: join(home, ".tapedeck") };
  registerSession({ provider: "claude", provider_session_id: "b1", project_root: beta }, env);
  return { alpha, beta, home, out: join(root, "site") };
}

function cli(w: World, args: string[]) {
  return runProgram(args, { cwd: w.alpha, env: { TAPEDECK_HOME: join(w.home, ".tapedeck"), HOME: w.home } });
}

/** Every path under `dir`, relative, files and directories. */
function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? [relative(base, p), ...walk(p, base)] : [relative(base, p)];
  });
}

/** The relative links of an index's embedded JSON and a session page's back link. */
function linksOf(file: string): string[] {
  const html = readFileSync(file, "utf8");
  const site = /id="site-data">([^<]*)<\/script>/.exec(html);
  if (site) {
    const data = JSON.parse(site[1]!) as {
      sessions: { href: string }[];
      projects: { href: string | null }[];
    };
    const up = /id="up"/.test(html) ? ["../index.html"] : [];
    return [
      ...data.sessions.map((s) => s.href),
      ...data.projects.flatMap((p) => (p.href ? [p.href] : [])),
      ...up,
    ];
  }
  const page = JSON.parse(/id="tapedeck-data">([^<]*)<\/script>/.exec(html)![1]!) as {
    site?: { index: string };
  };
  return page.site ? [page.site.index] : [];
}

describe("export --all --format html", () => {
  it("writes a page per session and an index per project and over all, linked both ways", async () => {
    const w = world();
    const r = await cli(w, [
      "export",
      "--all",
      "--all-projects",
      "--format",
      "html",
      "--out",
      w.out,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ format: "html", projects: 2, sessions: 4 });
    const files = walk(w.out).sort();
    expect(files).toEqual(
      [
        ".tapedeck-export.json",
        "alpha-service",
        "alpha-service/claude-a1.html",
        "alpha-service/claude-a2.html",
        "alpha-service/codex-escape.html",
        "alpha-service/index.html",
        "beta-frontend",
        "beta-frontend/claude-b1.html",
        "beta-frontend/index.html",
        "index.html",
      ].sort(),
    );
    expect(summary.indexes).toEqual(["index.html", "alpha-service/index.html", "beta-frontend/index.html"]);
    // Every link lands on a file of the site, and every page is linked from an index.
    const linked = new Set<string>();
    for (const f of files.filter((f) => f.endsWith(".html"))) {
      for (const href of linksOf(join(w.out, f))) {
        const target = relative(w.out, join(w.out, dirname(f), href));
        expect(files, `${f} links ${href}`).toContain(target);
        linked.add(target);
      }
    }
    for (const f of files.filter((f) => f.endsWith(".html"))) expect(linked, f).toContain(f);
    // Private: files 0600, directories 0700.
    for (const f of ["", ...files]) {
      const st = lstatSync(join(w.out, f));
      expect(st.mode & 0o777, f).toBe(st.isDirectory() ? 0o700 : 0o600);
    }
  });

  it("holds no planted secret anywhere, in any letter case, and escapes HTML from a prompt", async () => {
    const w = world();
    const r = await cli(w, ["export", "--all", "--all-projects", "--format", "html", "--out", w.out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Exported 4 sessions");
    const mid = GITHUB_TOKEN.slice(10, 26);
    for (const f of walk(w.out)) {
      if (lstatSync(join(w.out, f)).isDirectory()) continue;
      const text = readFileSync(join(w.out, f), "utf8").toLowerCase();
      expect(text.includes(GITHUB_TOKEN.toLowerCase()), f).toBe(false);
      expect(text.includes(mid.toLowerCase()), f).toBe(false);
      // Recorded markup never stands as markup: no '<' of it is left in any page.
      expect(text.includes("<script>window.__pwned"), f).toBe(false);
      expect(text.includes("<img src=x"), f).toBe(false);
    }
    // The index still finds the prompt by its words: the text is there, escaped.
    const top = readFileSync(join(w.out, "index.html"), "utf8");
    expect(top).toContain("\\u003cscript>window.__pwned");
    expect(top).toContain("[REDACTED:github_token]");
  });

  it("one project without --all-projects: its index and pages side by side in DIR", async () => {
    const w = world();
    const r = await cli(w, ["export", "--all", "--format", "html", "--out", w.out]);
    expect(r.code, r.stderr).toBe(0);
    expect(walk(w.out).sort()).toEqual(
      [".tapedeck-export.json", "claude-a1.html", "claude-a2.html", "codex-escape.html", "index.html"].sort(),
    );
    expect(linksOf(join(w.out, "claude-a1.html"))).toEqual(["index.html"]);
  });
});

describe("export --all, every format", () => {
  it("writes one jsonl or md file per session", async () => {
    const w = world();
    const jsonl = await cli(w, ["export", "--all", "--format", "jsonl", "--out", join(w.out, "j"), "--json"]);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    const files = JSON.parse(jsonl.stdout).files as { file: string; events: number }[];
    expect(files.map((f) => f.file).sort()).toEqual([
      "claude-a1.jsonl",
      "claude-a2.jsonl",
      "codex-escape.jsonl",
    ]);
    const first = readFileSync(join(w.out, "j", "claude-a1.jsonl"), "utf8").split("\n");
    expect(JSON.parse(first[0]!).record).toBe("manifest");
    expect(first.filter(Boolean)).toHaveLength(1 + files.find((f) => f.file === "claude-a1.jsonl")!.events);
    const md = await cli(w, ["export", "--all", "--format", "md", "--out", join(w.out, "m")]);
    expect(md.code, md.stderr).toBe(0);
    expect(readFileSync(join(w.out, "m", "claude-a1.md"), "utf8")).toContain("[REDACTED:github_token]");
    expect(readdirSync(join(w.out, "m")).sort()).toEqual([
      ".tapedeck-export.json",
      "claude-a1.md",
      "claude-a2.md",
      "codex-escape.md",
    ]);
  });

  it("asks for what it needs: --out DIR, no SESSION beside --all, --json only with --all", async () => {
    const w = world();
    expect((await cli(w, ["export", "--all", "--format", "md"])).code).toBe(2);
    expect((await cli(w, ["export", "--all", "a1", "--format", "md", "--out", w.out])).code).toBe(2);
    expect((await cli(w, ["export", "--format", "md"])).code).toBe(2);
    expect((await cli(w, ["export", "a1", "--format", "md", "--json"])).code).toBe(2);
  });
});

describe("export --all's directory", () => {
  it("refuses a non-empty directory no export made, says so, and writes into it with --force", async () => {
    const w = world();
    mkdirSync(w.out);
    writeFileSync(join(w.out, "notes.txt"), "mine");
    const r = await cli(w, ["export", "--all", "--format", "md", "--out", w.out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not empty and no tapedeck export made it");
    expect(r.stderr).toContain("--force");
    expect(readdirSync(w.out)).toEqual(["notes.txt"]);
    const forced = await cli(w, ["export", "--all", "--format", "md", "--out", w.out, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(w.out, "notes.txt"), "utf8")).toBe("mine");
    // Its own export again needs no --force, and replaces what it wrote.
    const again = await cli(w, ["export", "--all", "--format", "md", "--out", w.out]);
    expect(again.code, again.stderr).toBe(0);
  });

  it("never writes through a symlink: not the directory, not a folder in it, not a file's name", async () => {
    const w = world();
    const elsewhere = join(dirname(w.out), "elsewhere");
    mkdirSync(elsewhere);
    const linkDir = join(dirname(w.out), "linked");
    symlinkSync(elsewhere, linkDir);
    const viaLink = await cli(w, ["export", "--all", "--format", "md", "--out", linkDir]);
    expect(viaLink.code).toBe(1);
    expect(viaLink.stderr).toContain("is a symlink");
    // A first export, then links planted where the next one writes.
    expect((await cli(w, ["export", "--all", "--all-projects", "--format", "md", "--out", w.out])).code).toBe(
      0,
    );
    const victim = join(elsewhere, "victim.txt");
    writeFileSync(victim, "untouched");
    const page = join(w.out, "alpha-service", "claude-a1.md");
    const { rmSync } = await import("node:fs");
    rmSync(page);
    symlinkSync(victim, page);
    const again = await cli(w, ["export", "--all", "--all-projects", "--format", "md", "--out", w.out]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("untouched");
    expect(lstatSync(page).isSymbolicLink()).toBe(false);
    rmSync(join(w.out, "beta-frontend"), { recursive: true });
    symlinkSync(elsewhere, join(w.out, "beta-frontend"));
    const folder = await cli(w, ["export", "--all", "--all-projects", "--format", "md", "--out", w.out]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain("is a symlink");
    expect(readdirSync(elsewhere).sort()).toEqual(["victim.txt"]);
  });

  it("says where a long export is, on stderr", async () => {
    const w = world();
    for (let i = 0; i < 26; i++) record(w.alpha, `bulk-${i}-${randomBytes(2).toString("hex")}`, `task ${i}`);
    const r = await cli(w, ["export", "--all", "--format", "jsonl", "--out", w.out, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Exporting 29 sessions to");
    expect(r.stderr).toContain("25/29");
    expect(JSON.parse(r.stdout).sessions).toBe(29);
  });
});
