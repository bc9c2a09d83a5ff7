import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { TOKEN_FIELDS } from "../../src/core/archive/manifest-counters.ts";
import { Manifest } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { summarizeManifest } from "../../src/viewer/timeline.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function manifest(dir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
}

function usage(id: string, input: number, output: number, cacheWrite = 0): NormalizedEvent {
  return {
    ...event("turn_usage", id),
    usage: {
      source: "claude-transcript",
      input_tokens: input,
      output_tokens: output,
      cache_creation_input_tokens: cacheWrite,
    },
  };
}

describe("the manifest's list counters", () => {
  it("hold the first prompt as recorded (redacted, one line), counts by kind and a failed turn", () => {
    const root = project();
    const s = spec(root);
    recordEvents(s, [event("session_start", "s", { source: "startup" })]);
    recordEvents(s, [event("user_prompt", "p1", { prompt: "deploy with\nkey AKIAZ7QX3M2KD9PLW4HB please" })]);
    recordEvents(s, [event("user_prompt", "p2", { prompt: "second prompt" })]);
    recordEvents(s, [{ ...event("user_prompt", "sub", { prompt: "a subagent's task" }), agent_id: "ag" }]);
    recordEvents(s, [event("tool_error", "e", { tool_name: "Bash", error: "Exit code 1" })]);
    const out = recordEvents(s, [
      event("provider_event", "f", {
        hook_event_name: "StopFailure",
        error: "overloaded_error",
        failure: true,
      }),
    ]);
    const m = manifest(out.sessionDir);
    expect(m.title).toMatch(/^deploy with key \[REDACTED:[a-z_]+\] please$/);
    expect(JSON.stringify(m)).not.toContain("AKIAZ7QX3M2KD9PLW4HB");
    expect(m.counts_by_kind).toMatchObject({
      session_start: 1,
      tool_error: 1,
      provider_event: 1,
    });
    expect(m.failure).toBe("overloaded_error");
    expect(m.counts_by_kind).toMatchObject({ user_prompt: 3 });
    expect(summarizeManifest(m)).toMatchObject({ turns: 2, tool_errors: 1, failed: true });
    // The published schema (schemas/manifest.v1.schema.json) allows no other keys: the counters are in it.
    expect(() => Manifest.strict().parse(m)).not.toThrow();
  });

  it("sum the tokens of every writer, however close together they commit", () => {
    const root = project();
    const s = spec(root);
    let dir = "";
    // Separate writers well inside the manifest's 250 ms refresh: an unwritten sum would be lost with each.
    for (let i = 1; i <= 5; i += 1) dir = recordEvents(s, [usage(`u${i}`, 100, 10, 5)]).sessionDir;
    expect(manifest(dir).tokens).toEqual({
      input_tokens: 500,
      output_tokens: 50,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 25,
      reasoning_output_tokens: 0,
    });
  });
});

describe("the four token counts", () => {
  // The usage tests sum and compare these fields by this list: it is pinned here, apart from the code.
  it("are the provider's input, output, cache read and cache write counts, in that order", () => {
    expect(TOKEN_FIELDS).toEqual([
      "input_tokens",
      "output_tokens",
      "cache_read_input_tokens",
      "cache_creation_input_tokens",
    ]);
  });
});
