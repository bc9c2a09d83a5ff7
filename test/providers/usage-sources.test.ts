// A usage record's source: the archive takes any name of the documented shape, so a provider added later
// changes nothing in the core; the names tapedeck knows are published from the catalog.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Envelope, USAGE_SOURCE_SHAPE } from "../../src/core/archive/schemas.ts";
import { CATALOG } from "../../src/providers/catalog.ts";
import { knownUsageSources, renderUsageSourceSchema } from "../../src/providers/usage-sources.ts";

const envelope = (source: unknown) => ({
  schema_version: 1,
  sequence: 1,
  event_id: "e",
  timestamp: "2026-01-01T00:00:00.000Z",
  kind: "turn_usage",
  provider: "p",
  session_id: "p:x",
  payload: {},
  redactions: [],
  truncations: [],
  omitted: [],
  usage: { source, input_tokens: 1 },
});

describe("usage sources", () => {
  it("are published as the catalog knows them", () => {
    for (const [name, text] of Object.entries(renderUsageSourceSchema())) {
      expect(readFileSync(join("schemas", name), "utf8"), `${name} is stale: run npm run schemas`).toBe(text);
    }
  });

  it("named anywhere in a provider's usage facts have the shape and are known", () => {
    const known = knownUsageSources();
    for (const [provider, { usage }] of Object.entries(CATALOG)) {
      const named = [
        ...Object.keys(usage.sources),
        ...Object.keys(usage.omits ?? {}),
        ...Object.entries(usage.completes ?? {}).flat(),
        ...usage.gaps.flatMap((g) => (g.closed_by ? [g.closed_by] : [])),
      ];
      for (const source of named) {
        expect(source, provider).toMatch(USAGE_SOURCE_SHAPE);
        expect(Object.hasOwn(known, source), `${provider}: ${source}`).toBe(true);
      }
    }
  });

  it("in an envelope: every name the schema's former list held (old archives), any of the shape, nothing else", () => {
    const former = ["hook-payload", "claude-transcript", "codex-transcript", "codex-app-server"];
    former.push("gemini-hook", "gemini-chat", "proxy", "unavailable");
    for (const source of [...former, "quill-log"]) {
      expect(Envelope.safeParse(envelope(source)).success, source).toBe(true);
    }
    for (const source of ["", "Proxy", "quill_log", "-log", "quill-", "a b", "x".repeat(65), 3]) {
      expect(Envelope.safeParse(envelope(source)).success, String(source)).toBe(false);
    }
  });
});
