import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BaselineError, loadBaseline } from "../../src/experiment/baseline.ts";
import { createWorkTree, IsolationError } from "../../src/experiment/isolation.ts";
import {
  type Experiment,
  experimentRoot,
  inheritedEnv,
  plannedRuns,
  runExperiment,
} from "../../src/experiment/orchestrator.ts";
import type { ArmSpec, ExperimentRecord } from "../../src/experiment/record.ts";
import { ANTHROPIC_KEY } from "../e2e/planted-secrets.ts";
import { newTempProject, useTempProjects } from "../helpers/temp-project.ts";
import { baselineProject, type FakeCall, fakeDriver, fakeSpawner } from "./fake.ts";

useTempProjects();

const ARMS: ArmSpec[] = [
  { name: "a", native_memory: true, retrieval: false },
  { name: "b", native_memory: false, retrieval: false },
];

function experiment(
  root: string,
  calls: FakeCall[],
  over: Partial<ExperimentRecord> = {},
  spawnOpts = {},
): Experiment {
  const baseline = loadBaseline(root, "last");
  const record: ExperimentRecord = {
    schema_version: 1,
    experiment_id: "exp-test",
    kind: "experiment",
    created_at: new Date().toISOString(),
    provider: "claude",
    cli_version: "fake 1",
    model_requested: null,
    baseline: {
      session_id: baseline.sessionId,
      archive: baseline.ref.dir,
      project_root: root,
      revision: baseline.revision,
    },
    prompt_count: baseline.prompts.length,
    scenario: null,
    arms: ARMS,
    repeat: 2,
    max_runs: null,
    max_cost_usd: null,
    runs: plannedRuns(ARMS, 2),
    stopped: null,
    ...over,
  };
  if (over.arms || over.repeat) record.runs = plannedRuns(record.arms, record.repeat);
  return {
    project: root,
    baseline,
    driver: fakeDriver,
    bin: "fake-cli",
    cliJs: "cli.js",
    root: join(root, ".tapedeck", "experiments", "exp-test"),
    record,
    keep: false,
    timeoutMs: 10_000,
    userEnv: {
      HOME: join(root, "no-home"),
      PATH: "/usr/bin",
      CLAUDECODE: "1",
      TAPEDECK_ARM: "outer",
      KEEP_ME: "yes",
    },
    signal: new AbortController().signal,
    progress: () => {},
    spawn: fakeSpawner(calls, spawnOpts),
  };
}

describe("baseline", () => {
  it("takes the main agent's non-empty prompts in order, not a subagent's", () => {
    const root = newTempProject();
    baselineProject(root, ["first", "second"]);
    expect(loadBaseline(root, "last").prompts).toEqual(["first", "second"]);
  });

  it("refuses a baseline without prompts, and one of another provider than asked", () => {
    const root = newTempProject();
    baselineProject(root, []);
    expect(() => loadBaseline(root, "last")).toThrow(BaselineError);
    expect(() => loadBaseline(root, "last")).toThrow(/no recorded user prompt/);
    const other = newTempProject();
    baselineProject(other, ["x"], "gemini");
    expect(() => loadBaseline(other, "last", "codex")).toThrow(/is a gemini session, not codex/);
  });

  it("says which prompts were redacted when recorded: the replay sends the marker, not the credential", () => {
    const root = newTempProject();
    baselineProject(root, [`deploy with ${ANTHROPIC_KEY}`, "plain"]);
    const b = loadBaseline(root, "last");
    expect(b.prompts[0]).not.toContain(ANTHROPIC_KEY);
    expect(b.notes).toEqual([
      "prompt 1 had a credential redacted when recorded: the replay sends the marker",
    ]);
  });
});

