// `tapedeck memory list|show|search|edit|forget|export|verify` as a user runs them, in process
// (test/helpers/program.ts); on a terminal, the built CLI under script(1).
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession } from "../../src/core/read/sessions.ts";
import { memoryPath } from "../../src/memory/store/store.ts";
import { linkedMemory } from "../helpers/memory-item.ts";
import { runProgram } from "../helpers/program.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const CLI = join(process.cwd(), "dist", "cli.js");

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

const project = useTempProjects("tapedeck-memory-cli-");

function cli(args: string[], stdin = "") {
  return runProgram(args, { stdin });
}

/** A recorded session with two turns, promoted; answers the created ids. */
async function promoted(root: string): Promise<string[]> {
  recordEvents(spec(root), [
    { ...event("user_prompt", "p1", { prompt: "which port does the gizmo use?" }), turn_id: "t1" },
    {
      ...event("assistant_message", "a1", {
        text: "The gizmo listens on port 7311 (see src/gizmo/server.ts).",
      }),
      turn_id: "t1",
    },
    { ...event("user_prompt", "p2", { prompt: "which port does the widget use?" }), turn_id: "t2" },
    {
      ...event("assistant_message", "a2", { text: "The widget has no port; it reads ```fenced``` input." }),
      turn_id: "t2",
    },
  ]);
  const r = await cli(["promote", "last", "--project", root, "--yes", "--json"]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).created;
}

