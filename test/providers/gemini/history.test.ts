// Gemini CLI's chat recordings as `tapedeck import` reads them: a file of upserts gives each message's events
// once, tool calls paired by the chat's own ids, every token count of a message in one turn_usage, a resume's
// start and a compression's snapshot, and a read split across two imports giving the events of one.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planImport } from "../../../src/import/plan.ts";
import { runImport } from "../../../src/import/run.ts";
import { geminiHistory } from "../../../src/providers/gemini/history.ts";
import { normalizeGeminiHook } from "../../../src/providers/gemini/normalize.ts";
import type { HistorySkip } from "../../../src/providers/history.ts";
import { readEventsFile } from "../../e2e/archive-checks.ts";
import { providerFixtures } from "../../helpers/fixtures.ts";
import { useTempProjects } from "../../helpers/temp-project.ts";
import { expectEverySplitAlike, expectOnlyHooksWrite, expectResumedAlike } from "../history-contract.ts";
import { mainFile, mapFile, mapLines, session, tokenSums } from "../history-helpers.ts";

const fixtures = providerFixtures("gemini");
const SAMPLE = fixtures.path("chat.sample.jsonl");
const RESUMED = fixtures.path("chat.resumed-and-compressed.sample.jsonl");
// Gemini CLI 0.61 resumed in a later minute than the file's name: the resumed turn went into the first file,
// the resume's header (and its context) into a file named for the new minute.
const LATER = fixtures.path("chat.resumed-later.sample.jsonl");
const LATER_START = fixtures.path("chat.resumed-later.start.sample.jsonl");
const LATER_ID = "afdd96e3-d934-471b-9fc9-db64c54a0f59";
const temp = useTempProjects("tapedeck-gemini-history-");

describe("a Gemini chat file as events", () => {
  const { events, malformed } = mapFile(geminiHistory, session("gemini", "3710525e"), SAMPLE);

  it("gives each message once although the file writes a message again when its tool calls come", () => {
    expect(malformed).toBe(0);
    expect(events.map((e) => e.kind)).toEqual([
      "session_start",
      "user_prompt",
      "assistant_message",
      "turn_usage",
      "tool_call",
      "tool_result",
      "assistant_message",
      "turn_usage",
    ]);
    const turn = events[1]!.turn_id;
    expect(turn).toMatch(/^turn-/);
    for (const e of events.slice(1)) expect(e.turn_id).toBe(turn);
  });

  it("pairs the tool call and its result by the chat's call id, with the result as AfterTool reports it", () => {
    const call = events.find((e) => e.kind === "tool_call")!;
    const result = events.find((e) => e.kind === "tool_result")!;
    expect(call.payload).toMatchObject({
      hook_event_name: "BeforeTool",
      tool_name: "run_shell_command",
      tool_input: { command: "echo hello" },
    });
    expect(result.payload.tool_use_id).toBe(call.payload.tool_use_id);
    expect(result.payload.tool_response).toMatchObject({
      llmContent: expect.stringContaining("Output: hello"),
      returnDisplay: "hello",
    });
  });

  it("has every token count of a message in one turn_usage (the hooks split them between AfterModel and the chat file)", () => {
    const usage = events.filter((e) => e.kind === "turn_usage");
    expect(usage[0]!.usage).toEqual({
      source: "gemini-chat",
      model: "gemini-3.8-flash",
      message_id: "709af43d-11ad-423b-b3ff-0be25ac49d32",
      input_tokens: 171,
      output_tokens: 26,
      cache_read_input_tokens: 0,
      reasoning_output_tokens: 9,
      total_tokens: 206,
    });
    expect(tokenSums(usage)).toMatchObject({
      input_tokens: 171 + 293,
      output_tokens: 26 + 12,
      total_tokens: 206 + 305,
    });
  });

  it("a resumed and compressed chat has a second start and one compaction, and no repeat of the old messages", () => {
    const { events } = mapFile(geminiHistory, session("gemini", "67fbefb4"), RESUMED);
    expect(events.filter((e) => e.kind === "session_start").map((e) => e.payload.source)).toEqual([
      "import",
      "resume",
    ]);
    const compactions = events.filter((e) => e.kind === "compaction");
    expect(compactions).toHaveLength(1);
    expect(compactions[0]!.payload).toMatchObject({ detected_by: "state_snapshot", phase: "post" });
    expect(events.filter((e) => e.kind === "user_prompt").map((e) => e.payload.prompt)).toEqual([
      "SCENARIO_BASH run echo hello",
      "SCENARIO_TEXT again",
    ]);
  });

  it.each([
    ["sample", SAMPLE],
    ["resumed", RESUMED],
  ])("read in two imports (%s), at every split, gives the events of one", (_n, path) => {
    expectEverySplitAlike(geminiHistory, session("gemini", "s"), path, true);
  });

  it.each([
    ["sample", SAMPLE],
    ["resumed", RESUMED],
  ])("stopped anywhere and resumed from its cursor (%s), gives no event twice", (_n, path) => {
    expectResumedAlike(geminiHistory, session("gemini", "s"), path);
  });

  it("tells the hooks' own events from its own: a turn's answer and usage, an end", () => {
    const files = ["AfterAgent.json", "AfterModel.json", "SessionEnd.json"];
    expectOnlyHooksWrite(
      geminiHistory,
      files.flatMap((f) => normalizeGeminiHook(fixtures.json(f), {}).events),
    );
  });

  it("a shell command that failed is a tool_error, read from the Exit Code trailer as the hooks read it", () => {
    const line = JSON.stringify({
      id: "m1",
      timestamp: "2026-11-29T18:51:09.000Z",
      type: "gemini",
      content: "",
      toolCalls: [
        {
          id: "c1",
          name: "run_shell_command",
          args: { command: "exit 3" },
          status: "success",
          result: [
            {
              functionResponse: {
                id: "c1",
                name: "run_shell_command",
                response: { output: "Output: oops\nExit Code: 3\nProcess Group PGID: 1" },
              },
            },
          ],
        },
      ],
    });
    const { events } = mapLines(geminiHistory, session("gemini", "s"), mainFile("/c"), [line]);
    expect(events.find((e) => e.kind === "tool_error")?.payload).toMatchObject({
      exit_code: 3,
      success: false,
      tool_use_id: "c1",
    });
  });
});

