// The timeline page's subagent tree counts a subagent's tokens as the session list does: each once. The
// timeline's counts are in the one meaning already (a Codex or Gemini subagent's cache reads out of its input),
// so the page adds them up as they come.
import { describe, expect, it } from "vitest";
import { CostAccumulator } from "../../src/usage/pricing.ts";
import { agentTotals } from "../../src/viewer/page/timeline-view.ts";
import type { Agent } from "../../src/viewer/timeline.ts";

const agent: Agent = {
  type: "agent",
  agent_id: "a1",
  agent_type: "worker",
  sequence: 3,
  at: null,
  stopped_at: null,
  prompt: null,
  items: [],
  answer: null,
  usage: {
    input_tokens: 500,
    output_tokens: 300,
    cache_read_input_tokens: 1500,
    cache_creation_input_tokens: 0,
    reasoning_output_tokens: 0,
    sources: ["transcript"],
    models: [],
  },
  cost: new CostAccumulator().result(),
};

describe("the timeline page's subagent totals", () => {
  it("adds the four counts of the one meaning: 500 in, 1,500 cache read, 300 out", () => {
    expect(agentTotals(agent, 2)).toBe(" a1 · 2 tool calls · 2.3k tokens");
  });
});
