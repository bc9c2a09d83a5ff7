import { describe, expect, it } from "vitest";
import {
  flipTable,
  mcnemarExact,
  metricVerdict,
  pairedBootstrap,
  passVerdict,
  wilson,
} from "../../src/experiment/statistics.ts";

describe("wilson", () => {
  it("matches the textbook interval and stays inside [0, 1] at the extremes", () => {
    const i = wilson(8, 10)!;
    expect(i.estimate).toBe(0.8);
    expect(i.low).toBeCloseTo(0.4902, 3);
    expect(i.high).toBeCloseTo(0.9433, 3);
    const none = wilson(0, 5)!;
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.4345, 3);
    const all = wilson(3, 3)!;
    expect(all.high).toBe(1);
    expect(all.low).toBeCloseTo(0.4385, 3);
    expect(wilson(1, 0)).toBeNull();
  });
});

describe("mcnemarExact", () => {
  it("is the two-sided binomial tail of the discordant pairs", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 10);
    expect(mcnemarExact(6, 0)).toBeCloseTo(0.03125, 10);
    expect(mcnemarExact(7, 2)).toBeCloseTo(0.1797, 4);
    expect(mcnemarExact(3, 3)).toBe(1);
  });
});

describe("pairedBootstrap", () => {
  it("is reproducible, brackets the mean, and is a point when every difference is equal", () => {
    const diffs = [120, 80, 100, 95, 130, 70];
    const a = pairedBootstrap(diffs)!;
    expect(pairedBootstrap(diffs)).toEqual(a);
    expect(a.estimate).toBeCloseTo(99.1667, 3);
    expect(a.low).toBeLessThan(a.estimate);
    expect(a.high).toBeGreaterThan(a.estimate);
    expect(a.low).toBeGreaterThan(0);
    expect(pairedBootstrap([5, 5, 5])).toEqual({ estimate: 5, low: 5, high: 5 });
    expect(pairedBootstrap([])).toBeNull();
  });
});

describe("verdicts", () => {
  it("says not enough evidence with too few pairs or discordant pairs, however lopsided", () => {
    const t = flipTable([
      [true, false],
      [true, false],
    ]);
    expect(t).toEqual({ pass_pass: 0, pass_fail: 2, fail_pass: 0, fail_fail: 0 });
    expect(passVerdict(2, t).verdict).toBe("not enough evidence");
    expect(passVerdict(5, { pass_pass: 0, pass_fail: 5, fail_pass: 0, fail_fail: 0 }).verdict).toBe(
      "not enough evidence",
    );
    const strong = passVerdict(8, { pass_pass: 2, pass_fail: 6, fail_pass: 0, fail_fail: 0 });
    expect(strong.verdict).toBe("difference");
    expect(strong.p).toBeCloseTo(0.03125, 10);
    expect(passVerdict(10, { pass_pass: 2, pass_fail: 4, fail_pass: 4, fail_fail: 0 }).verdict).toBe(
      "no clear difference",
    );
    expect(metricVerdict([1, 2], pairedBootstrap([1, 2]))).toBe("not enough evidence");
    expect(metricVerdict([10, 12, 11], pairedBootstrap([10, 12, 11]))).toBe("difference");
    expect(metricVerdict([-1, 1, 0], pairedBootstrap([-1, 1, 0]))).toBe("no clear difference");
  });
});
