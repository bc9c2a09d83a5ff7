import { describe, expect, it } from "vitest";
import {
  BUILTIN_PRICES,
  CostAccumulator,
  costOf,
  formatCost,
  priceFor,
  priceTable,
} from "../../src/usage/pricing.ts";

const tokens = (input: number, output: number, read = 0, write = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
});

describe("prices", () => {
  it("reproduce Claude Code's own cost records for claude-opus-5-5", () => {
    // A print-mode run: 5,742 input and 38 output tokens, reported as 0.023728 USD.
    expect(costOf(priceFor(BUILTIN_PRICES, "claude-opus-5-5")!, tokens(5742, 38))).toBeCloseTo(0.023728, 9);
    // A resumed session's estimated cache write: 1,402 tokens, 0.007 USD.
    expect(costOf(priceFor(BUILTIN_PRICES, "claude-opus-5-5")!, tokens(0, 0, 0, 1402))).toBeCloseTo(0.007, 4);
  });

  it("find a dated model id by its family, the longest prefix first, and only whole segments", () => {
    expect(priceFor(BUILTIN_PRICES, "claude-sonnet-4-5-20250929")).toBe(
      BUILTIN_PRICES.models["claude-sonnet-4"],
    );
    expect(priceFor(BUILTIN_PRICES, "gpt-5-mini-2025-08-07")).toBe(BUILTIN_PRICES.models["gpt-5-mini"]);
    expect(priceFor(BUILTIN_PRICES, "gemini-2.5-flash-lite")).toBe(
      BUILTIN_PRICES.models["gemini-2.5-flash-lite"],
    );
    expect(priceFor(BUILTIN_PRICES, "gpt-50")).toBeUndefined();
    expect(priceFor(BUILTIN_PRICES, "constructor")).toBeUndefined();
    expect(priceFor(BUILTIN_PRICES, undefined)).toBeUndefined();
  });

  it("take a project's overrides, dated, and ignore what is not a price", () => {
    const table = priceTable({
      as_of: "2026-06-01",
      models: {
        "gpt-mock": { input: 1, output: 2 },
        "claude-opus-5-5": { input: 8, output: 40, cache_read: 0.8, cache_write: 10 },
        broken: { input: "free" },
        negative: { input: -1, output: 1 },
        // As JSON.parse makes it from a config file: an own key, which as a plain assignment sets the prototype.
        ...JSON.parse('{"__proto__": {"input": 1, "output": 1}}'),
      },
    });
    expect(priceFor(table, "gpt-mock")).toMatchObject({ input: 1, output: 2, as_of: "2026-06-01" });
    expect(priceFor(table, "claude-opus-5-5")).toMatchObject({ input: 8 });
    expect(priceFor(table, "broken")).toBeUndefined();
    expect(priceFor(table, "negative")).toBeUndefined();
    expect(Object.getPrototypeOf(table.models)).toBe(Object.prototype);
    expect(priceTable("not an object")).toBe(BUILTIN_PRICES);
    expect(priceTable({ models: { x: {} } })).toBe(BUILTIN_PRICES);
  });

  it("estimate over several models, name the ones without a price, and label the dates used", () => {
    const acc = new CostAccumulator();
    acc.add("claude-opus-5-5", tokens(1_000_000, 0));
    acc.add("gpt-5", tokens(0, 1_000_000));
    acc.add("gpt-mock", tokens(10, 10));
    acc.add("gpt-mock", tokens(0, 0));
    const c = acc.result();
    expect(c.usd).toBeCloseTo(14, 9);
    expect(c.unpriced_models).toEqual(["gpt-mock"]);
    expect(c.as_of).toBe("2025-11-01, 2026-11-30");
    expect(formatCost(c)).toBe("~$14.00 est. (prices of 2025-11-01, 2026-11-30; no price for gpt-mock)");
    const none = new CostAccumulator();
    none.add("gpt-mock", tokens(1, 1));
    expect(formatCost(none.result())).toBe(
      "cost unknown (no price for gpt-mock in the price table of 2025-11-01)",
    );
    expect(formatCost(new CostAccumulator().result())).toBe("");
  });
});
