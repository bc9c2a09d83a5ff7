// `tapedeck import` end to end below the command line: planned from a user's Claude history, written through
// the core, sealed, idempotent, incremental, and never writing what the hooks recorded or a planted secret.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyChecksums } from "../../src/core/archive/recovery.ts";
import { Envelope, Manifest } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession, inspectSession } from "../../src/core/read/sessions.ts";
import { REASONS } from "../../src/import/plan.ts";
import { runImport } from "../../src/import/run.ts";
import { expectNoSecrets, expectPrivateModes, readEventsFile, walk } from "../e2e/archive-checks.ts";
import { ANTHROPIC_KEY, GITHUB_TOKEN, plantSecrets } from "../e2e/planted-secrets.ts";
import { CAN_CHOWN, giveToOtherUser, snapshot } from "../helpers/other-user.ts";
import { identity, spec } from "../helpers/session.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import {
  appendLines,
  claudeTurns,
  envFor,
  fixtureLines,
  importAll,
  plan,
  SAMPLE_ID,
  SUBAGENT_SESSION,
  transcriptPath,
  writeSubagent,
  writeTranscript,
} from "./fixture.ts";

const temp = useTempProjects("tapedeck-import-");

function setUp() {
  const root = temp();
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(join(project, ".git"));
  return { home, project };
}

