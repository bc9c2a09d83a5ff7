// @module-tag claude
// @module-tag codex
// @module-tag gemini
/**
 * End to end: `tapedeck usage` on sessions recorded from the real `claude`, `codex` and `gemini` CLIs, offline
 * against the mocks. One session reads one figure in every command: `list`, `show`, `inspect` and `usage` give
 * the same four counts and total, in the one meaning (Codex and Gemini report the cache reads inside input,
 * which every command shows apart; Gemini's thinking tokens, which its chat file gives apart, are output), and
 * inspect keeps the counts as recorded beside them. Gemini's model-router call, which the mock served and no
 * hook or file shows, is named in the row and the table, not counted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOKEN_FIELDS } from "../../src/core/archive/manifest-counters.ts";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { type Agent, CLAUDE, CODEX, conversation, GEMINI, type RunOptions } from "./agents.ts";
import { type Sandbox, useBuild } from "./sandboxes.ts";

useBuild();

interface Counts {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

interface Inspected {
  path: string;
  usage: Counts & {
    total_tokens: number;
    sources: string[];
    recorded: Counts & { reasoning_output_tokens: number };
  };
}

const FOUR = TOKEN_FIELDS;

const four = (x: object): Counts =>
  Object.fromEntries(FOUR.map((k) => [k, (x as Record<string, unknown>)[k]])) as unknown as Counts;

async function json<T>(sb: Sandbox, args: string[]): Promise<T> {
  const r = await sb.cli([...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

async function text(sb: Sandbox, args: string[]): Promise<string> {
  const r = await sb.cli(args);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

function usageEvents(dir: string): Envelope[] {
  return readFileSync(join(dir, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Envelope)
    .filter((e) => e.kind === "turn_usage");
}

/**
 * The session row, the daily rows and the table of a provider's one session: the same four counts as inspect,
 * list and show give the session.
 */
async function expectRowsOfInspect(sb: Sandbox, provider: string, id: string, cached = true) {
  const inspected = await json<Inspected>(sb, ["inspect", id]);
  const u = inspected.usage;
  expect(u.input_tokens).toBeGreaterThan(0);
  if (cached) expect(u.cache_read_input_tokens).toBeGreaterThan(0);
  const sessions = await json<{ rows: Array<Record<string, unknown>> }>(sb, [
    "usage",
    "session",
    "--timezone",
    "UTC",
  ]);
  expect(sessions.rows).toHaveLength(1);
  const row = sessions.rows[0]!;
  expect(row).toMatchObject({
    provider,
    ...four(u),
    total_tokens: u.total_tokens,
    sources: [...u.sources].sort(),
  });
  const [listed] = await json<Array<{ tokens: Record<string, number> }>>(sb, ["list"]);
  expect(listed!.tokens).toEqual({ ...four(u), total_tokens: u.total_tokens });
  const shown = await json<{ totals: { usage: Counts; estimated_cost: { usd: number | null } } }>(sb, [
    "show",
    id,
  ]);
  expect(four(shown.totals.usage)).toEqual(four(u));
  if (row.cost_usd === null) expect(shown.totals.estimated_cost.usd).toBeNull();
  else expect(shown.totals.estimated_cost.usd).toBeCloseTo(row.cost_usd as number, 9);
  const daily = await json<{ rows: Array<Record<string, number>>; totals: Record<string, number | null> }>(
    sb,
    ["usage", "daily", "--timezone", "UTC"],
  );
  for (const f of FOUR) {
    expect(
      daily.rows.reduce((n, r) => n + r[f]!, 0),
      f,
    ).toBe(row[f]);
    expect(daily.totals[f], f).toBe(row[f]);
  }
  return { inspected, row, daily };
}

/** The session the report is of: a shell command, then a resumed text turn; its id. */
async function oneSession(agent: Agent, sb: Sandbox, limits?: RunOptions): Promise<string> {
  const chat = conversation(agent, sb, limits);
  for (const prompt of ["SCENARIO_BASH echo one", "SCENARIO_TEXT two"]) await chat.say(prompt);
  return chat.id;
}

describe("claude", () => {
  const sb = CLAUDE.sandbox("usage-claude");

  it("its rows carry the tokens inspect, list and show give the session", async () => {
    expect((await sb.cli(["install", "claude", "--yes"])).code).toBe(0);
    const id = await oneSession(CLAUDE, sb);
    const { inspected, row } = await expectRowsOfInspect(sb, "claude", id);
    // Anthropic's counts are the one meaning: as recorded.
    expect(four(inspected.usage.recorded)).toEqual(four(inspected.usage));
    expect(row.cost_usd).toBeGreaterThan(0);
  }, 240_000);
});