describe("isolation", () => {
  it("clones at the revision without writing into the user's .git, or copies without .git and .tapedeck", () => {
    const root = newTempProject();
    const { revision } = baselineProject(root, ["p"]);
    const before = readdirSync(join(root, ".git")).sort();
    const tree = createWorkTree(root, revision, join(root, ".tapedeck", "w1"));
    expect(tree.kind).toBe("clone");
    expect(readFileSync(join(tree.dir, "file.txt"), "utf8")).toBe("content\n");
    expect(readdirSync(join(root, ".git")).sort()).toEqual(before);
    expect(existsSync(join(root, ".git", "worktrees"))).toBe(false);
    const copy = createWorkTree(root, null, join(root, ".tapedeck", "w2"));
    expect(copy.kind).toBe("copy");
    expect(copy.notes.join()).toMatch(/no repository revision/);
    expect(readdirSync(copy.dir).sort()).toEqual(["file.txt"]);
    expect(() => createWorkTree(root, "0".repeat(40), join(root, ".tapedeck", "w3"))).toThrow(IsolationError);
  });

  it("refuses an experiment root inside the user's tree, or one that is not empty", () => {
    const root = newTempProject();
    expect(() => experimentRoot(root, "x", join(root, "src", "exp"))).toThrow(/inside the project's tree/);
    expect(experimentRoot(root, "x", join(root, ".tapedeck", "mine"))).toBe(join(root, ".tapedeck", "mine"));
    expect(() => experimentRoot(root, "x", root.replace(/\/[^/]+$/, ""))).toThrow(/not empty/);
  });
});

describe("the orchestrator", () => {
  it("rotates the arm order per repetition", () => {
    expect(plannedRuns(ARMS, 3).map((r) => r.run_id)).toEqual([
      "a-r1",
      "b-r1",
      "b-r2",
      "a-r2",
      "a-r3",
      "b-r3",
    ]);
  });

  it("does not pass on the caller's own agent session variables", () => {
    expect(
      inheritedEnv({
        PATH: "/bin",
        HOME: "/h",
        CLAUDECODE: "1",
        CLAUDE_PROJECT_DIR: "/p",
        TAPEDECK_REPLAY_OF: "x",
        CODEX_HOME: "/c",
        API_KEY: "k",
      }),
    ).toEqual({ PATH: "/bin", API_KEY: "k" });
  });

  it("runs every arm: first prompt new, the rest resumed, with the arm's environment; work trees removed", async () => {
    const root = newTempProject();
    baselineProject(root, ["one", "two"]);
    const calls: FakeCall[] = [];
    const x = experiment(root, calls);
    const record = await runExperiment(x);
    expect(record.runs.map((r) => r.status)).toEqual(["complete", "complete", "complete", "complete"]);
    const turns = calls.filter((c) => !c.args.includes("install"));
    expect(turns.map((c) => c.args)).toEqual(
      Array(4)
        .fill([["one"], ["--resume", "new-session", "two"]])
        .flat(),
    );
    const env = turns[0]!.env;
    expect(env).toMatchObject({
      TAPEDECK_REPLAY_OF: "claude:base-1",
      TAPEDECK_ARM: "a",
      TAPEDECK_NATIVE_MEMORY: "on",
      TAPEDECK_EXPERIMENT_ID: "exp-test",
      KEEP_ME: "yes",
    });
    expect(env.CLAUDECODE).toBeUndefined();
    expect(env.HOME).toBe(join(x.root, "runs", "a-r1", "home"));
    expect(turns[0]!.cwd).toBe(join(x.root, "runs", "a-r1", "work"));
    expect(JSON.parse(env.TAPEDECK_ARM_LABELS!)).toMatchObject({ provider: "claude", cli_version: "fake 1" });
    expect(turns.find((c) => c.env.TAPEDECK_ARM === "b")!.env.TAPEDECK_NATIVE_MEMORY).toBe("off");
    for (const r of record.runs) expect(existsSync(join(x.root, "runs", r.run_id, "work"))).toBe(false);
    expect(record.runs[0]).toMatchObject({
      final_answer: "answer to two",
      cost_usd: 0.02,
      provider_session_id: "new-session",
    });
    const onDisk = JSON.parse(readFileSync(join(x.root, "experiment.json"), "utf8")) as ExperimentRecord;
    expect(onDisk.runs.map((r) => r.status)).toEqual(record.runs.map((r) => r.status));
  });

  it("a failing turn fails its run only; the cost guard stops before the next run and says so", async () => {
    const root = newTempProject();
    baselineProject(root, ["one", "two"]);
    const calls: FakeCall[] = [];
    const x = experiment(
      root,
      calls,
      { max_cost_usd: 0.03 },
      {
        fail: (args: string[], env: Record<string, string>) =>
          env.TAPEDECK_ARM === "a" && args.includes("--resume"),
      },
    );
    const record = await runExperiment(x);
    expect(record.runs.map((r) => r.status)).toEqual(["failed", "complete", "skipped", "skipped"]);
    expect(record.runs[0]!.error).toBe("prompt 2/2: fake exited with 1");
    expect(record.stopped?.reason).toMatch(/cost guard: \$0\.0300 spent of --max-cost 0\.03/);
  });

  it("Ctrl-C before a run: nothing more runs, the rest is skipped", async () => {
    const root = newTempProject();
    baselineProject(root, ["one"]);
    const calls: FakeCall[] = [];
    const controller = new AbortController();
    controller.abort();
    const x = { ...experiment(root, calls), signal: controller.signal };
    const record = await runExperiment(x);
    expect(calls).toEqual([]);
    expect(record.runs.every((r) => r.status === "skipped")).toBe(true);
    expect(record.stopped?.reason).toMatch(/interrupted/);
  });

  it("--keep keeps the work tree and config root, never the copied credentials", async () => {
    const root = newTempProject();
    baselineProject(root, ["one"]);
    const calls: FakeCall[] = [];
    const base = experiment(root, calls, { arms: [ARMS[0]!], repeat: 1 });
    const secretDriver = {
      ...fakeDriver,
      prepareHome(paths: { work: string; home: string }) {
        mkdirSync(join(paths.home, ".fake"), { recursive: true });
        writeFileSync(join(paths.home, ".fake", "credentials.json"), "{}");
        return {
          settingsRoot: join(paths.home, ".fake"),
          env: {},
          secrets: [join(paths.home, ".fake", "credentials.json")],
        };
      },
    };
    const record = await runExperiment({ ...base, driver: secretDriver, keep: true });
    expect(record.runs[0]).toMatchObject({ status: "complete", kept: true });
    const run = join(base.root, "runs", "a-r1");
    expect(readFileSync(join(run, "work", "file.txt"), "utf8")).toBe("content\n");
    expect(existsSync(join(run, "home", ".fake"))).toBe(true);
    expect(existsSync(join(run, "home", ".fake", "credentials.json"))).toBe(false);
  });

  it("keeps no credential the agent printed: answers and errors are redacted before experiment.json", async () => {
    const root = newTempProject();
    baselineProject(root, ["one"]);
    const calls: FakeCall[] = [];
    const x = experiment(
      root,
      calls,
      { arms: [ARMS[0]!], repeat: 1 },
      { answer: `the key is ${ANTHROPIC_KEY}` },
    );
    const record = await runExperiment(x);
    expect(record.runs[0]!.final_answer).toMatch(/^the key is /);
    expect(readFileSync(join(x.root, "experiment.json"), "utf8")).not.toContain(ANTHROPIC_KEY);
    expect(JSON.stringify(record)).not.toContain(ANTHROPIC_KEY);
  });
});

describe("setting up", () => {
  it("refuses a symlink planted at .tapedeck/experiments instead of writing through it", async () => {
    const { prepareExperiment } = await import("../../src/experiment/start.ts");
    const { UnsafePathError } = await import("../../src/core/base/fsutil.ts");
    const root = newTempProject();
    baselineProject(root, ["one"]);
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(root, ".tapedeck", "experiments"));
    const setUp = () => prepareOneArm(prepareExperiment, root);
    expect(setUp).toThrow(UnsafePathError);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("an --experiment-root outside the project is made 0700, and one of another user's or a symlink is refused", async () => {
    const { prepareExperiment } = await import("../../src/experiment/start.ts");
    const root = newTempProject();
    const outside = newTempProject();
    baselineProject(root, ["one"]);
    const setUp = (experimentRoot: string) => prepareOneArm(prepareExperiment, root, experimentRoot);
    // An empty directory made with `mkdir` under the usual umask: every local user could read the work trees.
    const shared = join(outside, "made-by-mkdir");
    mkdirSync(shared, { mode: 0o755 });
    chmodSync(shared, 0o755);
    setUp(shared);
    expect(statSync(shared).mode & 0o777).toBe(0o700);
    const theirs = join(outside, "planted");
    mkdirSync(theirs, { mode: 0o777 });
    chownSync(theirs, 65534, 65534);
    expect(() => setUp(theirs)).toThrow(/belongs to another user/);
    expect(readdirSync(theirs)).toEqual([]);
    const target = join(outside, "target");
    mkdirSync(target);
    symlinkSync(target, join(outside, "link"));
    expect(() => setUp(join(outside, "link"))).toThrow(/symlink/);
    expect(readdirSync(target)).toEqual([]);
  });
});

/** The set-up of a one-arm, one-repetition replay of the project's last session with the fake agent. */
function prepareOneArm(
  prepare: typeof import("../../src/experiment/start.ts").prepareExperiment,
  root: string,
  experimentRoot?: string,
) {
  return prepare(
    {
      kind: "replay",
      project: root,
      baseline: loadBaseline(root, "last"),
      driver: fakeDriver,
      arms: [ARMS[0]!],
      repeat: 1,
      keep: false,
      ...(experimentRoot ? { experimentRoot } : {}),
      progress: () => {},
      env: { TAPEDECK_FAKE_BIN: "/bin/true", HOME: root },
    },
    new AbortController().signal,
  );
}