const sessionDir = (project: string, id: string) => join(project, ".tapedeck", "claude-sessions", id);
const manifestOf = (dir: string) =>
  Manifest.parse(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")));
const eventsOf = (dir: string) => readEventsFile(join(dir, "events.jsonl"));
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("importing a Claude session", () => {
  it("writes a sealed session of the source's times, its import record, and a git-ignored private .tapedeck", () => {
    const { home, project } = setUp();
    const source = writeTranscript(
      home,
      project,
      SAMPLE_ID,
      fixtureLines("transcript.sample.jsonl", project),
    );
    const result = importAll(home, project);
    expect(result).toMatchObject({ sessions: 1, events: 8, failed: 0, skipped: [] });
    const dir = sessionDir(project, SAMPLE_ID);
    const m = manifestOf(dir);
    expect(m).toMatchObject({
      identity_source: "import",
      status: "complete",
      // The first record read (the prompt): Claude's queue records before it say nothing tapedeck keeps.
      started_at: "2026-11-29T18:40:22.726Z",
      ended_at: "2026-11-29T18:40:23.273Z",
      import: { source: { path: source, bytes: statSync(source).size, sha256: sha256(source) } },
      tokens: { input_tokens: 5742, output_tokens: 38 },
    });
    expect(m.import?.not_captured).toContain("session_end");
    expect(verifyChecksums(dir).ok).toBe(true);
    for (const e of eventsOf(dir)) Envelope.parse(e);
    expect(readFileSync(join(project, ".tapedeck", ".gitignore"), "utf8")).toBe("*\n");
    expectPrivateModes(join(project, ".tapedeck"));
    // The registry knows the project of the session, for list --all-projects and the proxy.
    const entry = JSON.parse(
      readFileSync(join(home, ".tapedeck", "registry", "claude", `${SAMPLE_ID}.json`), "utf8"),
    );
    expect(entry.project_root).toBe(project);
  });

  it("a second import adds nothing and writes nothing", () => {
    const { home, project } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    importAll(home, project);
    const files = walk(join(project, ".tapedeck")).map(({ path, stat }) => [path, stat.mtimeMs, stat.size]);
    const again = plan(home, project);
    expect(again.sessions).toEqual([]);
    expect(again.unchanged).toBe(1);
    expect(runImport(again, { env: envFor(home) })).toMatchObject({ sessions: 0, events: 0, unchanged: 1 });
    expect(walk(join(project, ".tapedeck")).map(({ path, stat }) => [path, stat.mtimeMs, stat.size])).toEqual(
      files,
    );
  });

  it("a transcript that grew gets only its new lines: the events of one import of the whole file", () => {
    const { home, project } = setUp();
    const lines = fixtureLines("transcript.compacted.sample.jsonl", project);
    const path = writeTranscript(home, project, SAMPLE_ID, lines.slice(0, 40));
    const first = importAll(home, project);
    appendLines(path, lines.slice(40));
    const grown = plan(home, project);
    expect(grown.sessions.map((s) => [s.status, s.files[0]!.from])).toEqual([
      ["grown", first.imported[0]!.bytes],
    ]);
    const second = runImport(grown, { env: envFor(home) });
    expect(second.imported[0]).toMatchObject({ status: "grown", duplicates: 0 });
    expect(second.imported[0]!.bytes).toBe(statSync(path).size - first.imported[0]!.bytes);
    const dir = sessionDir(project, SAMPLE_ID);
    const events = eventsOf(dir);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(verifyChecksums(dir).ok).toBe(true);
    expect(manifestOf(dir).import?.source.sha256).toBe(sha256(path));
    // The same file imported in one go: the same events.
    rmSync(dir, { recursive: true });
    importAll(home, project);
    const once = eventsOf(dir);
    expect(events.map((e) => e.event_id).sort()).toEqual(once.map((e) => e.event_id).sort());
  });

  it("a transcript rewritten under its name is read again from its start, and nothing is recorded twice", () => {
    const { home, project } = setUp();
    const lines = fixtureLines("transcript.sample.jsonl", project);
    const path = writeTranscript(home, project, SAMPLE_ID, lines);
    importAll(home, project);
    // Claude rewrote the file: the same records, a blank-padded first line, one record more.
    writeTranscript(home, project, SAMPLE_ID, [
      `${lines[0]} `,
      ...lines.slice(1),
      lines[2]!.replace("SCENARIO_BASH", "again").replace(/"uuid":"[^"]+"/, '"uuid":"new-one"'),
    ]);
    const result = importAll(home, project);
    expect(result.imported[0]).toMatchObject({ events: 1, duplicates: 8 });
    expect(manifestOf(sessionDir(project, SAMPLE_ID)).import?.source.sha256).toBe(sha256(path));
  });

  it("leaves an incomplete last line for the next import, and counts a malformed one", () => {
    const { home, project } = setUp();
    const lines = fixtureLines("transcript.sample.jsonl", project);
    const last = lines.at(-5)!;
    const path = writeTranscript(
      home,
      project,
      SAMPLE_ID,
      [...lines.slice(0, -5), '{"type":"user","message":'].slice(0),
    );
    writeFileSync(path, `${readFileSync(path, "utf8")}${last.slice(0, 40)}`);
    const first = importAll(home, project);
    expect(first.imported[0]).toMatchObject({ torn_tail: true, malformed_lines: 1 });
    writeFileSync(path, `${readFileSync(path, "utf8")}${last.slice(40)}\n${lines.slice(-4).join("\n")}\n`);
    const second = importAll(home, project);
    expect(second.imported[0]).toMatchObject({ torn_tail: false, status: "grown" });
    expect(
      eventsOf(sessionDir(project, SAMPLE_ID)).filter((e) => e.kind === "assistant_message"),
    ).toHaveLength(2);
  });

  it("puts a subagent's events inside the turn that started it, between the Agent call and its result", () => {
    const { home, project } = setUp();
    const agentCall = {
      type: "assistant",
      uuid: "call-1",
      timestamp: "2026-11-29T18:40:36.000Z",
      promptId: undefined,
      message: {
        id: "m-agent",
        content: [{ type: "tool_use", id: "toolu_agent", name: "Agent", input: { prompt: "go" } }],
      },
    };
    const agentResult = {
      type: "user",
      uuid: "res-1",
      promptId: "7964defa-fec8-45f5-be25-79f61e71e097",
      timestamp: "2026-11-29T18:40:37.100Z",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_agent", content: "done" }],
      },
      toolUseResult: { status: "completed", agentId: "aaffe666145fc9347" },
    };
    const prompt = {
      type: "user",
      uuid: "p-1",
      promptId: "7964defa-fec8-45f5-be25-79f61e71e097",
      cwd: project,
      timestamp: "2026-11-29T18:40:35.000Z",
      message: { role: "user", content: "delegate" },
    };
    writeTranscript(
      home,
      project,
      SUBAGENT_SESSION,
      [prompt, agentCall, agentResult].map((r) => JSON.stringify(r)),
    );
    writeSubagent(home, project, SUBAGENT_SESSION, fixtureLines("transcript.subagent.sample.jsonl", project));
    importAll(home, project);
    const kinds = eventsOf(sessionDir(project, SUBAGENT_SESSION)).map(
      (e) => `${e.kind}${e.agent_id ? "*" : ""}`,
    );
    const call = kinds.indexOf("tool_call");
    const start = kinds.indexOf("subagent_start*");
    const stop = kinds.indexOf("subagent_stop*");
    const result = kinds.lastIndexOf("tool_result");
    expect(call).toBeLessThan(start);
    expect(start).toBeLessThan(stop);
    expect(stop).toBeLessThan(result);
  });
});