describe("tapedeck memory", () => {
  it("with nothing promoted: list says so, search exits 1, verify checks nothing, and no file is created", async () => {
    const root = project();
    const list = await cli(["memory", "list", "--project", root]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("No promoted memory");
    expect((await cli(["memory", "search", "gizmo", "--project", root])).code).toBe(1);
    expect((await cli(["memory", "verify", "--project", root])).code).toBe(0);
    expect((await cli(["memory", "show", "m1-nope", "--project", root])).code).toBe(3);
    expect(existsSync(memoryPath(root))).toBe(false);
  });

  it("list, show and search: ranked hits with their source; exit 1 when nothing matches", async () => {
    const root = project();
    const ids = await promoted(root);
    expect(ids).toHaveLength(2);
    const list = await cli(["memory", "list", "--project", root, "--json"]);
    const listed = JSON.parse(list.stdout) as Array<{ id: string; bytes: number; body?: string }>;
    expect(listed).toHaveLength(2);
    expect(listed[0]!.body).toBeUndefined();
    const search = await cli(["memory", "search", "gizmo port 7311", "--project", root, "--json"]);
    expect(search.code).toBe(0);
    const hits = JSON.parse(search.stdout).hits as Array<{ id: string; kind: string; snippet: string }>;
    expect(hits[0]!.kind).toBe("exchange");
    expect(hits[0]!.snippet).toContain("«port»");
    // A path fragment: the trigram table.
    const path = await cli(["memory", "search", "gizmo/server", "--project", root, "--json"]);
    expect(JSON.parse(path.stdout).hits).toHaveLength(1);
    expect((await cli(["memory", "search", "nonexistentword", "--project", root])).code).toBe(1);
    const show = await cli(["memory", "show", hits[0]!.id, "--project", root]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("port 7311");
    expect(show.stdout).toContain("Source: claude claude:sess-1");
    const shown = JSON.parse(
      (await cli(["memory", "show", hits[0]!.id, "--project", root, "--json"])).stdout,
    );
    expect(shown.source.event_ids).toEqual(["p1", "a1"]);
  });

  it("a 100 KB query is a clear usage error (exit 2), quickly, not a crash", async () => {
    const root = project();
    await promoted(root);
    const r = await cli(["memory", "search", "x".repeat(100 * 1024), "--project", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad query: longer than 4096 bytes/);
  });

  it("forget asks first (no terminal, no --yes: exit 2, kept); --yes forgets; an unknown id is not found", async () => {
    const root = project();
    const [id] = await promoted(root);
    const refused = await cli(["memory", "forget", id!, "--project", root]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes");
    expect((await cli(["memory", "show", id!, "--project", root])).code).toBe(0);
    const done = await cli(["memory", "forget", id!, "--project", root, "--yes", "--json"]);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({ forgotten: id });
    expect((await cli(["memory", "show", id!, "--project", root])).code).toBe(3);
    expect((await cli(["memory", "forget", id!, "--project", root, "--yes"])).code).toBe(3);
    // The recording is untouched.
    expect(findSession(root, "last").manifest.event_count).toBe(4);
  });

  it("export: jsonl is one item per line, md fences every body safely", async () => {
    const root = project();
    const ids = await promoted(root);
    const jsonl = await cli(["memory", "export", "--format", "jsonl", "--project", root]);
    expect(jsonl.code).toBe(0);
    const lines = jsonl.stdout.trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).id).sort()).toEqual([...ids].sort());
    const md = await cli(["memory", "export", "--format", "md", "--project", root]);
    expect(md.stdout).toContain("# tapedeck memory");
    expect(md.stdout).toContain(
      "````text\nUser: which port does the widget use?\n\nAssistant: The widget has no port; it reads ```fenced``` input.\n````",
    );
    expect((await cli(["memory", "export", "--format", "csv", "--project", root])).code).toBe(2);
  });

  it("verify: an appended session still verifies; a rewritten one is reported changed (exit 1)", async () => {
    const root = project();
    await promoted(root);
    const ref = findSession(root, "last");
    recordEvents(spec(root), [{ ...event("user_prompt", "p9", { prompt: "later" }), turn_id: "t9" }]);
    expect((await cli(["memory", "verify", "--project", root])).code).toBe(0);
    const file = join(ref.dir, "events.jsonl");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("port 7311", "port 7312"));
    const r = await cli(["memory", "verify", "--project", root, "--json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.findings.length).toBe(2);
    expect(report.findings[0].problem).toBe("changed");
    // Truncated below what was promoted from.
    writeFileSync(file, text.slice(0, 50));
    appendFileSync(file, "\n");
    expect(
      JSON.parse((await cli(["memory", "verify", "--project", root, "--json"])).stdout).findings[0].reason,
    ).toMatch(/shorter/);
  });

  it("edit: a new title and text, redacted again, the id and source kept; --dry-run changes nothing", async () => {
    const root = project();
    const [id] = await promoted(root);
    const before = JSON.parse((await cli(["memory", "show", id!, "--project", root, "--json"])).stdout);
    const dry = await cli([
      "memory",
      "edit",
      id!,
      "--project",
      root,
      "--text",
      "the gizmo moved to 7400",
      "--dry-run",
    ]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("Nothing stored (--dry-run).");
    expect(JSON.parse((await cli(["memory", "show", id!, "--project", root, "--json"])).stdout)).toEqual(
      before,
    );
    const r = await cli([
      "memory",
      "edit",
      id!,
      "--project",
      root,
      "--title",
      "Gizmo port",
      "--text",
      "The gizmo listens on 7400 now; deploy with key AKIAQ3ZT7RBX5MWN2KPD",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(r.stdout).item;
    expect(after).toMatchObject({
      id,
      kind: before.kind,
      title: "Gizmo port",
      body: "The gizmo listens on 7400 now; deploy with key [REDACTED:aws_access_key_id]",
      source: before.source,
      created_at: before.created_at,
    });
    expect(after.edited_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(readFileSync(memoryPath(root)).includes("AKIAQ3ZT7RBX5MWN2KPD")).toBe(false);
    expect(
      JSON.parse((await cli(["memory", "search", "7400", "--project", root, "--json"])).stdout).hits[0].id,
    ).toBe(id);
    expect((await cli(["memory", "search", "7311", "--project", root])).code).toBe(1);
    const unchanged = await cli(["memory", "edit", id!, "--project", root, "--title", "Gizmo port"]);
    expect(unchanged.stdout).toContain("unchanged");
  });

  it("edit: text from a file or stdin; no change given without a terminal, an empty text or an unknown id are refused", async () => {
    const root = project();
    const [id] = await promoted(root);
    const file = join(root, "new.txt");
    writeFileSync(file, "text from a file");
    expect((await cli(["memory", "edit", id!, "--project", root, "--text-file", file])).code).toBe(0);
    const piped = await cli(
      ["memory", "edit", id!, "--project", root, "--text-file", "-"],
      "text from stdin",
    );
    expect(piped.code).toBe(0);
    expect(JSON.parse((await cli(["memory", "show", id!, "--project", root, "--json"])).stdout).body).toBe(
      "text from stdin",
    );
    const none = await cli(["memory", "edit", id!, "--project", root]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--title, --text or --text-file");
    expect((await cli(["memory", "edit", id!, "--project", root, "--text", "  "])).code).toBe(2);
    expect(
      (await cli(["memory", "edit", id!, "--project", root, "--text", "a", "--text-file", file])).code,
    ).toBe(2);
    expect((await cli(["memory", "edit", "m1-nope", "--project", root, "--title", "x"])).code).toBe(3);
  });

  it("edit on a terminal opens $EDITOR on the title and text, and stores what it saved", async () => {
    const root = project();
    const [id] = await promoted(root);
    const editor = join(root, "editor.sh");
    // An editor that replaces the file with a new title, a blank line and a new text.
    writeFileSync(editor, `#!/bin/sh\nprintf 'Edited title\\n\\nEdited body line\\n' > "$1"\n`, {
      mode: 0o700,
    });
    const command = [process.execPath, CLI, "memory", "edit", id!, "--project", root]
      .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
      .join(" ");
    const scriptArgs =
      process.platform === "darwin"
        ? ["-q", "/dev/null", "sh", "-c", command]
        : ["-qec", command, "/dev/null"];
    const r = spawnSync("script", scriptArgs, {
      input: "",
      encoding: "utf8",
      env: { ...process.env, EDITOR: editor },
    });
    expect(r.status, r.stdout).toBe(0);
    const shown = JSON.parse((await cli(["memory", "show", id!, "--project", root, "--json"])).stdout);
    expect(shown).toMatchObject({ title: "Edited title", body: "Edited body line" });
  });

  it("a symlinked memory.sqlite is refused (exit 1) and its target never written", async () => {
    const root = project();
    const target = linkedMemory(root, "target.bin", "not yours");
    recordEvents(spec(root), [event("user_prompt", "p1", { prompt: "which port does the gizmo use?" })]);
    const r = await cli(["promote", "last", "--project", root, "--yes", "--kinds", "user_prompt"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/symlink/);
    expect((await cli(["memory", "list", "--project", root])).code).toBe(1);
    expect(readFileSync(target, "utf8")).toBe("not yours");
  });

  it("an events.jsonl replaced by a symlink is refused with a clear error, not followed", async () => {
    const root = project();
    recordEvents(spec(root), [event("user_prompt", "p1", { prompt: "hello there" })]);
    const ref = findSession(root, "last");
    const elsewhere = join(root, "elsewhere.jsonl");
    writeFileSync(elsewhere, readFileSync(join(ref.dir, "events.jsonl")));
    rmSync(join(ref.dir, "events.jsonl"));
    symlinkSync(elsewhere, join(ref.dir, "events.jsonl"));
    const r = await cli(["promote", "last", "--project", root, "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/events\.jsonl is a symlink; refusing to read it/);
    expect(r.stderr).not.toContain("unexpected");
    expect(existsSync(memoryPath(root))).toBe(false);
  });
});
