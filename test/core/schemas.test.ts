import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderJsonSchemas } from "../../src/core/archive/json-schemas.ts";
import { Envelope } from "../../src/core/archive/schemas.ts";

describe("JSON Schema files", () => {
  it("are current with the zod schemas", () => {
    for (const [name, text] of Object.entries(renderJsonSchemas())) {
      expect(readFileSync(join("schemas", name), "utf8"), `${name} is stale: run npm run schemas`).toBe(text);
    }
  });

  it("reject an envelope with an unknown kind", () => {
    const ok = {
      schema_version: 1,
      sequence: 1,
      event_id: "e",
      timestamp: "2026-01-01T00:00:00.000Z",
      kind: "user_prompt",
      provider: "claude",
      session_id: "claude:x",
      payload: {},
      redactions: [],
      truncations: [],
      omitted: [],
    };
    expect(Envelope.safeParse(ok).success).toBe(true);
    expect(Envelope.safeParse({ ...ok, kind: "nope" }).success).toBe(false);
    expect(Envelope.safeParse({ ...ok, timestamp: "yesterday" }).success).toBe(false);
  });
});