describe("a session whose first record is large", () => {
  it("is read for its cwd like any other: a first record of several MB, or one past the bounded reader's line", () => {
    const { home, project } = setUp();
    const lines = fixtureLines("transcript.sample.jsonl", project);
    const prompt = JSON.parse(lines[2]!);
    // A pasted document of 5 MiB: the first record, and it names the cwd.
    prompt.message.content = "lorem ipsum ".repeat(450_000);
    writeTranscript(home, project, SAMPLE_ID, [JSON.stringify(prompt), ...lines.slice(3)]);
    // An attachment of 20 MiB first, with no cwd of its own: passed over as it streams by.
    const other = JSON.parse(lines[3]!);
    other.attachment.content = "x".repeat(20 * 1024 * 1024);
    other.cwd = undefined;
    writeTranscript(home, project, SUBAGENT_SESSION, [JSON.stringify(other), ...lines.slice(2)]);
    const found = plan(home, project);
    expect(found.skipped).toEqual([]);
    expect(found.sessions.map((s) => [s.session.sessionId, s.session.cwd]).sort()).toEqual(
      [
        [SAMPLE_ID, project],
        [SUBAGENT_SESSION, project],
      ].sort(),
    );
    const result = runImport(found, { env: envFor(home) });
    expect(result).toMatchObject({ sessions: 2, failed: 0 });
    const first = eventsOf(sessionDir(project, SAMPLE_ID));
    expect(first.map((e) => e.kind).slice(0, 2)).toEqual(["session_start", "user_prompt"]);
  });
});

