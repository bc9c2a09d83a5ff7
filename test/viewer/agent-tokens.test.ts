// The timeline page's subagent tree counts a subagent's tokens as the session list does: a provider whose
// input already holds its cache reads (Codex, Gemini) has them counted once, not twice.
import { describe, expect, it } from "vitest";
import { usageFactsOf } from "../../src/providers/usage-facts.ts";
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
    input_tokens: 2000,
    output_tokens: 300,
    cache_read_input_tokens: 1500,
    cache_creation_input_tokens: 0,
    sources: ["transcript"],
    models: [],
  },
  cost: new CostAccumulator().result(),
};

describe("the timeline page's subagent totals", () => {
  it.each([
    // 2,000 in (1,500 of them read from the cache) + 300 out.
    ["codex", "2.3k"],
    ["gemini", "2.3k"],
    // Anthropic's input leaves the cache reads out: 2,000 + 1,500 + 300.
    ["claude", "3.8k"],
  ])("count a %s subagent's tokens as its usage facts say (%s)", (provider, total) => {
    expect(agentTotals(agent, 2, usageFactsOf(provider))).toBe(` a1 · 2 tool calls · ${total} tokens`);
  });
});
