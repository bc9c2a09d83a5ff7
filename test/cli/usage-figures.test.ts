// One session, one figure: `list`, `show`, `inspect` and `usage` give a session of each provider the same token
// counts and total, in the one meaning (core/read/usage-facts.ts inOneMeaning), and `show` and `usage` the same
// cost. Each provider's records have the shape its recorder writes: Claude's transcript counts, Codex's rollout
// (input with its cache reads inside, reasoning inside output), Gemini's hook and chat-file records (the
// thinking tokens apart from output, the cache reads in a record of their own after the response's input).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOKEN_FIELDS } from "../../src/core/archive/manifest-counters.ts";
import type { Usage } from "../../src/core/archive/schemas.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { claudeUsage, codexUsage, recordUsage, type UsageAt } from "../usage/sessions.ts";

const project = useTempProjects("tapedeck-usage-figures-");

interface Counts {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

const FOUR = TOKEN_FIELDS;

const four = (x: Record<string, unknown>): Counts =>
  Object.fromEntries(FOUR.map((k) => [k, x[k]])) as unknown as Counts;

const total = (c: Counts) => FOUR.reduce((n, k) => n + c[k], 0);

const geminiHook = (model: string, input: number, output: number, id: string): Usage => ({
  source: "gemini-hook",
  model,
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  message_id: `hook-${id}`,
});

const geminiChat = (model: string, cached: number, thoughts: number, id: string): Usage => ({
  source: "gemini-chat",
  model,
  message_id: id,
  cache_read_input_tokens: cached,
  reasoning_output_tokens: thoughts,
});

const SESSIONS: Array<{ provider: string; id: string; usages: UsageAt[]; expected: Counts }> = [
  {
    provider: "claude",
    id: "c1",
    usages: [
      {
        at: "2026-12-01T10:01:00.000Z",
        usage: claudeUsage("claude-sonnet-4-5", 12, 340, 15_000, 2_100, "m1"),
      },
      { at: "2026-12-01T10:02:00.000Z", usage: claudeUsage("claude-sonnet-4-5", 3, 120, 17_100, 400, "m2") },
    ],
    expected: {
      input_tokens: 15,
      output_tokens: 460,
      cache_read_input_tokens: 32_100,
      cache_creation_input_tokens: 2_500,
    },
  },
  {
    provider: "codex",
    id: "x1",
    usages: [
      {
        at: "2026-12-01T11:01:00.000Z",
        usage: codexUsage("gpt-5", 9_000, 700, "r1", {
          cache_read_input_tokens: 6_000,
          reasoning_output_tokens: 500,
          total_tokens: 9_700,
        }),
      },
      {
        at: "2026-12-01T11:02:00.000Z",
        usage: codexUsage("gpt-5", 11_000, 300, "r2", {
          cache_read_input_tokens: 8_960,
          reasoning_output_tokens: 64,
          total_tokens: 11_300,
        }),
      },
    ],
    // Input without its cache reads; reasoning is inside OpenAI's output already.
    expected: {
      input_tokens: 5_040,
      output_tokens: 1_000,
      cache_read_input_tokens: 14_960,
      cache_creation_input_tokens: 0,
    },
  },
  {
    provider: "gemini",
    id: "g1",
    usages: [
      { at: "2026-12-01T12:01:00.000Z", usage: geminiHook("gemini-2.5-pro", 8_000, 62, "a") },
      { at: "2026-12-01T12:01:30.000Z", usage: geminiChat("gemini-2.5-pro", 5_000, 9, "a") },
    ],
    // The cache reads out of the hook's input, the 9 thinking tokens in output: 62 + 9.
    expected: {
      input_tokens: 3_000,
      output_tokens: 71,
      cache_read_input_tokens: 5_000,
      cache_creation_input_tokens: 0,
    },
  },
];

async function json<T>(p: string, args: string[]): Promise<T> {
  const r = await runCliInProcess([...args, "--json", "--project", p], join(p, "home"));
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

async function text(p: string, args: string[]): Promise<string> {
  const r = await runCliInProcess([...args, "--project", p], join(p, "home"));
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

describe("one session, one figure in every command", () => {
  it.each(SESSIONS)("$provider: list, show, inspect and usage agree", async (s) => {
    const p = project();
    recordUsage(p, s.provider, s.id, "2026-12-01T10:00:00.000Z", s.usages);
    const id = `${s.provider}:${s.id}`;
    const expected = { ...s.expected, total_tokens: total(s.expected) };

    const [listed] = await json<Array<{ tokens: Record<string, number> }>>(p, ["list"]);
    expect(listed!.tokens).toEqual(expected);

    const inspected = await json<{ usage: Record<string, unknown> }>(p, ["inspect", id]);
    expect({ ...four(inspected.usage), total_tokens: inspected.usage.total_tokens }).toEqual(expected);

    const shown = await json<{ totals: { usage: Record<string, number>; estimated_cost: { usd: number } } }>(
      p,
      ["show", id],
    );
    expect(four(shown.totals.usage)).toEqual(s.expected);

    const usage = await json<{ rows: Array<Record<string, unknown>> }>(p, ["usage", "session"]);
    expect(usage.rows).toHaveLength(1);
    const row = usage.rows[0]!;
    expect({ ...four(row), total_tokens: row.total_tokens }).toEqual(expected);
    // The same tokens at the same prices: one cost.
    expect(shown.totals.estimated_cost.usd).toBeCloseTo(row.cost_usd as number, 9);

    // And the human forms say the same numbers.
    expect(await text(p, ["inspect", id])).toContain(
      `Tokens: ${s.expected.input_tokens} in · ${s.expected.output_tokens} out · ${s.expected.cache_read_input_tokens} cache read`,
    );
    expect(await text(p, ["show", id])).toContain(
      `Tokens: ${s.expected.input_tokens} in · ${s.expected.output_tokens} out · ${s.expected.cache_read_input_tokens} cache read`,
    );
  });

  it("inspect keeps the counts as recorded beside them", async () => {
    const p = project();
    const g = SESSIONS.find((x) => x.provider === "gemini")!;
    recordUsage(p, g.provider, g.id, "2026-12-01T10:00:00.000Z", g.usages);
    const inspected = await json<{ usage: { recorded: Record<string, number> } }>(p, [
      "inspect",
      "gemini:g1",
    ]);
    expect(inspected.usage.recorded).toEqual({
      input_tokens: 8_000,
      output_tokens: 62,
      cache_read_input_tokens: 5_000,
      cache_creation_input_tokens: 0,
      reasoning_output_tokens: 9,
    });
    expect(await text(p, ["inspect", "gemini:g1"])).toContain(
      "(as recorded: 8000 in (cache reads included) · 62 out · 9 thinking)",
    );
  });
});