describe("an import stopped part-way", () => {
  const cursorPath = (project: string) => join(sessionDir(project, SAMPLE_ID), "import-cursor.json");
  /** A pid no process has any more. */
  const gonePid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

  it("is resumed from its cursor whatever its events file's size, and inspect says so until then", () => {
    const { home, project } = setUp();
    const path = writeTranscript(home, project, SAMPLE_ID, claudeTurns(project, 0, 20));
    importAll(home, project);
    const cursor = JSON.parse(readFileSync(cursorPath(project), "utf8"));
    appendLines(path, claudeTurns(project, 20, 40));
    expect(importAll(home, project).events).toBe(280);
    // What a run killed after its last append and before its cursor leaves: every event, the old cursor.
    const started = "2026-12-01T10:00:00.000Z";
    writeFileSync(
      cursorPath(project),
      JSON.stringify({ ...cursor, in_progress: { started_at: started, pid: gonePid() } }),
    );
    const again = plan(home, project);
    expect(again.skipped).toEqual([]);
    expect(again.sessions.map((s) => [s.status, s.resumed, s.files[0]!.from])).toEqual([
      ["grown", true, cursor.files[Object.keys(cursor.files)[0]!].offset],
    ]);
    const interrupted = inspectSession(findSession(project, SAMPLE_ID));
    expect(interrupted).toMatchObject({ status: "incomplete", import_interrupted: { started_at: started } });
    expect(interrupted.incomplete_reason).toContain("run tapedeck import claude again to resume it");
    const resumed = runImport(again, { env: envFor(home) });
    expect(resumed.imported[0]).toMatchObject({ resumed: true, events: 0, duplicates: 280, error: null });
    expect(JSON.parse(readFileSync(cursorPath(project), "utf8")).in_progress).toBeUndefined();
    expect(inspectSession(findSession(project, SAMPLE_ID))).toMatchObject({
      status: "complete",
      import_interrupted: null,
    });
    const ids = eventsOf(sessionDir(project, SAMPLE_ID)).map((e) => e.event_id);
    expect(new Set(ids).size).toBe(1 + 7 * 60);
    expect(ids).toHaveLength(1 + 7 * 60);
  });

  describe("in an archive an older tapedeck wrote (its cursor version 1, its hooks marking nothing)", () => {
    function olderArchive() {
      const { home, project } = setUp();
      const path = writeTranscript(home, project, SAMPLE_ID, claudeTurns(project, 0, 10));
      importAll(home, project);
      const dir = sessionDir(project, SAMPLE_ID);
      const { files } = JSON.parse(readFileSync(cursorPath(project), "utf8"));
      const eventsBytes = statSync(join(dir, "events.jsonl")).size;
      const v1 = JSON.stringify({ schema_version: 1, files, events_bytes: eventsBytes });
      writeFileSync(cursorPath(project), v1);
      /** As the older build's hooks appended: no mark. */
      const hooksAppend = (events: Parameters<typeof recordEvents>[1]) => {
        recordEvents(spec(project, { identity: identity(SAMPLE_ID, "claude") }), events);
        const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
        delete m.hooks_since_import;
        writeFileSync(join(dir, "manifest.json"), JSON.stringify(m));
      };
      return { home, project, path, dir, v1, hooksAppend };
    }

    it("events past its cursor that only an import writes are an interrupted import's: resumed", () => {
      const { home, project, path, v1 } = olderArchive();
      appendLines(path, claudeTurns(project, 10, 10));
      // The older build's run, killed after its appends and before its cursor.
      expect(importAll(home, project).events).toBe(70);
      writeFileSync(cursorPath(project), v1);
      const again = plan(home, project);
      expect(again.skipped).toEqual([]);
      expect(runImport(again, { env: envFor(home) }).imported[0]).toMatchObject({
        events: 0,
        duplicates: 70,
      });
      expect(plan(home, project).unchanged).toBe(1);
    });

    it.each([
      [
        "a resume",
        {
          kind: "session_start",
          event_id: "r1",
          payload: { hook_event_name: "SessionStart", source: "resume" },
        },
      ],
      [
        "a turn's Stop",
        {
          kind: "assistant_message",
          event_id: "st1",
          payload: { hook_event_name: "Stop", last_assistant_message: "done" },
        },
      ],
      [
        "a session end",
        {
          kind: "session_end",
          event_id: "e1",
          payload: { hook_event_name: "SessionEnd", reason: "exit" },
          terminal: true,
        },
      ],
    ] as const)("events past its cursor with %s are the hooks': left to them", (_n, hookEvent) => {
      const { home, project, path, hooksAppend } = olderArchive();
      hooksAppend([
        {
          kind: "user_prompt",
          event_id: "p-hook",
          payload: { hook_event_name: "UserPromptSubmit", prompt: "more" },
        },
        { ...hookEvent },
      ]);
      appendLines(path, claudeTurns(project, 10, 1));
      expect(plan(home, project).skipped).toEqual([{ source: path, reason: REASONS.hooksSince }]);
    });
  });
});

describe("what an import leaves alone", () => {
  it("a session the hooks recorded is not imported twice, and says why", () => {
    const { home, project } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    const hooked = recordEvents(spec(project, { identity: identity(SAMPLE_ID, "claude") }), [
      { kind: "session_start", event_id: "s1", payload: { source: "startup" } },
    ]);
    const before = readFileSync(join(hooked.sessionDir, "events.jsonl"));
    const result = importAll(home, project);
    expect(result.sessions).toBe(0);
    expect(result.skipped).toEqual([
      { source: transcriptPath(home, project, SAMPLE_ID), reason: REASONS.hooks },
    ]);
    expect(readFileSync(join(hooked.sessionDir, "events.jsonl"))).toEqual(before);
  });

  it("an imported session the hooks went on recording is not imported again", () => {
    const { home, project } = setUp();
    const lines = fixtureLines("transcript.sample.jsonl", project);
    const path = writeTranscript(home, project, SAMPLE_ID, lines.slice(0, 20));
    importAll(home, project);
    recordEvents(spec(project, { identity: identity(SAMPLE_ID, "claude") }), [
      { kind: "session_start", event_id: "resume-1", payload: { source: "resume" } },
    ]);
    appendLines(path, lines.slice(20));
    expect(plan(home, project).skipped).toEqual([{ source: path, reason: REASONS.hooksSince }]);
  });

  it("sessions of other projects are left out, counted; --all-projects takes each to its own and reports a gone one", () => {
    const { home, project } = setUp();
    const other = join(temp(), "other");
    mkdirSync(join(other, ".git"), { recursive: true });
    const gone = join(temp(), "deleted-project");
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    writeTranscript(home, other, "other-session", fixtureLines("transcript.sample.jsonl", other));
    writeTranscript(home, gone, "gone-session", fixtureLines("transcript.sample.jsonl", gone));
    const here = plan(home, project);
    expect(here.sessions.map((s) => s.session.sessionId)).toEqual([SAMPLE_ID]);
    expect(here.elsewhere).toBe(2);
    const all = plan(home, project, { allProjects: true });
    expect(all.sessions.map((s) => [s.session.sessionId, s.project]).sort()).toEqual(
      [
        [SAMPLE_ID, project],
        ["other-session", other],
      ].sort(),
    );
    expect(all.skipped).toEqual([
      {
        source: transcriptPath(home, gone, "gone-session"),
        reason: `project not found: ${gone} (moved or deleted)`,
      },
    ]);
  });

  it("--since leaves out sessions last active before it", () => {
    const { home, project } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    expect(plan(home, project, { sinceMs: Date.parse("2026-11-30") }).skipped[0]?.reason).toBe(REASONS.since);
    expect(plan(home, project, { sinceMs: Date.parse("2026-11-29") }).sessions).toHaveLength(1);
  });
});

