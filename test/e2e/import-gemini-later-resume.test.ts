// @module-tag gemini
/**
 * The real `gemini` (0.61) resumed in a later minute than its session's file is named for, then imported.
 *
 * What Gemini does (read from its recording and retention code, and seen here): at start it writes a header
 * into a file named `session-<minute>-<id prefix>.jsonl` before it takes up the resumed file. In the same
 * minute that is the resumed file; later it is a second file, holding that header and the context only,
 * while the turn goes into the first. The next start of any other session finds the second file without a
 * resumable conversation and deletes every file of its id prefix: the whole session is gone from Gemini's
 * history. tapedeck reads the two files as one session (the resume's start before the turn it began), and
 * what it imported stays in the archive after Gemini deleted its own copy.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { GEMINI, runOk } from "./agents.ts";
import { readEventsFile } from "./archive-checks.ts";
import { useBuild } from "./sandboxes.ts";

useBuild();

/** Until a second into the next minute: the resume's file is then named for another minute. */
const nextMinute = () => new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 1_000));

describe("a Gemini session resumed a minute later, imported", () => {
  const sb = GEMINI.sandbox("import-gemini-later");
  const chats = () => join(sb.home, ".gemini", "tmp", "project", "chats");
  const filesOf = (id: string) => readdirSync(chats()).filter((f) => f.endsWith(`-${id.slice(0, 8)}.jsonl`));
  const eventsOf = (id: string): Envelope[] =>
    readEventsFile(join(sb.projectDir, ".tapedeck", "gemini-sessions", id, "events.jsonl"));
  let id = "";

  it("reads the session's two files as one: the resume's start is a resume, before the turn it began", async () => {
    id = GEMINI.session(await runOk(GEMINI, sb, ["SCENARIO_BASH echo first"]))!;
    await nextMinute();
    await runOk(GEMINI, sb, GEMINI.resume(id, "SCENARIO_TEXT a minute later"));
    expect(filesOf(id)).toHaveLength(2);

    const r = await sb.cli(["import", "gemini", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessions: 1, imported: [{ status: "new", duplicates: 0 }] });
    const events = eventsOf(id);
    const starts = events.filter((e) => e.kind === "session_start");
    expect(starts.map((e) => e.payload.source)).toEqual(["import", "resume"]);
    const prompts = events.filter((e) => e.kind === "user_prompt");
    expect(prompts.map((e) => e.payload.prompt)).toEqual([
      "SCENARIO_BASH echo first",
      "SCENARIO_TEXT a minute later",
    ]);
    expect(events[events.indexOf(starts[1]!) + 1]).toBe(prompts[1]);
  }, 180_000);

  it("keeps the session after Gemini's next start deletes its files; a new import takes only the new one", async () => {
    const before = readFileSync(join(sb.projectDir, ".tapedeck", "gemini-sessions", id, "events.jsonl"));
    const other = GEMINI.session(await runOk(GEMINI, sb, ["SCENARIO_TEXT another session"]))!;
    expect(filesOf(id)).toEqual([]);

    const show = await sb.cli(["show", id]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("SCENARIO_TEXT a minute later");
    const r = await sb.cli(["import", "gemini", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(
      JSON.parse(r.stdout).imported.map((s: { provider_session_id: string }) => s.provider_session_id),
    ).toEqual([other]);
    expect(readFileSync(join(sb.projectDir, ".tapedeck", "gemini-sessions", id, "events.jsonl"))).toEqual(
      before,
    );
    expect(existsSync(join(sb.projectDir, ".tapedeck", "gemini-sessions", other))).toBe(true);
  }, 120_000);
});
