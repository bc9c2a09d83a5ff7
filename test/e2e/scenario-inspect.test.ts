// @module-tag inspect
/**
 * `tapedeck scenario export --to inspect` run by Inspect AI itself (0.3.285, with inspect-swe, which the
 * task imports; scripts/test-receivers.mjs installs both from PyPI into the test cache): the exported
 * task.py is loaded by Inspect, its dataset read, its scorers and validators run, against Inspect's mock
 * model (mockllm) in place of the agent, which needs a real model and a sandboxed CLI. The mock's answer
 * is given with its usage: without one, mockllm counts tokens with an encoding it downloads, and the tests
 * reach no network. One answer that states the expected fact, one that shrugs.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli-run.ts";
import { tempProject } from "../helpers/session.ts";
import { installed } from "./receivers.ts";
import { useBuild } from "./sandboxes.ts";

useBuild();

const scratch = tempProject("tapedeck-inspect-");
let python = "";

/** Inspect's own API: the task run with mockllm answering `answer`, the log's samples and scores as JSON. */
const RUNNER = `import json, sys
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

out = ModelOutput.from_content(model="mockllm/model", content=sys.argv[2])
out.usage = ModelUsage(input_tokens=12, output_tokens=7, total_tokens=19)
model = get_model("mockllm/model", custom_outputs=[out])
log = inspect_eval(sys.argv[1], model=model, solver=generate(), sandbox="local", log_dir=sys.argv[3], display="none")[0]
print(json.dumps({
    "status": log.status,
    "task": log.eval.task,
    "samples": [
        {
            "id": s.id,
            "input": [m.text for m in s.messages if m.role == "user"],
            "completion": s.output.completion,
            "scores": {k: {"value": v.value, "explanation": v.explanation} for k, v in (s.scores or {}).items()},
        }
        for s in (log.samples or [])
    ],
}))
`;

beforeAll(() => {
  python = installed("inspect").inspect!.python;
}, 1_800_000);
afterAll(() => scratch.cleanup());

const scenario = {
  schema_version: 1,
  id: "inspect-e2e",
  category: "session-review",
  source_session: {
    provider: "claude",
    session_id: "claude:00000000-0000-4000-8000-000000000000",
    archive: null,
    repository_revision: null,
  },
  setup_messages: [{ prompt: "Ready when you are.", establishes_fact_ids: [] }],
  continuation_prompt: "Where does the cache live?",
  expected_facts: [{ id: "names-indexstore", text: "IndexStore" }],
  forbidden_facts: [{ id: "no-shrug", text: "I don't know" }],
  validators: [
    { name: "passes", command: "true", timeout_s: 10, expect_exit: 0 },
    { name: "exit-three", command: "exit 3", timeout_s: 10, expect_exit: 3 },
  ],
  limits: { max_turns: 3 },
};

interface Run {
  status: string;
  task: string;
  samples: Array<{
    id: string;
    input: string[];
    completion: string;
    scores: Record<string, { value: string; explanation: string }>;
  }>;
}

function exportTask(name: string, validators = scenario.validators): string {
  const dir = join(scratch.root, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "scenario.json");
  writeFileSync(file, JSON.stringify({ ...scenario, validators }));
  const r = runCli(
    ["scenario", "export", file, "--to", "inspect", "--out", join(dir, "task")],
    join(scratch.root, "home"),
  );
  expect(r.code, r.stderr).toBe(0);
  writeFileSync(join(dir, "run_mock.py"), RUNNER);
  return dir;
}

function inspect(dir: string, answer: string): Run {
  const out = execFileSync(
    python,
    // Inspect takes the task as a path relative to where it runs.
    [join(dir, "run_mock.py"), "task.py", answer, join(dir, "logs")],
    { cwd: join(dir, "task"), encoding: "utf8", timeout: 300_000, stdio: ["ignore", "pipe", "pipe"] },
  );
  return JSON.parse(out.trim().split("\n").at(-1)!) as Run;
}

describe("Inspect AI runs the exported task", () => {
  it("its dataset, scorers and validators, on an answer that states the fact", () => {
    const dir = exportTask("pass");
    const run = inspect(dir, "The cache lives in IndexStore, rebuilt nightly.");
    expect(run.status).toBe("success");
    expect(run.task).toBe("inspect_e2e");
    expect(run.samples).toHaveLength(1);
    const s = run.samples[0]!;
    // The setup messages and the continuation, in order, as the conversation's user messages.
    expect(s.input).toEqual(["Ready when you are.", "Where does the cache live?"]);
    expect(s.scores.expected_facts!.value).toBe("C");
    expect(s.scores.forbidden_facts!.value).toBe("C");
    expect(s.scores.validators!.value).toBe("C");
  });

  it("a shrug fails the facts; a validator whose exit differs fails the validators, by name", () => {
    const dir = exportTask("fail", [
      { name: "passes", command: "true", timeout_s: 10, expect_exit: 0 },
      { name: "broken", command: "exit 1", timeout_s: 10, expect_exit: 0 },
    ]);
    const s = inspect(dir, "I don't know where it is.").samples[0]!;
    expect(s.scores.expected_facts).toEqual({ value: "I", explanation: "missing: names-indexstore" });
    expect(s.scores.forbidden_facts).toEqual({ value: "I", explanation: "stated: no-shrug" });
    expect(s.scores.validators).toEqual({ value: "I", explanation: "failed: broken" });
  });
});
