// The injection step of the hook path (memory/store/inject.ts in core/hook/recorder.ts): on the prompt hook of a provider
// with retrieval on, the provider's injector output comes back as the hook's output and a context_injection
// event (bytes, item ids, query) joins the hook's own events; nothing otherwise, and nothing that can fail the
// hook. The retrieval module is replaced by a fixed answer here: what it finds is test/memory/store/retrieval*.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ProviderConfig, writeConfig } from "../../../src/core/archive/config.ts";
import { runHook } from "../../../src/core/hook/recorder.ts";
import { wrapInjected } from "../../../src/core/ports/memory-marker.ts";
import { contextStep, type Retrieval, type RetrievalModule } from "../../../src/memory/store/inject.ts";
import * as realRetrieval from "../../../src/memory/store/retrieval.ts";
import { memoryPath } from "../../../src/memory/store/store.ts";
import { adapterFor, injectorFor } from "../../../src/providers/registry.ts";
import { useTempProjects } from "../../helpers/session.ts";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures");
const project = useTempProjects("tapedeck-retrieval-step-");

// Assembled at run time: no literal token in the source.
const GITHUB_TOKEN = `gh${"p_"}${"Zq8".repeat(12)}`;
const ACME_TOKEN = `acme_${"k3x9".repeat(6)}`;

const FOUND: Retrieval = {
  outcome: "injected",
  text: wrapInjected("the deploy key rotates on Fridays", ["m1-aaa"]),
  bytes: Buffer.byteLength(wrapInjected("the deploy key rotates on Fridays", ["m1-aaa"])),
  item_ids: ["m1-aaa"],
  scores: [0.8],
  best_score: 0.8,
  query: '"deploy" OR "key"',
  budget_bytes: 4096,
  threshold: 0.5,
  matched: 1,
  skipped_repeat_ids: [],
  truncated: false,
};

function setUp(provider: string, config: Partial<ProviderConfig>) {
  const root = project();
  writeConfig(root, {
    schema_version: 1,
    providers: { [provider]: { recording: "on", mode: "capture-only", ...config } },
  });
  const asked: string[] = [];
  const module: RetrievalModule = {
    retrieve: (_root, prompt) => {
      asked.push(prompt);
      return FOUND;
    },
  };
  return { root, asked, step: contextStep(injectorFor, () => module) };
}

function run(
  provider: string,
  hook: string,
  root: string,
  step: ReturnType<typeof contextStep>,
  over: Record<string, unknown> = {},
) {
  const p = JSON.parse(readFileSync(join(FIXTURES, provider, `${hook}.json`), "utf8"));
  const data = Buffer.from(JSON.stringify({ ...p, cwd: root, ...over }));
  const env = { TAPEDECK_PROJECT_DIR: root, TAPEDECK_HOME: join(root, "home") };
  return runHook(adapterFor(provider)!, { data, overflow: false }, env, undefined, { addContext: step });
}

