// @module-tag codex
// @module-tag gemini
// `tapedeck replay` with the real codex and gemini, offline against their mocks: a recorded baseline is
// replayed into a new recorded session (new id, linked, the same prompts in order) with native memory on
// (the project's memory file in the requests) and off (in none), and nothing outside the experiment root
// changes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../src/core/archive/schemas.ts";
import { rowsFor } from "./agents.ts";
import { codexAgent, geminiAgent, recordBaseline } from "./baseline.ts";
import { tapedeck, untouched } from "./replay-harness.ts";
import {
  type CodexSandbox,
  type GeminiSandbox,
  useBuild,
  useCodexSandbox,
  useGeminiSandbox,
} from "./sandboxes.ts";

useBuild();

const FACT = "The project codename is KESTREL-9.";
const PROMPTS = ["SCENARIO_BASH echo replayed-step", "and now a plain second prompt"];

interface ReplayOut {
  session_id: string;
  replay_of_session_id: string;
  archive: string;
  arm: string;
}

function manifestOf(archive: string): Manifest {
  return JSON.parse(readFileSync(join(archive, "manifest.json"), "utf8")) as Manifest;
}

/**
 * `tapedeck replay last` as the arm memory-<mode> with native memory <mode>, in an experiment root of its own:
 * a new session linked to the baseline, with the baseline's prompts; its manifest.
 */
async function replayArm(
  sb: { root: string; projectDir: string },
  env: Record<string, string>,
  provider: string,
  baseline: string,
  mode: "on" | "off",
): Promise<Manifest> {
  const root = join(sb.root, `exp-${mode}`);
  const args = ["--arm", `memory-${mode}`, "--native-memory", mode, "--experiment-root", root, "--json"];
  const run = await tapedeck(["replay", "last", ...args], { cwd: sb.projectDir, env });
  expect(run.code, run.stderr).toBe(0);
  const out = JSON.parse(run.stdout) as ReplayOut;
  expect(out.replay_of_session_id).toBe(`${provider}:${baseline}`);
  const manifest = manifestOf(out.archive);
  expect(manifest).toMatchObject({
    run_type: "replay",
    replay_of_session_id: `${provider}:${baseline}`,
    arm: `memory-${mode}`,
  });
  expect(manifest.provider_session_id).not.toBe(baseline);
  expect(recordedPrompts(out.archive)).toEqual(PROMPTS);
  return manifest;
}

function recordedPrompts(archive: string): string[] {
  return readFileSync(join(archive, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { kind: string; agent_id?: string; payload: { prompt?: string } })
    .filter((e) => e.kind === "user_prompt" && !e.agent_id)
    .map((e) => e.payload.prompt ?? "");
}

/** The prompts in order of first appearance in these request bodies. */
function promptsIn(bodies: unknown[]): string[] {
  const seen: Array<[number, string]> = [];
  for (const p of PROMPTS) {
    const at = bodies.findIndex((b) => JSON.stringify(b).includes(p));
    if (at >= 0) seen.push([at, p]);
  }
  return seen.sort((a, b) => a[0] - b[0]).map(([, p]) => p);
}

type AgentSandbox = CodexSandbox | GeminiSandbox;

/** What differs between the two agents' replays. */
interface ReplayCase<S extends AgentSandbox> {
  provider: "codex" | "gemini";
  sandbox(prefix: string): S;
  /** The agent, as the baseline records it. */
  agent(sb: S): ReturnType<typeof codexAgent>;
  /** The project's memory file (in the requests only with native memory on). */
  memoryFile: string;
  /** The user's own settings of the agent, which no replay may touch. */
  settings(sb: S): string[];
  /** The model requests' bodies of the replay whose manifest is `replayed`; the mock had `from` requests before. */
  bodies(sb: S, replayed: Manifest, from: number): unknown[];
}

const CODEX: ReplayCase<CodexSandbox> = {
  provider: "codex",
  sandbox: useCodexSandbox,
  agent: codexAgent,
  memoryFile: "AGENTS.md",
  settings: (sb) => [sb.codexHome],
  bodies: (sb, replayed) =>
    sb.mock.requests.filter((r) => r.sessionId === replayed.provider_session_id).map((r) => r.body),
};

const GEMINI: ReplayCase<GeminiSandbox> = {
  provider: "gemini",
  sandbox: useGeminiSandbox,
  agent: geminiAgent,
  memoryFile: "GEMINI.md",
  settings: (sb) => [join(sb.home, ".gemini")],
  // Gemini sends no session id: the requests since the replay began are all the replay's (runs are sequential).
  bodies: (sb, _replayed, from) =>
    sb.mock.requests
      .slice(from)
      .filter((r) => r.path.includes("streamGenerateContent"))
      .map((r) => r.body),
};

describe.each<ReplayCase<AgentSandbox>>(rowsFor([CODEX, GEMINI], (r) => r.provider))(
  "tapedeck replay ($provider)",
  (row) => {
    const sb = row.sandbox(`replay-${row.provider}`);
    let env: Record<string, string> = {};
    let baseline = "";
    let archive = "";

    beforeAll(async () => {
      const agent = row.agent(sb);
      env = agent.env;
      ({ id: baseline, archive } = await recordBaseline(row.provider, sb, agent, {
        fact: FACT,
        prompts: PROMPTS,
      }));
    }, 180_000);

    it.each([
      ["on", true],
      ["off", false],
    ] as const)(
      `native memory %s: a new linked session, the same prompts, ${row.memoryFile} present only when on, nothing else touched`,
      async (mode, carries) => {
        const state = () =>
          untouched({ home: sb.home, projectDir: sb.projectDir, archive, settings: row.settings(sb) });
        const before = state();
        const from = sb.mock.requests.length;
        const manifest = await replayArm(sb, env, row.provider, baseline, mode);
        const bodies = row.bodies(sb, manifest, from);
        expect(bodies.length).toBeGreaterThan(0);
        expect(promptsIn(bodies)).toEqual(PROMPTS);
        expect(bodies.map((b) => JSON.stringify(b).includes(FACT))).toEqual(bodies.map(() => carries));
        expect(state()).toEqual(before);
      },
      240_000,
    );
  },
);