describe("a project tapedeck may not write into (another local user's)", () => {
  it.runIf(CAN_CHOWN)(
    "--all-projects: a project directory another user owns is reported in skipped, nothing written there",
    () => {
      const { home, project } = setUp();
      const source = writeTranscript(
        home,
        project,
        SAMPLE_ID,
        fixtureLines("transcript.sample.jsonl", project),
      );
      giveToOtherUser(project);
      const before = snapshot(project);
      const planned = plan(home, project, { allProjects: true });
      expect(planned.sessions).toEqual([]);
      expect(planned.skipped).toEqual([
        {
          source,
          reason: `${REASONS.refused}: ${project} belongs to another user (uid 65534); tapedeck writes only into your own directories`,
        },
      ]);
      const result = runImport(planned, { env: envFor(home) });
      expect(result).toMatchObject({ sessions: 0, events: 0, failed: 0, imported: [] });
      expect(snapshot(project)).toEqual(before);
    },
  );

  it("a 0666 events.jsonl planted where the session would go is never appended to, and the plan says why", () => {
    const { home, project } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    const dir = sessionDir(project, SAMPLE_ID);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "events.jsonl"), "");
    chmodSync(join(dir, "events.jsonl"), 0o666);
    const result = importAll(home, project, { allProjects: true });
    expect(result.sessions).toBe(0);
    expect(result.skipped[0]?.reason).toMatch(
      new RegExp(`^${REASONS.refused}: .*events\\.jsonl is open to group or others \\(mode 0666\\)`),
    );
    expect(readFileSync(join(dir, "events.jsonl"), "utf8")).toBe("");
  });
});

describe("a planted secret", () => {
  it("is in no byte under .tapedeck: events, manifest, cursor (a subagent's answer) all redacted", () => {
    const { secrets, needles } = plantSecrets({ github_token: GITHUB_TOKEN, anthropic_key: ANTHROPIC_KEY });
    const { home, project } = setUp();
    const plant = (l: string) =>
      l
        .replace("SCENARIO_BASH please run echo hello", `use ${secrets.github_token} please`)
        .replace("Subagent finished: from-subagent", `Subagent finished: ${secrets.anthropic_key}`)
        .replace('"stdout":"hello"', `"stdout":"token=${secrets.github_token}"`);
    writeTranscript(
      home,
      project,
      SUBAGENT_SESSION,
      fixtureLines("transcript.sample.jsonl", project).map(plant),
    );
    writeSubagent(
      home,
      project,
      SUBAGENT_SESSION,
      fixtureLines("transcript.subagent.sample.jsonl", project).map(plant),
    );
    const result = importAll(home, project);
    expect(result.sessions).toBe(1);
    const dir = sessionDir(project, SUBAGENT_SESSION);
    const cursor = readFileSync(join(dir, "import-cursor.json"), "utf8");
    expect(cursor).toContain("[REDACTED:");
    expectNoSecrets(join(project, ".tapedeck"), needles);
    for (const needle of needles) expect(JSON.stringify(result)).not.toContain(needle);
  });
});
