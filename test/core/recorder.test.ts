// The hook path's steps (core/hook/recorder.ts) around an adapter: enrichment is guarded once, by the recorder,
// so an adapter whose enrich throws still has its payload's events recorded, whichever provider it is.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type ProviderConfig, setRecording, writeConfig } from "../../src/core/archive/config.ts";
import type { ProviderAdapter } from "../../src/core/hook/provider.ts";
import { runHook } from "../../src/core/hook/recorder.ts";
import { claudeAdapter } from "../../src/providers/claude/adapter.ts";
import { codexAdapter } from "../../src/providers/codex/adapter.ts";
import { geminiAdapter } from "../../src/providers/gemini/adapter.ts";
import { useTempProjects } from "../helpers/session.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");
const project = useTempProjects("tapedeck-recorder-");

function payload(provider: string, name: string, root: string): Buffer {
  const p = JSON.parse(readFileSync(join(FIXTURES, provider, `${name}.json`), "utf8"));
  return Buffer.from(JSON.stringify({ ...p, cwd: root }));
}

function enabled(provider: string): { root: string; env: Record<string, string> } {
  const root = project();
  writeConfig(root, {
    schema_version: 1,
    providers: { [provider]: { recording: "on", mode: "capture-only" } },
  });
  return { root, env: { TAPEDECK_PROJECT_DIR: root, TAPEDECK_HOME: join(root, "home") } };
}

function failingEnrich(adapter: ProviderAdapter): ProviderAdapter {
  return {
    ...adapter,
    enrich: () => {
      throw new TypeError("enrichment broke");
    },
  };
}

describe.each([
  ["claude", claudeAdapter, "UserPromptSubmit"],
  ["codex", codexAdapter, "UserPromptSubmit"],
  ["gemini", geminiAdapter, "BeforeTool"],
] as const)("runHook with %s's adapter when its enrich throws", (_name, adapter, hook) => {
  it("still records the payload's events, notes the failure and leaves the provider state alone", () => {
    const { root, env } = enabled(adapter.name);
    const input = { data: payload(adapter.name, hook, root), overflow: false };
    const result = runHook(failingEnrich(adapter), input, env);
    expect(result.status).toBe("recorded");
    expect(result.outcome?.appended).toBeGreaterThan(0);
    const dir = result.outcome!.sessionDir;
    const events = readFileSync(join(dir, "events.jsonl"), "utf8").split("\n").filter(Boolean);
    expect(events.length).toBe(result.outcome!.appended);
    expect(existsSync(join(dir, "provider-state.json"))).toBe(false);
    const diagnostics = readFileSync(join(root, ".tapedeck", "diagnostics.jsonl"), "utf8");
    expect(diagnostics).toContain('"stage":"enrich","code":"TypeError"');
    expect(diagnostics).not.toContain("enrichment broke");
  });
});

describe("runHook's output for the agent", () => {
  it("is absent when the hook has nothing for the agent to read", () => {
    const { root, env } = enabled("claude");
    const input = { data: payload("claude", "UserPromptSubmit", root), overflow: false };
    const result = runHook(claudeAdapter, input, env);
    expect(result.status).toBe("recorded");
    expect(result.output).toBeUndefined();
  });
});

describe("runHook parses the payload at most once", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A prompt hook's status, and how often its payload text went through JSON.parse. */
  function hookParses(root: string, env: Record<string, string>): { status: string; parses: number } {
    const data = payload("claude", "UserPromptSubmit", root);
    const text = data.toString("utf8");
    const parse = vi.spyOn(JSON, "parse");
    const { status } = runHook(claudeAdapter, { data, overflow: false }, env);
    const parses = parse.mock.calls.filter(([arg]) => arg === text).length;
    parse.mockRestore();
    return { status, parses };
  }

  function stopped(): string {
    const root = project();
    const claude: ProviderConfig = { recording: "on", mode: "capture-only" };
    setRecording(claude, false);
    writeConfig(root, { schema_version: 1, providers: { claude } });
    return root;
  }

  it("not at all while recording is off and a variable names the project", () => {
    const root = stopped();
    const env = { CLAUDE_PROJECT_DIR: root, TAPEDECK_HOME: join(root, "home") };
    expect(hookParses(root, env)).toEqual({ status: "off", parses: 0 });
  });

  it("once while recording is off and only the payload's cwd names the project", () => {
    const root = stopped();
    const env = { PWD: "/", TAPEDECK_HOME: join(root, "home") };
    expect(hookParses(root, env)).toEqual({ status: "off", parses: 1 });
  });

  it("once when the cwd found the project and the hook records", () => {
    const { root } = enabled("claude");
    const env = { PWD: "/", TAPEDECK_HOME: join(root, "home") };
    expect(hookParses(root, env)).toEqual({ status: "recorded", parses: 1 });
  });
});
