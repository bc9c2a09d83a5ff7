// The viewer's session list counts a session's tokens as `list` does: a provider whose input already holds
// its cache reads (Codex, Gemini) has them counted once, not twice.
import { describe, expect, it } from "vitest";
import type { SessionRef } from "../../src/core/read/sessions.ts";
import { listItem } from "../../src/viewer/api.ts";

const tokens = {
  input_tokens: 1000,
  output_tokens: 50,
  cache_read_input_tokens: 800,
  cache_creation_input_tokens: 0,
};

function ref(provider: string): SessionRef {
  return {
    dir: `/nowhere/${provider}`,
    manifest: {
      session_id: `s-${provider}`,
      provider,
      status: "complete",
      started_at: "2026-12-01T10:00:00Z",
      tokens,
    },
  } as unknown as SessionRef;
}

describe("the viewer's session list", () => {
  it.each([
    ["codex", 1050],
    ["gemini", 1050],
    ["claude", 1850],
  ])("totals a %s session's tokens as its usage facts say (%i)", (provider, total) => {
    expect(listItem(ref(provider), 0).tokens).toBe(total);
  });
});
