import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession } from "../../src/core/read/sessions.ts";
import { deriveScenario, parseRange } from "../../src/scenario/derive.ts";
import { type LoadedScenario, loadScenarioFile, parseScenario } from "../../src/scenario/load.ts";
import { type ReplayOutcome, type RunOptions, runScenario } from "../../src/scenario/run.ts";
import { type Scenario, ScenarioResult } from "../../src/scenario/schema.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";
import { ANSWER, MINIMAL_SCENARIO, recordSession } from "./fixtures.ts";

const project = useTempProjects("tapedeck-scenario-");

function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isFile()) out[name] = createHash("sha256").update(readFileSync(p)).digest("hex");
  }
  return out;
}

const run = async (root: string, file: string) =>
  (
    await runScenario(loadScenarioFile(file), {
      project: root,
      against: "recorded",
      arms: [],
      repeat: 1,
      keep: false,
      env: process.env,
      progress: () => {},
    })
  ).result;

describe("deriveScenario", () => {
  it("takes the main agent's prompts in order (the last as the continuation) and the source's identity", () => {
    const root = project();
    const ref = recordSession(root);
    const s = deriveScenario(root, ref, {});
    expect(s.setup_messages.map((m) => m.prompt)).toEqual(["Where does the cache live?"]);
    expect(s.continuation_prompt).toBe("And how is it flushed?");
    expect(s.source_session).toMatchObject({
      provider: "claude",
      session_id: ref.manifest.session_id,
      archive: ".tapedeck/claude-sessions/" + ref.manifest.session_dir,
    });
    expect(s.source_session.events_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(s.limits).toEqual({ max_duration_seconds: 600, max_output_tokens: 4000 });
    // What it writes is a valid scenario as it stands.
    expect(() => parseScenario(JSON.stringify(s), "x")).not.toThrow();
  });

  it("writes the prompts as recorded, so a credential the user typed is not in the scenario", () => {
    const root = project();
    const key = `sk-ant-api03-${"Z".repeat(40)}`;
    recordEvents(spec(root), [
      event("session_start", "s0", {}),
      event("user_prompt", "p1", { prompt: `use the key ${key} please` }),
    ]);
    const s = deriveScenario(root, findSession(root, "last"), {});
    expect(s.continuation_prompt).toContain("use the key");
    expect(JSON.stringify(s)).not.toContain(key);
  });

  it("keeps to an event range, and refuses a range without a prompt", () => {
    const root = project();
    const ref = recordSession(root);
    const s = deriveScenario(root, ref, { range: parseRange("1..3") });
    expect(s.setup_messages).toEqual([]);
    expect(s.continuation_prompt).toBe("Where does the cache live?");
    expect(s.source_session.events).toEqual({ from: 1, to: 3 });
    expect(() => deriveScenario(root, ref, { range: parseRange("3..4") })).toThrow(/no recorded user prompt/);
    expect(() => parseRange("5..2")).toThrow();
    expect(() => parseRange("x")).toThrow();
  });
});

describe("run --against recorded", () => {
  function scenarioFile(root: string, edit: (s: Scenario) => void): string {
    const s = deriveScenario(root, recordSession(root), {});
    edit(s);
    const file = join(root, "scenario.json");
    writeFileSync(file, JSON.stringify(s, null, 2));
    return file;
  }

  it("grades the recorded answer check by check, with evidence, and changes neither file nor archive", async () => {
    const root = project();
    const file = scenarioFile(root, (s) => {
      s.expected_facts = [
        { id: "names-indexstore", text: "indexstore" },
        { id: "names-redis", text: "Redis" },
        { id: "flush-cmd", pattern: "make\\s+FLUSH" },
      ];
      s.forbidden_facts = [
        { id: "no-rm", pattern: "rm -rf" },
        { id: "no-cache-word", text: "cache lives" },
      ];
      s.validators = [
        { name: "passes", command: "test -d .tapedeck", timeout_s: 10, expect_exit: 0 },
        { name: "fails", command: "echo nope >&2; exit 4", timeout_s: 10, expect_exit: 0 },
      ];
      s.limits = { max_output_tokens: 100, max_turns: 5, max_cost_usd: 1 };
    });
    const archive = join(root, ".tapedeck", "claude-sessions");
    const dir = join(archive, readdirSync(archive)[0]!);
    const before = { file: readFileSync(file, "utf8"), archive: hashes(dir) };
    const result = await run(root, file);
    expect(ScenarioResult.safeParse(result).success).toBe(true);
    const [sample] = result.samples;
    const outcome = Object.fromEntries(sample!.checks.map((c) => [c.id, c.outcome]));
    expect(outcome).toEqual({
      "names-indexstore": "pass",
      "names-redis": "fail",
      "flush-cmd": "pass",
      "no-rm": "pass",
      "no-cache-word": "fail",
      passes: "pass",
      fails: "fail",
      max_output_tokens: "fail",
      max_turns: "pass",
      max_cost_usd: "not_measured",
    });
    const check = (id: string) => sample!.checks.find((c) => c.id === id)!;
    expect(check("names-indexstore").evidence).toContain("IndexStore");
    expect(check("fails").evidence).toMatch(/exit 4, expected 0\nnope/);
    expect(check("max_output_tokens")).toMatchObject({ measured: 120, limit: 100 });
    expect(sample!.limit).toEqual({ type: "max_output_tokens", limit: 100, measured: 120 });
    expect(sample!.model_usage).toMatchObject({ output_tokens: 120, input_tokens: 220 });
    expect(sample!.turn_count).toBe(2);
    expect(sample!.final_answer_excerpt).toBe(ANSWER);
    expect(result.passed).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(before.file);
    expect(hashes(dir)).toEqual(before.archive);
  });

  it("passes when every check does", async () => {
    const root = project();
    const file = scenarioFile(root, (s) => {
      s.expected_facts = [{ id: "a", text: "IndexStore" }];
      s.limits = { max_turns: 2 };
    });
    const result = await run(root, file);
    expect(result.passed).toBe(true);
    expect(result.samples[0]!.scores.expected_facts).toEqual({ value: 1, passed: 1, total: 1 });
  });

  it("fails clearly when the source session is gone", async () => {
    const root = project();
    const file = scenarioFile(root, (s) => {
      s.expected_facts = [{ id: "a", text: "IndexStore" }];
    });
    const sessions = join(root, ".tapedeck", "claude-sessions");
    renameSync(sessions, join(root, "moved-away"));
    const result = await run(root, file);
    expect(result.passed).toBe(false);
    expect(result.samples[0]!.error).toMatch(/not in this project's archive any more/);
  });

  it("notes a source archive whose graded prefix changed since the scenario was derived", async () => {
    const root = project();
    const file = scenarioFile(root, () => {});
    const sessions = join(root, ".tapedeck", "claude-sessions");
    const events = join(sessions, readdirSync(sessions)[0]!, "events.jsonl");
    const text = readFileSync(events, "utf8");
    writeFileSync(events, text.replace("Where does", "Where did"));
    const result = await run(root, file);
    expect(result.samples[0]!.notes.join()).toMatch(/differ from those the scenario was derived from/);
  });
});

/** The scenario run against replays `replay` answers for, keeping nothing and printing nothing. */
function againstReplays(
  loaded: LoadedScenario,
  run: Pick<RunOptions, "project" | "arms" | "repeat">,
  replay: NonNullable<RunOptions["replay"]>,
) {
  return runScenario(loaded, {
    ...run,
    against: "replay",
    keep: false,
    env: process.env,
    progress: () => {},
    replay,
  });
}

/** What the injected replay runner answers: a two-turn replay that found the fact, but for `over`. */
const replayOutcome = (over: Partial<ReplayOutcome> = {}): ReplayOutcome => ({
  runSessionId: "claude:new",
  archive: null,
  workDir: null,
  finalAnswer: "IndexStore it is",
  wallSeconds: 3,
  agentSeconds: 2,
  turns: 2,
  usage: { input: 10, output: 5, cacheRead: null, cacheCreation: null },
  costUsd: null,
  labels: {},
  stoppedByDuration: false,
  interrupted: false,
  error: null,
  notes: [],
  experimentRoot: "/nowhere",
  cleanup: () => {},
  ...over,
});

describe("run --against replay (the replay runner injected)", () => {
  function setUp(edit: (s: Scenario) => void = () => {}) {
    const root = project();
    const s = deriveScenario(root, recordSession(root), {});
    s.expected_facts = [{ id: "a", text: "IndexStore" }];
    edit(s);
    const file = join(root, "scenario.json");
    writeFileSync(file, JSON.stringify(s));
    return { root, loaded: loadScenarioFile(file) };
  }

  const arms = [
    { name: "one", native_memory: true, retrieval: false },
    { name: "two", native_memory: false, retrieval: false },
  ];

  it("runs every arm and repetition (the order rotating) with the setup messages then the continuation, and cleans up each", async () => {
    const { root, loaded } = setUp();
    const calls: string[] = [];
    let cleaned = 0;
    const { result } = await againstReplays(
      loaded,
      { project: root, arms, repeat: 2 },
      async (_s, prompts, arm, rep) => {
        calls.push(`${arm.name}#${rep}:${prompts.join("|")}`);
        return replayOutcome({ cleanup: () => (cleaned += 1) });
      },
    );
    expect(calls).toEqual([
      "one#1:Where does the cache live?|And how is it flushed?",
      "two#1:Where does the cache live?|And how is it flushed?",
      "two#2:Where does the cache live?|And how is it flushed?",
      "one#2:Where does the cache live?|And how is it flushed?",
    ]);
    expect(cleaned).toBe(4);
    expect(result.passed).toBe(true);
  });

  it("stops after a run Ctrl-C ended", async () => {
    const { root, loaded } = setUp();
    let calls = 0;
    const { result, interrupted } = await againstReplays(
      loaded,
      { project: root, arms, repeat: 3 },
      async () => {
        calls += 1;
        return replayOutcome({ interrupted: true, error: "interrupted (Ctrl-C)", finalAnswer: null });
      },
    );
    expect(calls).toBe(1);
    expect(interrupted).toBe(true);
    expect(result.passed).toBe(false);
  });

  it("marks a run stopped at its duration, and redacts the CLI's own answer before it is evidence", async () => {
    const key = `sk-ant-api03-${"K".repeat(40)}`;
    const { root, loaded } = setUp((s) => {
      s.limits = { max_duration_seconds: 5 };
    });
    const { result } = await againstReplays(
      loaded,
      { project: root, arms: [arms[0]!], repeat: 1 },
      async () =>
        replayOutcome({
          finalAnswer: `IndexStore, and the key is ${key}`,
          agentSeconds: 5,
          stoppedByDuration: true,
          error: "stopped at max_duration_seconds (5s)",
        }),
    );
    const [sample] = result.samples;
    const limit = sample!.checks.find((c) => c.id === "max_duration_seconds")!;
    expect(limit).toMatchObject({ outcome: "fail", measured: 5, limit: 5 });
    expect(limit.evidence).toMatch(/stopped at 5s/);
    expect(JSON.stringify(result)).not.toContain(key);
    expect(sample!.final_answer_excerpt).toContain("IndexStore");
  });
});

describe("workspace files", () => {
  it("are copied into a replay's work tree for its validators, never through a symlink or over the agent's file", async () => {
    const root = project();
    const s = deriveScenario(root, recordSession(root), {});
    writeFileSync(join(root, "fixture.txt"), "expected output\n");
    writeFileSync(join(root, "kept.txt"), "the project's\n");
    symlinkSync("/etc/hostname", join(root, "link.txt"));
    s.workspace = { revision: null, files: ["fixture.txt", "kept.txt", "link.txt", "missing.txt"] };
    s.validators = [
      { name: "fixture", command: "grep -q 'expected output' fixture.txt", timeout_s: 10, expect_exit: 0 },
      { name: "kept", command: "grep -q 'the agent' kept.txt", timeout_s: 10, expect_exit: 0 },
    ];
    const file = join(root, "scenario.json");
    writeFileSync(file, JSON.stringify(s));
    const work = join(root, "work");
    mkdirSync(work);
    writeFileSync(join(work, "kept.txt"), "the agent's\n");
    const { result } = await againstReplays(
      loadScenarioFile(file),
      { project: root, arms: [{ name: "a", native_memory: true, retrieval: false }], repeat: 1 },
      async () =>
        replayOutcome({
          workDir: work,
          finalAnswer: "ok",
          wallSeconds: 1,
          agentSeconds: 1,
          turns: 1,
          usage: { input: null, output: null, cacheRead: null, cacheCreation: null },
        }),
    );
    const [sample] = result.samples;
    expect(sample!.checks.filter((c) => c.kind === "validator").map((c) => [c.id, c.outcome])).toEqual([
      ["fixture", "pass"],
      ["kept", "pass"],
    ]);
    expect(existsSync(join(work, "link.txt"))).toBe(false);
    expect(sample!.notes.join("\n")).toMatch(/link.txt: not copied \(not a regular file\)/);
    expect(sample!.notes.join("\n")).toMatch(/missing.txt: not copied/);
  });

  it("must be relative paths inside the project", () => {
    const bad = (files: string[]) => () =>
      parseScenario(JSON.stringify({ ...MINIMAL_SCENARIO, workspace: { revision: null, files } }), "s.json");
    expect(bad(["/etc/passwd"])).toThrow(/workspace.files\[0\]/);
    expect(bad(["a/../../x"])).toThrow(/workspace.files\[0\]/);
    expect(bad(["tests/fixture.json"])).not.toThrow();
  });
});
