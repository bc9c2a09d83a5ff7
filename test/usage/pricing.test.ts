import { describe, expect, it } from "vitest";
import { money } from "../../src/usage/figure-text.ts";
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

  it("price every model the pinned Claude Code names, and its aliases, as its own catalog does", () => {
    // The first-party ids of Claude Code 2.1.332's model catalog, and what `--model opus|sonnet|haiku` resolve to.
    const catalog: Array<[string, [number, number, number, number]]> = [
      ["claude-3-5-haiku-20241022", [0.8, 4, 1, 0.08]],
      ["claude-haiku-4-5-20251001", [1, 5, 1.25, 0.1]],
      ["claude-haiku-5-5", [0.1, 0.5, 0.125, 0.01]],
      ["claude-3-5-sonnet-20241022", [3, 15, 3.75, 0.3]],
      ["claude-3-7-sonnet-20250219", [3, 15, 3.75, 0.3]],
      ["claude-sonnet-4-20250514", [3, 15, 3.75, 0.3]],
      ["claude-sonnet-4-5-20250929", [3, 15, 3.75, 0.3]],
      ["claude-sonnet-4-6", [3, 15, 3.75, 0.3]],
      ["claude-sonnet-5", [2, 10, 2.5, 0.2]],
      ["claude-sonnet-5-5", [2, 10, 2.5, 0.1]],
      ["claude-opus-4-20250514", [15, 75, 18.75, 1.5]],
      ["claude-opus-4-1-20250805", [15, 75, 18.75, 1.5]],
      ["claude-opus-4-5-20251101", [5, 25, 6.25, 0.5]],
      ["claude-opus-4-6", [5, 25, 6.25, 0.5]],
      ["claude-opus-4-7", [5, 25, 6.25, 0.5]],
      ["claude-opus-4-8", [5, 25, 6.25, 0.5]],
      ["claude-opus-5", [5, 25, 6.25, 0.5]],
      ["claude-opus-5-5", [4, 20, 5, 0.2]],
      ["claude-fable-5", [10, 50, 12.5, 1]],
      ["claude-fable-5-1", [10, 50, 12.5, 0.25]],
      ["claude-fable-5-2", [8, 40, 10, 0.2]],
      ["claude-mythos-5", [10, 50, 12.5, 1]],
      ["claude-mythos-5-1", [10, 50, 12.5, 0.25]],
      ["claude-mythos-5-2", [8, 40, 10, 0.2]],
    ];
    for (const [model, [input, output, cacheWrite, cacheRead]] of catalog) {
      const price = priceFor(BUILTIN_PRICES, model);
      expect(price, model).toMatchObject({ input, output, cache_write: cacheWrite, cache_read: cacheRead });
      expect(price!.source, model).toMatch(/Claude Code 2\.1\.332's model catalog/);
      expect(price!.as_of, model).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
  });

  it("price the Gemini CLI's preview models from Google's list, each dated", () => {
    for (const model of [
      "gemini-3.1-pro-preview",
      "gemini-3.1-pro-preview-customtools",
      "gemini-3-pro-preview",
    ]) {
      expect(priceFor(BUILTIN_PRICES, model), model).toMatchObject({ input: 2, output: 12, cache_read: 0.2 });
    }
    expect(priceFor(BUILTIN_PRICES, "gemini-3-flash-preview")).toMatchObject({ input: 0.5, output: 3 });
    for (const model of ["gemini-3.1-pro-preview", "gemini-3-pro-preview", "gemini-3-flash-preview"]) {
      expect(priceFor(BUILTIN_PRICES, model)!.as_of, model).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(priceFor(BUILTIN_PRICES, model)!.source, model).toMatch(/Google's Gemini API list price/);
    }
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
    expect(priceTable({ models: {} })).toBe(BUILTIN_PRICES);
    expect(table.refused?.map((r) => r.model)).toEqual(["broken", "negative", "__proto__"]);
    const none = priceTable({ models: { x: {} } });
    expect(none.models).toBe(BUILTIN_PRICES.models);
    expect(none.refused).toEqual([{ model: "x", reason: "input is missing" }]);
  });

  it("refuse a project's price of 0 or above 1000 USD per million, each named with why", () => {
    const table = priceTable({
      models: {
        free: { input: 0, output: 1 },
        huge: { input: 1, output: 1e308 },
        over: { input: 1000.5, output: 1 },
        "cache-zero": { input: 1, output: 1, cache_read: 0 },
        top: { input: 1000, output: 1000, cache_read: 1000, cache_write: 1000 },
        list: [1, 2],
      },
    });
    expect(priceFor(table, "top")).toMatchObject({ input: 1000, source: "project config" });
    for (const m of ["free", "huge", "over", "cache-zero", "list"])
      expect(priceFor(table, m), m).toBeUndefined();
    expect(table.refused).toEqual([
      { model: "free", reason: "input 0 is out of range (above 0, at most 1000 USD per million tokens)" },
      {
        model: "huge",
        reason: "output 1e+308 is out of range (above 0, at most 1000 USD per million tokens)",
      },
      {
        model: "over",
        reason: "input 1000.5 is out of range (above 0, at most 1000 USD per million tokens)",
      },
      {
        model: "cache-zero",
        reason: "cache_read 0 is out of range (above 0, at most 1000 USD per million tokens)",
      },
      { model: "list", reason: "not an object of prices" },
    ]);
    expect(priceTable({ models: "gpt-5" }).refused).toEqual([
      { model: "models", reason: "not an object of model ids" },
    ]);
  });

  it("never print Infinity or NaN, whatever counts the archive holds", () => {
    const acc = new CostAccumulator();
    acc.add("gpt-5", tokens(1e308, 1e308));
    const c = acc.result();
    expect(c.usd).toBeNull();
    expect(formatCost(c)).toBe("cost unknown (no price for gpt-5 in the price table of 2025-11-01)");
    const big = new CostAccumulator();
    big.add("gpt-5", tokens(1e300, 0));
    big.merge({ usd: Number.MAX_VALUE, unpriced_models: [], project_priced_models: [], as_of: "2025-11-01" });
    expect(formatCost(big.result())).not.toMatch(/Infinity|NaN/);
    expect(
      formatCost({
        usd: Number.POSITIVE_INFINITY,
        unpriced_models: [],
        project_priced_models: [],
        as_of: "x",
      }),
    ).toBe("cost unknown (no amount in the price table of x)");
    expect(money(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY)).toBe("unknown");
    expect(money(null, Number.NaN)).toBe("unknown");
    expect(money(null, 1.5)).toBe("≥$1.50");
  });

  it("show a model id and a date from a file on one line", () => {
    const c = {
      usd: 1,
      unpriced_models: ["m\nFORGED\x1b[2J"],
      project_priced_models: ["p\r\nx"],
      as_of: "2026\nFORGED",
    };
    expect(formatCost(c)).toBe(
      "~$1.00 est. (prices of 2026\ufffdFORGED; no price for m\ufffdFORGED\ufffd; the project's own price for p\ufffd\ufffdx)",
    );
  });

  it("name the project's own prices in the estimate", () => {
    const acc = new CostAccumulator(
      priceTable({ as_of: "2026-06-01", models: { "my-model": { input: 1, output: 1 } } }),
    );
    acc.add("my-model", tokens(1_000_000, 0));
    acc.add("gpt-5", tokens(1_000_000, 0));
    expect(acc.result().project_priced_models).toEqual(["my-model"]);
    expect(formatCost(acc.result())).toBe(
      "~$2.25 est. (prices of 2025-11-01, 2026-06-01; the project's own price for my-model)",
    );
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
    expect(c.as_of).toBe("2025-11-01, 2026-11-24");
    expect(formatCost(c)).toBe("~$14.00 est. (prices of 2025-11-01, 2026-11-24; no price for gpt-mock)");
    const none = new CostAccumulator();
    none.add("gpt-mock", tokens(1, 1));
    expect(formatCost(none.result())).toBe(
      "cost unknown (no price for gpt-mock in the price table of 2025-11-01)",
    );
    expect(formatCost(new CostAccumulator().result())).toBe("");
  });
});
