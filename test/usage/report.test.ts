import { describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { BUILTIN_PRICES } from "../../src/usage/pricing.ts";
import { REPORT_KINDS } from "../../src/usage/report.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { claudeUsage, codexUsage, recordUsage, report } from "./sessions.ts";

const project = useTempProjects("tapedeck-usage-");

const SONNET = BUILTIN_PRICES.models["claude-sonnet-4"]!;
const GPT5 = BUILTIN_PRICES.models["gpt-5"]!;

describe("usage report: figures and cost", () => {
  it("prices a known model at the table's dated prices, and says unknown (null, never 0) for one it lacks", () => {
    const p = project();
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", [
      {
        at: "2026-12-01T10:01:00.000Z",
        usage: claudeUsage("claude-sonnet-4-5-20250929", 1234, 567, 8910, 1112),
      },
    ]);
    recordUsage(p, "claude", "b", "2026-12-02T10:00:00.000Z", [
      { at: "2026-12-02T10:01:00.000Z", usage: claudeUsage("my-own-model", 100, 10) },
    ]);
    const r = report([p], { kind: "daily" });
    const [known, unknown] = r.rows;
    const expected =
      (1234 * SONNET.input + 567 * SONNET.output + 8910 * SONNET.cache_read! + 1112 * SONNET.cache_write!) /
      1e6;
    expect(known).toMatchObject({
      date: "2026-12-01",
      provider: "claude",
      total_tokens: 1234 + 567 + 8910 + 1112,
    });
    expect(known!.cost_usd).toBeCloseTo(expected, 9);
    expect(known!.prices_as_of).toEqual([SONNET.as_of]);
    expect(unknown).toMatchObject({ date: "2026-12-02", cost_usd: null, priced_cost_usd: null });
    expect(unknown!.unpriced_models).toEqual(["my-own-model"]);
    expect(r.totals.cost_usd).toBeNull();
    expect(r.priced_cost_usd).toBeCloseTo(expected, 9);
  });

  it("takes a project's own prices from its config", () => {
    const p = project();
    writeConfig(p, {
      schema_version: 1,
      providers: {},
      pricing: { as_of: "2026-06-01", models: { "my-own-model": { input: 2, output: 8 } } },
    } as never);
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", [
      { at: "2026-12-01T10:01:00.000Z", usage: claudeUsage("my-own-model", 1000, 100, 500) },
    ]);
    const [row] = report([p], { kind: "model" }).rows;
    // No cache price given: cache reads at the input price.
    expect(row!.cost_usd).toBeCloseTo((1000 * 2 + 100 * 8 + 500 * 2) / 1e6, 9);
    expect(row!.prices_as_of).toEqual(["2026-06-01"]);
  });

  it("shows OpenAI's cached input apart from input, so totals and cost count it once", () => {
    const p = project();
    recordUsage(p, "codex", "a", "2026-12-01T10:00:00.000Z", [
      {
        at: "2026-12-01T10:01:00.000Z",
        usage: codexUsage("gpt-5", 3000, 120, "resp_1", {
          cache_read_input_tokens: 2000,
          reasoning_output_tokens: 64,
          total_tokens: 3120,
        }),
      },
    ]);
    const r = report([p], { kind: "daily" });
    expect(r.rows[0]).toMatchObject({
      input_tokens: 1000,
      cache_read_input_tokens: 2000,
      output_tokens: 120,
    });
    // Codex's own total_tokens: what it was billed for.
    expect(r.rows[0]!.total_tokens).toBe(3120);
    expect(r.rows[0]!.cost_usd).toBeCloseTo(
      (1000 * GPT5.input + 120 * GPT5.output + 2000 * GPT5.cache_read!) / 1e6,
      12,
    );
    expect(r.cache_reads_taken_from_input).toEqual(["codex"]);
  });

  it("adds no Codex record without a response id: a running thread total, not a response", () => {
    const p = project();
    recordUsage(p, "codex", "a", "2026-12-01T10:00:00.000Z", [
      { at: "2026-12-01T10:01:00.000Z", usage: codexUsage("gpt-5", 100, 10, "r1") },
      // What exec --json's turn.completed carries: the thread so far.
      { at: "2026-12-01T10:02:00.000Z", usage: codexUsage("gpt-5", 100, 10) },
    ]);
    expect(report([p], { kind: "session" }).rows[0]).toMatchObject({ input_tokens: 100, output_tokens: 10 });
  });

  it("takes Gemini's cache reads, which come in their own event, out of the hook's input, and adds thinking to output", () => {
    const p = project();
    recordUsage(p, "gemini", "g", "2026-12-01T10:00:00.000Z", [
      // AfterModel: promptTokenCount (cache included) and candidates; the chat file's cache and thoughts later.
      {
        at: "2026-12-01T10:01:00.000Z",
        usage: {
          source: "gemini-hook",
          model: "gemini-2.5-pro",
          input_tokens: 1200,
          output_tokens: 30,
          total_tokens: 1290,
        },
      },
      {
        at: "2026-12-01T10:20:00.000Z",
        usage: {
          source: "gemini-chat",
          model: "gemini-2.5-pro",
          message_id: "m1",
          cache_read_input_tokens: 500,
          reasoning_output_tokens: 60,
        },
      },
    ]);
    const r = report([p], { kind: "daily", breakdown: true });
    expect(r.rows[0]).toMatchObject({
      input_tokens: 700,
      cache_read_input_tokens: 500,
      output_tokens: 90,
      total_tokens: 1290,
      sources: ["gemini-chat", "gemini-hook"],
    });
    expect(r.rows[0]!.gaps).toEqual([
      "the model-router call before each prompt reaches no hook or file: not counted",
    ]);
  });

  it("lists no model for a record of no tokens: never `unknown model … $0.0000`", () => {
    const p = project();
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", [
      { at: "2026-12-01T10:01:00.000Z", usage: claudeUsage("claude-haiku-5-5", 100, 10, 0, 0, "m1") },
      // Claude Code's synthetic message (an interrupted turn), and a record that named no model.
      { at: "2026-12-01T10:02:00.000Z", usage: claudeUsage("<synthetic>", 0, 0, 0, 0, "m2") },
      { at: "2026-12-01T10:03:00.000Z", usage: { source: "claude-transcript", message_id: "m3" } },
    ]);
    const r = report([p], { kind: "daily", breakdown: true });
    expect(r.rows[0]!.breakdown!.map((b) => b.model)).toEqual(["claude-haiku-5-5"]);
    expect(r.rows[0]!.models).toEqual(["claude-haiku-5-5"]);
    expect(r.rows[0]!.cost_usd).toBeCloseTo((100 * 0.1 + 10 * 0.5) / 1e6, 12);
    expect(r.rows[0]!.unpriced_models).toEqual([]);
  });

  it("counts a response reported twice (same message id, two sources) once", () => {
    const p = project();
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", [
      { at: "2026-12-01T10:01:00.000Z", usage: claudeUsage("claude-sonnet-4", 100, 10, 0, 0, "msg_1") },
      {
        at: "2026-12-01T10:01:01.000Z",
        usage: { ...claudeUsage("claude-sonnet-4", 100, 10, 0, 0, "msg_1"), source: "proxy" },
      },
      { at: "2026-12-01T10:02:00.000Z", usage: claudeUsage("claude-sonnet-4", 200, 20, 0, 0, "msg_2") },
    ]);
    const [row] = report([p], { kind: "session" }).rows;
    expect(row).toMatchObject({
      input_tokens: 300,
      output_tokens: 30,
      sources: ["claude-transcript", "proxy"],
    });
    // The proxy saw this session: the gap it closes is not stated.
    expect(row!.gaps).toEqual([]);
  });

  it("gives a provider that records no usage unknown figures and cost, and a session without usage none", () => {
    const p = project();
    recordUsage(p, "antigravity", "x", "2026-12-01T10:00:00.000Z", []);
    recordUsage(p, "claude", "quit", "2026-12-01T11:00:00.000Z", []);
    const r = report([p], { kind: "daily" });
    expect(r.rows).toMatchObject([
      {
        provider: "claude",
        input_tokens: 0,
        total_tokens: 0,
        cost_usd: 0,
        sessions: 1,
        sessions_without_usage: 1,
      },
      { provider: "antigravity", input_tokens: null, total_tokens: null, cost_usd: null, sessions: 1 },
    ]);
    expect(r.totals.cost_usd).toBeNull();
  });
});

