import { z } from "zod";
import { JSON_SCHEMAS } from "./schemas.ts";

/** The committed JSON Schema files, rendered from the zod schemas (the single source). */
export function renderJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(JSON_SCHEMAS)) {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" }) as Record<string, unknown>;
    const id = `https://tapedeck.dev/schemas/${name}`;
    out[name] = `${JSON.stringify({ $id: id, ...json }, null, 2)}\n`;
  }
  return out;
}
