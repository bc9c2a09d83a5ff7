// Writes the JSON Schema files under schemas/ from the zod schemas, and the usage sources the catalog knows.
// `--check` fails instead of writing when a committed file is out of date.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderJsonSchemas } from "../src/core/archive/json-schemas.ts";
import { renderUsageSourceSchema } from "../src/providers/usage-sources.ts";
import { renderScenarioSchemas } from "../src/scenario/schema.ts";

const check = process.argv.includes("--check");
let stale = 0;
const files = { ...renderJsonSchemas(), ...renderScenarioSchemas(), ...renderUsageSourceSchema() };
for (const [name, text] of Object.entries(files)) {
  const path = join("schemas", name);
  let current = "";
  try {
    current = readFileSync(path, "utf8");
  } catch {
    current = "";
  }
  if (current === text) continue;
  stale += 1;
  if (check) console.error(`${path} is out of date; run npm run schemas`);
  else writeFileSync(path, text);
}
if (check && stale > 0) process.exit(1);
