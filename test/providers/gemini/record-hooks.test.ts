// The Gemini adapter through the real hook path (runHook: normalize, enrich,
// store): the captured hooks of a session, in the order Gemini fired them,
// land in the archive once each, paired, with one usage per model response.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeConfig } from "../../../src/core/archive/config.ts";
import { runHook } from "../../../src/core/hook/recorder.ts";
import { geminiAdapter } from "../../../src/providers/gemini/adapter.ts";
import { providerFixtures } from "../../helpers/fixtures.ts";
import { tempProject } from "../../helpers/session.ts";
import { CAPTURED_FIRST_RUN, CAPTURED_FIRST_RUN_KINDS } from "./captured-turn.ts";

// biome-ignore lint/suspicious/noExplicitAny: assertions reach into arbitrary payload shapes
type Loose = Record<string, any>;

const fixture = (name: string) => providerFixtures("gemini").json(name) as Loose;

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function enabledProject(): { root: string; env: Record<string, string> } {
  const p = tempProject();
  cleanups.push(p.cleanup);
  writeConfig(p.root, {
    schema_version: 1,
    providers: { gemini: { recording: "on", mode: "capture-only" } },
  });
  return { root: p.root, env: { GEMINI_PROJECT_DIR: p.root, TAPEDECK_HOME: join(p.root, "home") } };
}

function hook(env: Record<string, string>, payload: Loose) {
  const out = runHook(geminiAdapter, { data: Buffer.from(JSON.stringify(payload)), overflow: false }, env);
  expect(out.status).toBe("recorded");
  return out;
}

function sessionDir(root: string, id: string): string {
  return join(root, ".tapedeck", "gemini-sessions", id);
}

function lines(root: string, id: string): Loose[] {
  return readFileSync(join(sessionDir(root, id), "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Loose);
}

const FIRST_RUN = CAPTURED_FIRST_RUN;

describe("gemini through the hook path", () => {
  it("records a captured session once per event, and SessionEnd's repeats once", () => {
    const { root, env } = enabledProject();
    for (const file of FIRST_RUN) hook(env, fixture(file));
    // /quit fires SessionEnd three times.
    const end = fixture("SessionEnd.json");
    hook(env, { ...end, timestamp: "2026-11-29T18:49:23.901Z" });
    const last = hook(env, { ...end, timestamp: "2026-11-29T18:49:23.950Z" });
    expect(last.outcome?.duplicates).toBe(1);

    const id = end.session_id as string;
    const events = lines(root, id);
    expect(events.map((e) => e.kind)).toEqual(CAPTURED_FIRST_RUN_KINDS);
    for (const e of events) {
      expect(e.provider).toBe("gemini");
      expect(e.session_id).toBe(`gemini:${id}`);
    }
    const call = events.find((e) => e.kind === "tool_call")!;
    const result = events.find((e) => e.kind === "tool_result")!;
    expect(call.payload.tool_use_id).toMatch(/^gemini-tool-/);
    expect(result.payload.tool_use_id).toBe(call.payload.tool_use_id);
    expect(events.find((e) => e.kind === "turn_usage")!.usage).toEqual({
      source: "gemini-hook",
      model: "gemini-3.8-flash",
      input_tokens: 171,
      output_tokens: 26,
      total_tokens: 206,
    });
    expect(events.find((e) => e.kind === "user_prompt")!.timestamp).toBe("2026-11-29T18:49:22.646Z");

    const manifest = JSON.parse(readFileSync(join(sessionDir(root, id), "manifest.json"), "utf8")) as Loose;
    expect(manifest.status).toBe("complete");
    expect(manifest.capabilities).toContain("turn_usage:gemini-hook");
    expect(manifest.project_root).toBe(root);
  });

  it("a resumed session is a new epoch: it ends again, and its compression is recorded", () => {
    const { root, env } = enabledProject();
    for (const file of FIRST_RUN) hook(env, fixture(file));
    const id = fixture("SessionEnd.json").session_id as string;
    const history = (n: number, snapshot?: string) => {
      const request = fixture("BeforeModel.json");
      const messages: Loose[] = [{ role: "user", content: "<session_context>ctx</session_context>" }];
      if (snapshot) messages.push({ role: "user", content: `<state_snapshot>${snapshot}</state_snapshot>` });
      while (messages.length < n) messages.push({ role: "model", content: `m${messages.length}` });
      request.llm_request.messages = messages;
      return request;
    };
    const at = (payload: Loose, timestamp: string) => ({ ...payload, session_id: id, timestamp });
    hook(env, at(fixture("SessionStart.resume.json"), "2026-11-29T19:10:00.000Z"));
    hook(
      env,
      at({ ...fixture("BeforeAgent.json"), prompt: "SCENARIO_TEXT again" }, "2026-11-29T19:10:00.100Z"),
    );
    hook(env, at(fixture("PreCompress.json"), "2026-11-29T19:10:00.200Z"));
    hook(env, at(history(4, "Mock goal"), "2026-11-29T19:10:00.300Z"));
    hook(env, at(fixture("AfterAgent.json"), "2026-11-29T19:10:00.400Z"));
    hook(env, at(fixture("SessionEnd.json"), "2026-11-29T19:10:00.500Z"));

    const kinds = lines(root, id).map((e) => e.kind);
    expect(kinds.slice(7)).toEqual([
      "session_start",
      "user_prompt",
      "compaction",
      "assistant_message",
      "session_end",
    ]);
    const compaction = lines(root, id).find((e) => e.kind === "compaction")!;
    expect(compaction.payload).toMatchObject({ trigger: "auto", detected_by: "state_snapshot" });
    expect(compaction.timestamp).toBe("2026-11-29T19:10:00.300Z");
  });
});
