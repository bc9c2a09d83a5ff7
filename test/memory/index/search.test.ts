import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordEvents } from "../../../src/core/archive/session-store.ts";
import { registeredProjects } from "../../../src/core/read/registry-projects.ts";
import { indexPath, updateIndex } from "../../../src/memory/index/index.ts";
import { MARK_CLOSE, MARK_OPEN } from "../../../src/memory/index/index-text.ts";
import { parseQuery } from "../../../src/memory/index/query.ts";
import { searchDatabase, splitMarks, substringSnippet } from "../../../src/memory/index/search.ts";
import { openDatabase } from "../../../src/memory/index/sqlite.ts";
import { event, spec, useTempProjects } from "../../helpers/session.ts";
import { search, seed } from "./search-fixture.ts";

const project = useTempProjects("tapedeck-search-");

describe("search", () => {
  it("filters by provider, kind, session (id, provider id, prefix) and time", () => {
    const root = project();
    seed(root);
    expect(search(root, "deploy").hits).toHaveLength(2);
    expect(search(root, "deploy provider:codex").hits.map((h) => h.provider)).toEqual(["codex"]);
    expect(search(root, "deploy", { providers: ["claude"] }).hits.map((h) => h.provider_session_id)).toEqual([
      "alpha-1",
    ]);
    expect(search(root, "deploy OR deployed kind:assistant_message").hits.map((h) => h.sequence)).toEqual([
      2,
    ]);
    expect(search(root, "deploy", { sessions: ["codex:beta-2"] }).hits).toHaveLength(1);
    expect(search(root, "deploy", { sessions: ["alph"] }).hits.map((h) => h.provider)).toEqual(["claude"]);
    expect(search(root, "deploy", { since: "2026-03-01T00:00:00.000Z" }).hits.map((h) => h.provider)).toEqual(
      ["codex"],
    );
    // A flag and a query filter both restrict: nothing is both claude and codex.
    expect(search(root, "deploy provider:codex", { providers: ["claude"] }).hits).toHaveLength(0);
  });

  it("limits the hits and excludes -words", () => {
    const root = project();
    seed(root);
    expect(search(root, "deploy", {}, 1).hits).toHaveLength(1);
    expect(search(root, "deploy -production").hits.map((h) => h.provider)).toEqual(["claude"]);
  });

  it("ranks a very common term among its newest matches, and all of them when filters leave too few there", () => {
    const root = project();
    recordEvents(spec(root), [
      event("tool_call", "old", { tool_name: "Bash", tool_input: { command: "common common common" } }),
      ...Array.from({ length: 12 }, (_, i) => event("user_prompt", `p${i}`, { prompt: `common word ${i}` })),
    ]);
    updateIndex(root);
    const db = openDatabase(indexPath(root), { readonly: true });
    try {
      const windowed = searchDatabase(db, root, parseQuery("common"), {}, 3, 5);
      // The oldest event scores best but lies outside the newest five matches.
      expect(windowed.map((h) => h.kind)).toEqual(["user_prompt", "user_prompt", "user_prompt"]);
      expect(windowed.every((h) => h.sequence >= 9)).toBe(true);
      expect(searchDatabase(db, root, parseQuery("common"), {}, 3)[0]!.kind).toBe("tool_call");
      expect(
        searchDatabase(db, root, parseQuery("common kind:tool_call"), {}, 3, 5).map((h) => h.sequence),
      ).toEqual([1]);
    } finally {
      db.close();
    }
  });

  it("answers no hits for a project without recordings, creating nothing", () => {
    const root = project();
    expect(search(root, "anything")).toEqual({ hits: [], stale: false });
  });

  it("marks substring matches case-insensitively and gives their offsets", () => {
    const s = substringSnippet("Edit SRC/core/Store.ts then store.ts again", ["store.ts"]);
    expect(s).toBe(
      `Edit SRC/core/${MARK_OPEN}Store.ts${MARK_CLOSE} then ${MARK_OPEN}store.ts${MARK_CLOSE} again`,
    );
    expect(splitMarks(s)).toEqual({
      text: "Edit SRC/core/Store.ts then store.ts again",
      matches: [
        [14, 22],
        [28, 36],
      ],
    });
  });

  it("lists the registry's projects, the gone ones apart", () => {
    const home = project();
    const live = project();
    const write = (provider: string, id: string, root: string) => {
      mkdirSync(join(home, "registry", provider), { recursive: true });
      writeFileSync(
        join(home, "registry", provider, `${id}.json`),
        JSON.stringify({ provider, provider_session_id: id, project_root: root, registered_at: "x" }),
      );
    };
    write("claude", "a", live);
    write("codex", "b", live);
    write("claude", "c", join(home, "gone"));
    writeFileSync(join(home, "registry", "claude", "junk.json"), "{not json");
    expect(registeredProjects({ env: { TAPEDECK_HOME: home } })).toEqual({
      present: [live],
      missing: [join(home, "gone")],
    });
  });
});
