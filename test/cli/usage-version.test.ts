// The cache-read share of input per agent CLI version: `usage --breakdown version` shows it per row and flags a
// new version whose share fell by more than half on the same project; `tapedeck doctor` warns of the same. The
// version comes from the records (Claude Code's transcript names its own on every line).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { usageFromRecord } from "../../src/providers/claude/transcript-usage.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { claudeUsage, recordUsage } from "../usage/sessions.ts";

const project = useTempProjects("tapedeck-usage-version-");

const turns = (day: string, version: string, read: number, n = 6) =>
  Array.from({ length: n }, (_, i) => ({
    at: `${day}T10:0${i}:00.000Z`,
    usage: {
      ...claudeUsage("claude-sonnet-4-5", 100, 50, read, 100, `${version}-${day}-${i}`),
      agent_version: version,
    },
  }));

const usage = (p: string, args: string[]) =>
  runCliInProcess(["usage", ...args, "--project", p], join(p, "home"));

describe("usage --breakdown version", () => {
  it("reads Claude Code's version from its transcript records", () => {
    const record = {
      type: "assistant",
      version: "2.1.301",
      message: { id: "msg_1", model: "claude-sonnet-4-5", usage: { input_tokens: 3, output_tokens: 1 } },
    };
    expect(usageFromRecord(record)?.usage.agent_version).toBe("2.1.301");
    expect(usageFromRecord({ ...record, version: "2.1.301\u001b[31m" })?.usage.agent_version).toBeUndefined();
  });

  it("gives each version's share of input read from the cache, and flags a new version that halves it", async () => {
    const p = project();
    // 2.1.300: 800 of 1,000 input tokens a response read from the cache; 2.1.301: 100 of 300.
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", turns("2026-12-01", "2.1.300", 800));
    recordUsage(p, "claude", "b", "2026-12-02T10:00:00.000Z", turns("2026-12-02", "2.1.301", 100));
    const r = await usage(p, ["daily", "--breakdown", "version", "--json", "--timezone", "UTC"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(
      out.rows.map((x: { versions: Array<{ agent_version: string; cache_read_share: number }> }) =>
        x.versions.map((v) => [v.agent_version, v.cache_read_share]),
      ),
    ).toEqual([[["2.1.300", 0.8]], [["2.1.301", 100 / 300]]]);
    expect(out.cache_read_shares.drops).toHaveLength(1);
    expect(out.cache_read_shares.drops[0].to.agent_version).toBe("2.1.301");
    const text = await usage(p, ["daily", "--breakdown", "version", "--timezone", "UTC"]);
    expect(text.stdout).toMatch(/└ 2\.1\.300 .* cache reads 80% of input\n/);
    expect(text.stdout).toContain(
      "Claude Code 2.1.301: cache reads 33% of input, down from 80% with 2.1.300 (more than half)",
    );
    // By model as before, without the shares.
    const byModel = JSON.parse((await usage(p, ["daily", "--breakdown", "--json"])).stdout);
    expect(Object.keys(byModel)).toEqual(["scope", "rows", "totals", "refused_prices"]);
    expect(byModel.rows[0].breakdown[0].model).toBe("claude-sonnet-4-5");
    expect((await usage(p, ["daily", "--breakdown", "vendor"])).code).toBe(2);

    const doctor = await runCliInProcess(["doctor", "--json", "--project", p], join(p, "home"));
    const checks = JSON.parse(doctor.stdout).providers.flatMap((x: { checks: unknown[] }) => x.checks);
    expect(checks).toContainEqual(
      expect.objectContaining({
        name: "cache reads",
        status: "warn",
        message: expect.stringContaining("2.1.301"),
      }),
    );
  });

  it("flags no drop by less than half, on another project, or on a few responses", async () => {
    const p = project();
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", turns("2026-12-01", "2.1.300", 800));
    recordUsage(p, "claude", "b", "2026-12-02T10:00:00.000Z", turns("2026-12-02", "2.1.301", 500));
    recordUsage(p, "claude", "c", "2026-12-03T10:00:00.000Z", turns("2026-12-03", "2.1.302", 10, 2));
    const out = JSON.parse((await usage(p, ["monthly", "--breakdown", "version", "--json"])).stdout);
    expect(out.cache_read_shares.shares.map((s: { agent_version: string }) => s.agent_version)).toEqual([
      "2.1.300",
      "2.1.301",
      "2.1.302",
    ]);
    expect(out.cache_read_shares.drops).toEqual([]);
    const doctor = await runCliInProcess(["doctor", "--json", "--project", p], join(p, "home"));
    expect(doctor.stdout).not.toContain("cache reads");
  });

  it("flags only the newest version: a drop a later version repaired is no warning", async () => {
    const p = project();
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", turns("2026-12-01", "2.1.300", 800));
    recordUsage(p, "claude", "b", "2026-12-02T10:00:00.000Z", turns("2026-12-02", "2.1.301", 100));
    const drops = async () =>
      JSON.parse((await usage(p, ["monthly", "--breakdown", "version", "--json"])).stdout).cache_read_shares
        .drops;
    expect((await drops()).map((d: { to: { agent_version: string } }) => d.to.agent_version)).toEqual([
      "2.1.301",
    ]);
    // 2.1.302 reads from the cache again: nothing to warn of, in usage or in doctor.
    recordUsage(p, "claude", "c", "2026-12-03T10:00:00.000Z", turns("2026-12-03", "2.1.302", 800));
    expect(await drops()).toEqual([]);
    const doctor = await runCliInProcess(["doctor", "--json", "--project", p], join(p, "home"));
    expect(doctor.stdout).not.toContain("cache reads");
    // A few responses of a newer version say nothing yet: the newest with enough is still compared.
    recordUsage(p, "claude", "d", "2026-12-04T10:00:00.000Z", turns("2026-12-04", "2.1.303", 10, 2));
    expect(await drops()).toEqual([]);
  });
});