describe("finding Gemini's sessions", () => {
  const discover = (env: Record<string, string>) => {
    const skipped: HistorySkip[] = [];
    return { found: geminiHistory.discover({ env, skip: (s) => skipped.push(s) }), skipped };
  };

  it("names each chat's project from .project_root, else projects.json, and says why a JSON file is no chat", () => {
    const home = temp();
    const tmp = join(home, ".gemini", "tmp");
    mkdirSync(join(tmp, "proj", "chats"), { recursive: true });
    mkdirSync(join(tmp, "other", "chats"), { recursive: true });
    copyFileSync(SAMPLE, join(tmp, "proj", "chats", "session-2026-11-29T18-49-3710525e.jsonl"));
    writeFileSync(join(tmp, "proj", ".project_root"), "/home/user/project");
    copyFileSync(RESUMED, join(tmp, "other", "chats", "session-2026-11-29T18-50-67fbefb4.jsonl"));
    writeFileSync(join(tmp, "other", "chats", "session-old.json"), "{}");
    writeFileSync(
      join(home, ".gemini", "projects.json"),
      JSON.stringify({ projects: { "/home/user/other": "other" } }),
    );
    const { found, skipped } = discover({ HOME: home });
    expect(found.map((s) => [s.sessionId, s.cwd]).sort()).toEqual([
      ["3710525e-c397-40d5-bfa5-db17c6fd2361", "/home/user/project"],
      ["67fbefb4-ab23-4799-af04-e087ad249b20", "/home/user/other"],
    ]);
    expect(skipped).toEqual([
      {
        source: join(tmp, "other", "chats", "session-old.json"),
        reason: expect.stringContaining("without sessionId and messages"),
      },
    ]);
    // GEMINI_CLI_HOME stands for the home directory, as in Gemini CLI.
    expect(discover({ HOME: temp(), GEMINI_CLI_HOME: home }).found).toHaveLength(2);
  });
});

