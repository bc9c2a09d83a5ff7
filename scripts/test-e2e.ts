// `npm run test:e2e [agent|peer] [vitest options]`: the e2e tier (test/tiers.ts), all of it or the files tagged
// with one agent or peer (`// @module-tag codex`), and in a file over several agents only that agent's rows.
// Its prerequisites (Chromium, zsh, man, promptfoo) are installed by scripts/test-prereqs.sh first.
import { spawnSync } from "node:child_process";
import { AGENT_TAGS } from "../test/tiers.ts";

const [first, ...rest] = process.argv.slice(2);
const tag = first && !first.startsWith("-") ? first : undefined;
const passed = tag ? rest : process.argv.slice(2);
if (tag && !(AGENT_TAGS as readonly string[]).includes(tag)) {
  process.stderr.write(`test:e2e: unknown agent or peer "${tag}" (one of: ${AGENT_TAGS.join(", ")})\n`);
  process.exit(2);
}
const args = ["vitest", "run", "--project", "e2e", ...(tag ? ["--tags-filter", tag] : []), ...passed];
const run = spawnSync("npx", args, {
  stdio: "inherit",
  env: { ...process.env, ...(tag ? { TAPEDECK_E2E_AGENT: tag } : {}) },
});
process.exit(run.status ?? 1);