describe("usage report: days, weeks, months and time zones", () => {
  function midnightSession(p: string) {
    // 23:50 to 00:20 UTC, 1 December to 2 December (a Tuesday and a Wednesday).
    recordUsage(p, "claude", "night", "2026-12-01T23:50:00.000Z", [
      { at: "2026-12-01T23:55:00.000Z", usage: claudeUsage("claude-sonnet-4", 100, 1) },
      { at: "2026-12-02T00:05:00.000Z", usage: claudeUsage("claude-sonnet-4", 200, 2) },
      { at: "2026-12-02T00:20:00.000Z", usage: claudeUsage("claude-sonnet-4", 400, 4) },
    ]);
  }

  it("splits a session across midnight by the time of each response, in the report's time zone", () => {
    const p = project();
    midnightSession(p);
    const days = (tz: string) =>
      report([p], { kind: "daily", timeZone: tz }).rows.map((r) => [r.date, r.input_tokens, r.sessions]);
    expect(days("UTC")).toEqual([
      ["2026-12-01", 100, 1],
      ["2026-12-02", 600, 1],
    ]);
    expect(days("America/New_York")).toEqual([["2026-12-01", 700, 1]]);
    expect(days("Asia/Tokyo")).toEqual([["2026-12-02", 700, 1]]);
    // +05:45: its midnight is 18:15 UTC, inside no 15-minute slot.
    recordUsage(p, "claude", "kathmandu", "2026-12-03T18:00:00.000Z", [
      { at: "2026-12-03T18:14:59.999Z", usage: claudeUsage("claude-sonnet-4", 1, 0) },
      { at: "2026-12-03T18:15:00.000Z", usage: claudeUsage("claude-sonnet-4", 2, 0) },
    ]);
    expect(days("Asia/Kathmandu").slice(-2)).toEqual([
      ["2026-12-03", 1, 1],
      ["2026-12-04", 2, 1],
    ]);
  });

  it("counts weeks from Monday and months by the local date", () => {
    const p = project();
    midnightSession(p);
    recordUsage(p, "claude", "sunday", "2026-12-06T12:00:00.000Z", [
      { at: "2026-12-06T12:00:00.000Z", usage: claudeUsage("claude-sonnet-4", 1000, 0) },
    ]);
    recordUsage(p, "claude", "monday", "2026-12-07T12:00:00.000Z", [
      { at: "2026-12-07T12:00:00.000Z", usage: claudeUsage("claude-sonnet-4", 2000, 0) },
    ]);
    expect(report([p], { kind: "weekly" }).rows.map((r) => [r.week, r.input_tokens, r.sessions])).toEqual([
      ["2026-11-30", 1700, 2],
      ["2026-12-07", 2000, 1],
    ]);
    expect(
      report([p], { kind: "monthly", timeZone: "Pacific/Honolulu" }).rows.map((r) => [
        r.month,
        r.input_tokens,
      ]),
    ).toEqual([["2026-12", 3700]]);
  });

  it("gives every report the same totals, and filters by local dates and by durations exactly", () => {
    const p = project();
    midnightSession(p);
    recordUsage(p, "codex", "c", "2026-12-02T09:00:00.000Z", [
      { at: "2026-12-02T09:00:00.000Z", usage: codexUsage("gpt-5", 50, 5, "r-c") },
    ]);
    const totals = REPORT_KINDS.map((kind) => report([p], { kind }).totals);
    for (const t of totals) expect(t).toEqual(totals[0]);
    expect(Object.keys(totals[0]!)).toEqual([
      "input_tokens",
      "output_tokens",
      "cache_read_input_tokens",
      "cache_creation_input_tokens",
      "cost_usd",
    ]);
    expect(report([p], { kind: "session", since: "2026-12-02" }).totals.input_tokens).toBe(650);
    expect(report([p], { kind: "session", until: "20261201" }).totals.input_tokens).toBe(100);
    // In New York the night session is all on 1 December, Codex's 09:00 UTC on the 2nd.
    const ny = report([p], { kind: "daily", since: "2026-12-02", timeZone: "America/New_York" });
    expect(ny.rows.map((r) => [r.date, r.provider])).toEqual([["2026-12-02", "codex"]]);
    // 12 minutes before 00:17 is 00:05: the slot 00:00-00:15 is cut, and the session is read again exactly.
    const now = Date.parse("2026-12-02T00:17:00.000Z");
    expect(report([p], { kind: "model", since: "12m", now, provider: "claude" }).totals.input_tokens).toBe(
      200 + 400,
    );
    expect(report([p], { kind: "model", since: "11m", now, provider: "claude" }).totals.input_tokens).toBe(
      400,
    );
    expect(report([p], { kind: "model", until: "2026-12-02T00:05:00.000Z" }).totals.input_tokens).toBe(300);
  });

  it("refuses an unknown report, time zone or date with a message", () => {
    const p = project();
    expect(() => report([p], { kind: "yearly" as never })).toThrow(/unknown report "yearly"/);
    expect(() => report([p], { kind: "daily", timeZone: "Mars/Olympus" })).toThrow(/unknown time zone/);
    expect(() => report([p], { kind: "daily", since: "2026-02-30" })).toThrow(
      /--since: "2026-02-30" is not a date/,
    );
    expect(() => report([p], { kind: "daily", until: "yesterday" })).toThrow(/--until/);
  });

  it("keeps providers and projects apart, and filters one provider", () => {
    const a = project();
    const b = project();
    recordUsage(a, "claude", "a1", "2026-12-01T10:00:00.000Z", [
      { at: "2026-12-01T10:00:00.000Z", usage: claudeUsage("claude-sonnet-4", 1, 1) },
    ]);
    recordUsage(b, "claude", "b1", "2026-12-01T11:00:00.000Z", [
      { at: "2026-12-01T11:00:00.000Z", usage: claudeUsage("claude-sonnet-4", 2, 2) },
    ]);
    recordUsage(b, "codex", "b2", "2026-12-01T12:00:00.000Z", [
      { at: "2026-12-01T12:00:00.000Z", usage: codexUsage("gpt-5", 4, 4, "r-b2") },
    ]);
    const both = report([a, b], { kind: "daily" });
    expect(both.rows.map((r) => [r.provider, r.input_tokens, r.sessions])).toEqual([
      ["claude", 3, 2],
      ["codex", 4, 1],
    ]);
    expect(report([a, b], { kind: "session", provider: "codex" }).rows.map((r) => r.project)).toEqual([b]);
  });
});
