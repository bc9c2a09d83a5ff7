// @module-tag ccusage
// `tapedeck usage blocks --json` beside `ccusage blocks --json` (a dev dependency, offline) on the same Claude
// Code transcripts, imported with `tapedeck import claude`: the same 5-hour blocks and gaps, the same starts,
// ends, last responses, response counts, tokens, models and cost, and for the active block the same burn rate
// and projection (taken a moment apart: the projection's minutes left within one).
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/cli-run.ts";
import { useScratchDir } from "../helpers/temp-project.ts";
import type { Turn } from "./claude-transcript.ts";
import { machine } from "./machines-fixture.ts";

const scratch = useScratchDir("tapedeck-usage-blocks-");
beforeAll(ensureBuilt);

const CCUSAGE = join(process.cwd(), "node_modules", ".bin", "ccusage");
const SONNET = "claude-sonnet-4-5-20250929";
const HAIKU = "claude-haiku-4-5-20251001";

const at = (iso: string, input: number, model = SONNET): Turn => ({
  at: iso,
  model,
  input,
  output: input / 10,
  read: input * 8,
  write: input,
});

interface CcBlock {
  startTime: string;
  endTime: string;
  actualEndTime: string | null;
  isActive: boolean;
  isGap: boolean;
  entries: number;
  tokenCounts: Record<string, number>;
  totalTokens: number;
  costUSD: number;
  models: string[];
  burnRate: { tokensPerMinute: number; tokensPerMinuteForIndicator: number; costPerHour: number } | null;
  projection: { totalTokens: number; totalCost: number; remainingMinutes: number } | null;
}

describe("usage blocks against ccusage blocks", () => {
  it("cuts the same blocks and gaps, with the same figures, burn rate and projection", async () => {
    const root = scratch.fresh("root");
    mkdirSync(root);
    const m = machine(root, "home");
    const a = join(m.home, "a");
    const b = join(m.home, "b");
    const now = Date.now();
    const ago = (min: number) => new Date(now - min * 60_000).toISOString();
    // Steady work every two hours for twelve hours: new blocks by the 5 hours from a block's start, not by pause.
    await m.importSession(a, "aaaaaaaa-0000-4000-8000-000000000001", [
      at("2026-11-20T08:20:00.000Z", 1000),
      at("2026-11-20T10:20:00.000Z", 2000),
      at("2026-11-20T12:20:00.000Z", 3000),
      at("2026-11-20T14:20:00.000Z", 4000),
      at("2026-11-20T16:20:00.000Z", 5000),
      at("2026-11-20T18:20:00.000Z", 6000),
    ]);
    // Another project and model in the same minutes, then a pause of more than 5 hours (a gap).
    await m.importSession(b, "bbbbbbbb-0000-4000-8000-000000000002", [
      at("2026-11-20T08:21:00.000Z", 700, HAIKU),
      at("2026-11-20T08:29:00.000Z", 900, HAIKU),
      at("2026-11-21T03:05:00.000Z", 300, HAIKU),
      at("2026-11-21T03:59:00.000Z", 400),
    ]);
    // The active block: responses 95 and 20 minutes ago.
    await m.importSession(b, "cccccccc-0000-4000-8000-000000000003", [
      at(ago(95), 1500),
      at(ago(20), 2500, HAIKU),
    ]);

    const ours = JSON.parse((await m.cli(["usage", "blocks", "--all-projects", "--json"])).stdout).blocks;
    const theirs: CcBlock[] = JSON.parse(
      execFileSync(process.execPath, [CCUSAGE, "blocks", "--json", "--offline", "--timezone", "UTC"], {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: m.home,
          CLAUDE_CONFIG_DIR: join(m.home, ".claude"),
        },
        encoding: "utf8",
      }),
    ).blocks;
    expect(theirs.length).toBeGreaterThan(5);
    expect(theirs.some((x) => x.isGap)).toBe(true);
    expect(ours.length).toBe(theirs.length);
    theirs.forEach((t, i) => {
      const o = ours[i];
      expect({
        start: o.start,
        end: o.end,
        actual_end: o.actual_end,
        active: o.active,
        gap: o.gap,
        entries: o.entries,
        tokens: [o.input_tokens, o.output_tokens, o.cache_read_input_tokens, o.cache_creation_input_tokens],
        total: o.total_tokens,
        models: [...o.models].sort(),
      }).toEqual({
        start: t.startTime,
        end: t.endTime,
        actual_end: t.actualEndTime,
        active: t.isActive,
        gap: t.isGap,
        entries: t.entries,
        tokens: [
          t.tokenCounts.inputTokens,
          t.tokenCounts.outputTokens,
          t.tokenCounts.cacheReadInputTokens,
          t.tokenCounts.cacheCreationInputTokens,
        ],
        total: t.totalTokens,
        models: [...t.models].sort(),
      });
      expect(Math.abs(o.cost_usd - t.costUSD)).toBeLessThan(1e-9);
      if (!t.isActive) {
        expect([o.burn_rate, o.projection]).toEqual([null, null]);
        return;
      }
      expect(o.burn_rate.tokens_per_minute).toBeCloseTo(t.burnRate!.tokensPerMinute, 9);
      expect(o.burn_rate.tokens_per_minute_for_indicator).toBeCloseTo(
        t.burnRate!.tokensPerMinuteForIndicator,
        9,
      );
      expect(o.burn_rate.cost_per_hour).toBeCloseTo(t.burnRate!.costPerHour, 9);
      expect(Math.abs(o.projection.remaining_minutes - t.projection!.remainingMinutes)).toBeLessThanOrEqual(
        1,
      );
      const slack = 2 * t.burnRate!.tokensPerMinute;
      expect(Math.abs(o.projection.total_tokens - t.projection!.totalTokens)).toBeLessThanOrEqual(slack);
    });
    expect(ours.filter((x: { active: boolean }) => x.active)).toHaveLength(1);
  });
});