describe("claude's aliases", () => {
  const sb = CLAUDE.sandbox("usage-claude-models");

  it("prices --model sonnet and --model haiku as Claude Code itself does", async () => {
    expect((await sb.cli(["install", "claude", "--yes"])).code).toBe(0);
    const own = new Map<string, number>();
    for (const alias of ["sonnet", "haiku"]) {
      const res = await CLAUDE.exec(sb, ["--model", alias, "SCENARIO_BASH echo priced"]);
      expect(res.code, res.stderr).toBe(0);
      own.set(CLAUDE.session(res)!, Number(res.json?.total_cost_usd));
    }
    const sessions = await json<{
      rows: Array<Record<string, unknown>>;
      totals: { cost_usd: number | null };
    }>(sb, ["usage", "session", "--timezone", "UTC"]);
    expect(sessions.rows.map((r) => r.models).sort()).toEqual([["claude-haiku-5-5"], ["claude-sonnet-5-5"]]);
    for (const row of sessions.rows) {
      expect(row.unpriced_models).toEqual([]);
      expect(row.cost_usd as number).toBeCloseTo(own.get(row.provider_session_id as string)!, 6);
    }
    expect(sessions.totals.cost_usd).not.toBeNull();
    const table = await text(sb, ["usage", "daily", "--breakdown", "--timezone", "UTC"]);
    expect(table).not.toMatch(/≥\$|unknown/);
  }, 240_000);
});

describe("codex", () => {
  const sb = CODEX.sandbox("usage-codex");

  it("its rows carry the tokens inspect shows, cached input apart", async () => {
    expect((await sb.cli(["install", "codex", "--yes", "--transport", "command"])).code).toBe(0);
    const thread = await oneSession(CODEX, sb);
    const { inspected, row, daily } = await expectRowsOfInspect(sb, "codex", thread);
    // OpenAI's output counts include the reasoning tokens: as recorded; its input, the cache reads.
    const recorded = inspected.usage.recorded;
    expect(row.output_tokens).toBe(recorded.output_tokens);
    expect(row.input_tokens).toBe(recorded.input_tokens - recorded.cache_read_input_tokens);
    // Codex's own total of each response is what the row totals.
    const events = usageEvents(inspected.path);
    expect(row.total_tokens).toBe(events.reduce((n, e) => n + (e.usage?.total_tokens ?? 0), 0));
    // The mock's model has no price: unknown, never 0.
    expect(row.cost_usd).toBeNull();
    expect(daily.totals.cost_usd).toBeNull();
    const table = await text(sb, ["usage", "daily", "--breakdown", "--timezone", "UTC"]);
    expect(table).toMatch(/Codex CLI .* unknown +1\n/);
    expect(table).toContain("Codex CLI: input as reported includes the cache reads");
  }, 240_000);
});

describe("gemini", () => {
  const sb = GEMINI.sandbox("usage-gemini");

  it("its rows carry the tokens inspect shows, with thinking as output and the router call named", async () => {
    expect((await sb.cli(["install", "gemini", "--yes"])).code).toBe(0);
    const id = await oneSession(GEMINI, sb, { timeoutMs: 45_000 });
    const { inspected, row } = await expectRowsOfInspect(sb, "gemini", id);
    const events = usageEvents(inspected.path);
    const thinking = events.reduce((n, e) => n + (e.usage?.reasoning_output_tokens ?? 0), 0);
    expect(thinking).toBeGreaterThan(0);
    expect(inspected.usage.recorded.reasoning_output_tokens).toBe(thinking);
    expect(row.output_tokens).toBe(inspected.usage.recorded.output_tokens + thinking);
    // What Gemini was served in its streamed calls, all of it; its router calls (generateContent) are the gap.
    const streamed = sb.mock.usageLog.filter((u) => u.kind === "streamGenerateContent");
    const served = streamed.reduce(
      (n, u) => n + u.usage.promptTokenCount + u.usage.candidatesTokenCount + u.usage.thoughtsTokenCount,
      0,
    );
    expect(row.total_tokens).toBe(served);
    expect(sb.mock.usageLog.some((u) => u.kind !== "streamGenerateContent")).toBe(true);
    expect(row.gaps).toEqual([
      "the model-router call before each prompt reaches no hook or file: not counted",
    ]);
    const table = await text(sb, ["usage", "daily", "--timezone", "UTC"]);
    expect(table).toContain("Gemini CLI: the model-router call before each prompt reaches no hook or file");
    expect(table).toMatch(/Gemini CLI .* 1\n/);
  }, 240_000);
});