function recorded(dir: string | undefined): Array<{ kind: string; payload: Record<string, unknown> }> {
  if (!dir || !existsSync(join(dir, "events.jsonl"))) return [];
  return readFileSync(join(dir, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe.each([
  ["claude", "UserPromptSubmit"],
  ["codex", "UserPromptSubmit"],
  ["gemini", "BeforeAgent"],
] as const)("the context step with %s", (provider, promptHook) => {
  it("gives the prompt hook its provider's output and records the injection after the prompt", () => {
    const { root, asked, step } = setUp(provider, { retrieval: { state: "on", budget_bytes: 2048 } });
    const result = run(provider, promptHook, root, step);
    expect(result.status).toBe("recorded");
    expect(JSON.parse(result.output!)).toEqual({
      hookSpecificOutput: { hookEventName: promptHook, additionalContext: FOUND.text },
    });
    expect(asked).toHaveLength(1);
    const events = recorded(result.outcome?.sessionDir);
    const kinds = events.map((e) => e.kind);
    expect(kinds.indexOf("provider_event")).toBeGreaterThan(kinds.indexOf("user_prompt"));
    const injection = events.find((e) => e.payload.type === "context_injection")!;
    expect(injection.payload).toMatchObject({
      hook_event_name: promptHook,
      outcome: "injected",
      bytes: FOUND.bytes,
      budget_bytes: 2048,
      item_ids: ["m1-aaa"],
      scores: [0.8],
      skipped_repeat_ids: [],
      query: FOUND.query,
      context: FOUND.text,
    });
    // The prompt recorded is the user's own: the context is not in it.
    const prompt = events.find((e) => e.kind === "user_prompt")!;
    expect(String(prompt.payload.prompt)).not.toContain("tapedeck-memory");
  });

  it("a retried prompt hook records its injection once", () => {
    const { root, step } = setUp(provider, { retrieval: { state: "on" } });
    const first = run(provider, promptHook, root, step);
    const again = run(provider, promptHook, root, step);
    expect(again.output).toBe(first.output);
    const injections = recorded(first.outcome?.sessionDir).filter(
      (e) => e.payload.type === "context_injection",
    );
    expect(injections).toHaveLength(1);
  });

  it("retrieval off (or not set): the step is not asked, the hook prints nothing", () => {
    for (const config of [{}, { retrieval: { state: "off" as const } }]) {
      const { root, asked, step } = setUp(provider, config);
      const result = run(provider, promptHook, root, step);
      expect(result.status).toBe("recorded");
      expect(result.output).toBeUndefined();
      expect(asked).toEqual([]);
      expect(recorded(result.outcome?.sessionDir).some((e) => e.payload.type === "context_injection")).toBe(
        false,
      );
    }
  });

  it("the search is given the prompt as stored, redacted with the project's rules, recording on or stopped", () => {
    for (const recording of ["on", "off"] as const) {
      const { root, asked, step } = setUp(provider, { recording, retrieval: { state: "on" } });
      writeFileSync(
        join(root, ".tapedeck", "redaction.json"),
        JSON.stringify({ patterns: [{ name: "acme_token", regex: "acme_[a-z0-9]{24}" }] }),
      );
      const prompt = `rotate these: ${GITHUB_TOKEN} and ${ACME_TOKEN} for the deploy key`;
      const result = run(provider, promptHook, root, step, { prompt });
      expect(result.output).toBe(injectorFor(provider)!.output(FOUND.text));
      expect(asked).toEqual([
        "rotate these: [REDACTED:github_token] and [REDACTED:acme_token] for the deploy key",
      ]);
    }
  });

  it("recording stopped, retrieval on: the context is still given, and nothing is written", () => {
    const { root, step } = setUp(provider, { recording: "off", retrieval: { state: "on" } });
    const result = run(provider, promptHook, root, step);
    expect(result.status).toBe("off");
    expect(result.output).toBe(injectorFor(provider)!.output(FOUND.text));
    expect(existsSync(join(root, ".tapedeck", `${provider}-sessions`))).toBe(false);
  });
});

describe("the context step", () => {
  it("is not asked on other hooks", () => {
    const { root, asked, step } = setUp("claude", { retrieval: { state: "on" } });
    const result = run("claude", "PreToolUse", root, step);
    expect(result.status).toBe("recorded");
    expect(result.output).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it("a subagent's task message is not the user's prompt: no context for it", () => {
    const { root, asked, step } = setUp("codex", { retrieval: { state: "on" } });
    const result = run("codex", "UserPromptSubmit.in-subagent", root, step);
    expect(result.output).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it("a retrieval that throws costs the context only: the prompt is recorded, the failure and its code too", () => {
    const root = project();
    writeConfig(root, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only", retrieval: { state: "on" } } },
    });
    const step = contextStep(injectorFor, () => {
      throw new RangeError("memory.sqlite: file is not a database");
    });
    const result = run("claude", "UserPromptSubmit", root, step);
    expect(result.status).toBe("recorded");
    expect(result.output).toBeUndefined();
    const events = recorded(result.outcome?.sessionDir);
    expect(events.map((e) => e.kind)).toEqual(["user_prompt", "provider_event"]);
    expect(events[1]!.payload).toMatchObject({
      outcome: "failed",
      error: "RangeError",
      bytes: 0,
      context: null,
    });
    expect(JSON.stringify(events[1])).not.toContain("not a database");
    const diagnostics = readFileSync(join(root, ".tapedeck", "diagnostics.jsonl"), "utf8");
    expect(diagnostics).toContain('"stage":"retrieval","code":"RangeError"');
    expect(diagnostics).not.toContain("not a database");
  });

  it("nothing relevant: no output, and a zero-byte 'nothing_relevant' record keeps the query", () => {
    const root = project();
    writeConfig(root, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only", retrieval: { state: "on" } } },
    });
    const none: Retrieval = {
      ...FOUND,
      outcome: "nothing_relevant",
      text: "",
      bytes: 0,
      item_ids: [],
      scores: [],
      matched: 0,
    };
    const step = contextStep(injectorFor, () => ({ retrieve: () => none }));
    const result = run("claude", "UserPromptSubmit", root, step);
    expect(result.output).toBeUndefined();
    const injection = recorded(result.outcome?.sessionDir).find(
      (e) => e.payload.type === "context_injection",
    );
    expect(injection?.payload).toMatchObject({
      outcome: "nothing_relevant",
      bytes: 0,
      item_ids: [],
      budget_bytes: 4096,
      threshold: 0.5,
      query: FOUND.query,
      context: null,
    });
  });

  it("a damaged memory.sqlite (the real retrieval): the prompt is recorded, no context, the file left alone", () => {
    const root = project();
    writeConfig(root, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only", retrieval: { state: "on" } } },
    });
    mkdirSync(join(root, ".tapedeck"), { recursive: true });
    const garbage = "not a database, only text ".repeat(200);
    writeFileSync(memoryPath(root), garbage);
    const result = run(
      "claude",
      "UserPromptSubmit",
      root,
      contextStep(injectorFor, () => realRetrieval),
    );
    expect(result.status).toBe("recorded");
    expect(result.output).toBeUndefined();
    expect(recorded(result.outcome?.sessionDir).map((e) => [e.kind, e.payload.outcome])).toEqual([
      ["user_prompt", undefined],
      ["provider_event", "failed"],
    ]);
    expect(readFileSync(join(root, ".tapedeck", "diagnostics.jsonl"), "utf8")).toContain(
      '"stage":"retrieval"',
    );
    expect(readFileSync(memoryPath(root), "utf8")).toBe(garbage);
  });
});