describe("a resume in a later minute: its start in a file of its own", () => {
  function laterHome() {
    const root = temp();
    const home = join(root, "home");
    const project = join(root, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    const chats = join(home, ".gemini", "tmp", "project", "chats");
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(home, ".gemini", "tmp", "project", ".project_root"), project);
    // Listed in the other order than their minutes, as a copy or a clock change could leave them.
    copyFileSync(LATER_START, join(chats, "session-2026-12-02T12-53-afdd96e3.jsonl"));
    copyFileSync(LATER, join(chats, "session-2026-12-02T12-54-afdd96e3.jsonl"));
    return { home, project, chats };
  }

  it("is one session whose own file comes first, the other read from its header's time", () => {
    const { home, chats } = laterHome();
    const found = geminiHistory.discover({ env: { HOME: home }, skip: () => {} });
    expect(found).toHaveLength(1);
    expect(found[0]!.firstAt).toBe("2026-12-02T12:54:17.436Z");
    expect(found[0]!.files.map((f) => [f.path, f.firstAt])).toEqual([
      [join(chats, "session-2026-12-02T12-54-afdd96e3.jsonl"), "2026-12-02T12:54:17.436Z"],
      [join(chats, "session-2026-12-02T12-53-afdd96e3.jsonl"), "2026-12-02T12:55:02.563Z"],
    ]);
  });

  it("imports the resume's start as a resume, once, before the turn it began", () => {
    const { home, project } = laterHome();
    const env = { HOME: home };
    const result = runImport(planImport({ providers: ["gemini"], project, env }), { env });
    expect(result.imported).toMatchObject([{ status: "new", duplicates: 0 }]);
    const events = readEventsFile(join(project, ".tapedeck", "gemini-sessions", LATER_ID, "events.jsonl"));
    const starts = events.filter((e) => e.kind === "session_start");
    expect(starts.map((e) => [e.payload.source, e.timestamp])).toEqual([
      ["import", "2026-12-02T12:54:17.436Z"],
      ["resume", "2026-12-02T12:55:02.563Z"],
    ]);
    const prompts = events.filter((e) => e.kind === "user_prompt").map((e) => e.payload.prompt);
    expect(prompts).toEqual(["SCENARIO_TEXT first run", "SCENARIO_TEXT a minute later"]);
    const resume = events.indexOf(starts[1]!);
    expect(events[resume + 1]).toMatchObject({ kind: "user_prompt", payload: { prompt: prompts[1] } });
    // A second import finds both files as they were.
    expect(runImport(planImport({ providers: ["gemini"], project, env }), { env })).toMatchObject({
      sessions: 0,
      unchanged: 1,
    });
  });

  it("keeps every start when resumes in one minute add headers to both files", () => {
    const { home, project, chats } = laterHome();
    const header = (startTime: string) =>
      JSON.stringify({
        sessionId: LATER_ID,
        projectHash: "h",
        startTime,
        lastUpdated: startTime,
        kind: "main",
      });
    // A resume in the session's own minute, then one more in the minute of the resume's own file.
    const own = join(chats, "session-2026-12-02T12-54-afdd96e3.jsonl");
    writeFileSync(own, `${readFileSync(own, "utf8")}${header("2026-12-02T12:54:40.000Z")}\n`);
    const later = join(chats, "session-2026-12-02T12-53-afdd96e3.jsonl");
    writeFileSync(later, `${readFileSync(later, "utf8")}${header("2026-12-02T12:55:30.000Z")}\n`);
    const env = { HOME: home };
    const result = runImport(planImport({ providers: ["gemini"], project, env }), { env });
    expect(result.imported).toMatchObject([{ duplicates: 0 }]);
    const events = readEventsFile(join(project, ".tapedeck", "gemini-sessions", LATER_ID, "events.jsonl"));
    // Each once, by its own id (in the order their files are read).
    const starts = events.filter((e) => e.kind === "session_start");
    expect(
      starts
        .map((e) => [e.payload.source, e.timestamp])
        .sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    ).toEqual([
      ["import", "2026-12-02T12:54:17.436Z"],
      ["resume", "2026-12-02T12:54:40.000Z"],
      ["resume", "2026-12-02T12:55:02.563Z"],
      ["resume", "2026-12-02T12:55:30.000Z"],
    ]);
  });
});
