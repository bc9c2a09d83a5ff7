// `tapedeck usage publish` and `usage … --machines DIR` over simulated machines: separate homes, sessions
// imported and recorded through the CLI and its hook, overlapping days, a re-publish and a late publish. The
// sum is held to each machine's own `usage daily --json`, and every byte published to what may leave a machine.
// The commands run in process (test/usage/machines-fixture.ts).

import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { TOKEN_FIELDS } from "../../src/core/archive/manifest-counters.ts";
import { useScratchDir } from "../helpers/temp-project.ts";
import { type Machine, machine, type Turn, type UsageJson } from "../usage/machines-fixture.ts";

const scratch = useScratchDir("tapedeck-usage-machines-");
const newRoot = () => {
  const r = scratch.fresh("root");
  mkdirSync(r, { mode: 0o700 });
  return r;
};

const SECRET = "AKIAZ7QX3M2KD9PLW4HB";
const PROMPT = "please refactor the billing module";
const ZONE = "Europe/Paris";
const FOUR = TOKEN_FIELDS;

const turn = (at: string, input: number, extra: Partial<Turn> = {}): Turn => ({
  at,
  model: "claude-sonnet-4-5-20250929",
  input,
  output: Math.round(input / 7),
  read: input * 11,
  write: input * 2,
  prompt: `${PROMPT} with key ${SECRET}`,
  ...extra,
});

/** Each (date, provider) row's figures summed over the machines' own reports. */
function sumOf(reports: readonly UsageJson[]) {
  const rows = new Map<string, Record<string, number>>();
  const totals: Record<string, number> = { cost_usd: 0 };
  for (const k of FOUR) totals[k] = 0;
  for (const rep of reports) {
    for (const r of rep.rows) {
      const id = `${r.date}|${r.provider}`;
      const acc = rows.get(id) ?? {
        sessions: 0,
        cost_usd: 0,
        ...Object.fromEntries(FOUR.map((k) => [k, 0])),
      };
      for (const k of FOUR) acc[k]! += r[k] as number;
      acc.sessions! += r.sessions;
      acc.cost_usd! += r.cost_usd as number;
      rows.set(id, acc);
    }
    for (const k of FOUR) totals[k]! += rep.totals[k] as number;
    totals.cost_usd! += rep.totals.cost_usd as number;
  }
  return { rows, totals };
}

/** The --machines report equals the machines' own, exactly for the counts, to a billionth of a dollar for cost. */
function expectSum(all: UsageJson, own: readonly UsageJson[]): void {
  const want = sumOf(own);
  const got = sumOf([all]);
  expect([...got.rows.keys()].sort()).toEqual([...want.rows.keys()].sort());
  for (const [id, w] of want.rows) {
    const g = got.rows.get(id)!;
    for (const k of [...FOUR, "sessions"]) expect(`${id} ${k} ${g[k]}`).toBe(`${id} ${k} ${w[k]}`);
    expect(Math.abs(g.cost_usd! - w.cost_usd!)).toBeLessThan(1e-8);
  }
  for (const k of FOUR) expect(got.totals[k]).toBe(want.totals[k]);
  expect(Math.abs(got.totals.cost_usd! - want.totals.cost_usd!)).toBeLessThan(1e-8);
}

function everyFile(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => join(dir, f));
}

describe("usage publish and --machines", () => {
  it("sums every machine's own daily report, replaces a re-published day, adds a late machine", async () => {
    const root = newRoot();
    const dir = join(root, "synced");
    const laptop = machine(root, "laptop");
    const devbox = machine(root, "devbox");
    const web = join(laptop.home, "src", "web");
    const api = join(laptop.home, "src", "api");
    const infra = join(devbox.home, "work", "infra");
    // Overlapping days, one session over a Paris midnight, one recorded through the hooks.
    await laptop.importSession(web, "11111111-1111-4111-8111-111111111111", [
      turn("2026-11-30T22:40:00.000Z", 1200),
      turn("2026-11-30T23:20:00.000Z", 800),
    ]);
    // A recorded response counts from the recording's start on: these are now.
    const now = Date.now();
    const soon = (s: number) => new Date(now + s * 1000).toISOString();
    await laptop.recordSession(api, "22222222-2222-4222-8222-222222222222", [
      turn(soon(1), 500, { model: "claude-haiku-4-5-20251001" }),
      turn(soon(2), 300, { model: "claude-haiku-4-5-20251001" }),
    ]);
    await devbox.importSession(infra, "33333333-3333-4333-8333-333333333333", [
      turn("2026-11-30T23:10:00.000Z", 2000),
      turn("2026-12-02T08:00:00.000Z", 900),
      turn(new Date(now - 60_000).toISOString(), 600),
    ]);
    const own = (m: Machine) => m.usage("daily", ["--timezone", ZONE]);
    const all = async () =>
      JSON.parse(
        (await laptop.cli(["usage", "daily", "--json", "--timezone", ZONE, "--machines", dir])).stdout,
      ) as UsageJson;
    const laptopOwn = await own(laptop);
    expect(laptopOwn.rows.length).toBeGreaterThan(2);
    // Both recorded responses were counted (the hook path, not only the import).
    expect(
      laptopOwn.rows.find((r) => (r.models as string[]).includes("claude-haiku-4-5-20251001"))?.input_tokens,
    ).toBe(800);

    const pub = async (m: Machine, args: string[]) => {
      const r = await m.cli(["usage", "publish", "--json", ...args]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const first = await pub(laptop, [
      "--to",
      dir,
      "--device",
      "laptop",
      "--project",
      web,
      "--name-project",
      "web",
    ]);
    expect(first.days).toBeGreaterThan(0);
    await pub(devbox, ["--to", dir, "--device", "devbox"]);
    expectSum(await all(), [await own(laptop), await own(devbox)]);

    // A re-publish (nothing new) replaces: the sum does not grow.
    await pub(laptop, []);
    expectSum(await all(), [await own(laptop), await own(devbox)]);
    // More usage on a day already published, then a re-publish: that day's figures are replaced.
    await laptop.importSession(web, "44444444-4444-4444-8444-444444444444", [
      turn("2026-12-01T10:00:00.000Z", 4000),
    ]);
    await pub(laptop, []);
    expectSum(await all(), [await own(laptop), await own(devbox)]);

    // A late machine, whose days are old and overlap both.
    const ci = machine(root, "ci");
    await ci.importSession(join(ci.home, "w"), "55555555-5555-4555-8555-555555555555", [
      turn("2026-11-30T12:00:00.000Z", 700, { model: "claude-opus-4-1-20250805" }),
      turn("2026-12-01T09:10:00.000Z", 100, { model: "claude-opus-4-1-20250805" }),
    ]);
    await pub(ci, ["--to", dir, "--device", "ci runner"]);
    const three = await all();
    expectSum(three, [await own(laptop), await own(devbox), await own(ci)]);
    expect(three.machines!.map((m) => m.name).sort()).toEqual(["ci runner", "devbox", "laptop"]);
    for (const m of three.machines!) {
      expect(m.problems).toEqual([]);
      expect(Date.parse(m.published_at!)).toBeGreaterThan(Date.now() - 10 * 60_000);
    }
    // The weekly and model reports sum the same.
    const weekly = JSON.parse(
      (await laptop.cli(["usage", "weekly", "--json", "--timezone", ZONE, "--machines", dir])).stdout,
    );
    expect(weekly.totals).toEqual(three.totals);
    const text = await laptop.cli(["usage", "model", "--machines", dir]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /Machines \(.*\):\n {2}ci runner \([0-9a-f]{8}\): published .* UTC \(just now\), 2 day\(s\) summed/,
    );

    // Nothing but aggregates: no prompt, path, session id, hostname or credential in any byte published.
    const forbidden = [
      SECRET,
      PROMPT,
      "billing",
      hostname(),
      root,
      laptop.home,
      "/src/web",
      "infra",
      ...["1111", "2222", "3333", "4444", "5555"].map((d) => `${d}${d}${d}${d}`),
      "claude:",
      "msg_",
      "req_",
    ];
    const files = everyFile(dir);
    expect(files.length).toBeGreaterThan(6);
    for (const f of files) {
      const st = lstatSync(f);
      expect((st.mode & 0o777).toString(8), f).toBe(st.isDirectory() ? "700" : "600");
      if (st.isDirectory()) continue;
      const bytes = readFileSync(f, "latin1");
      for (const word of forbidden)
        expect(bytes.includes(word), `${relative(dir, f)} holds ${word}`).toBe(false);
    }
    // The project named on purpose is published under its name; the others as salted hashes.
    const projects = new Set(
      files
        .filter((f) => /\d{4}-\d{2}-\d{2}\.json$/.test(f))
        .flatMap((f) => JSON.parse(readFileSync(f, "utf8")).rows.map((r: { project: string }) => r.project)),
    );
    expect([...projects].sort()).toEqual(["web", ...[...projects].filter((p) => p !== "web").sort()].sort());
    expect([...projects].filter((p) => p !== "web").every((p) => /^p-[0-9a-f]{16}$/.test(p))).toBe(true);
    expect(projects.size).toBe(4);
  });

  it("reports a torn or clock-skewed file and sums the rest", async () => {
    const root = newRoot();
    const dir = join(root, "synced");
    const m = machine(root, "laptop");
    await m.importSession(join(m.home, "p"), "66666666-6666-4666-8666-666666666666", [
      turn("2026-11-30T10:00:00.000Z", 1000),
      turn("2026-12-01T10:00:00.000Z", 2000),
    ]);
    expect((await m.cli(["usage", "publish", "--to", dir])).code).toBe(0);
    const good = JSON.parse(
      (await m.cli(["usage", "daily", "--json", "--timezone", "UTC", "--machines", dir])).stdout,
    );
    expect(good.totals.input_tokens).toBe(3000);
    const [device] = readdirSync(dir);
    const day1 = join(dir, device!, "2026-11-30.json");
    const day2 = join(dir, device!, "2026-12-01.json");
    const whole = readFileSync(day1, "utf8");
    // Cut in transit.
    writeFileSync(day1, whole.slice(0, whole.length / 2));
    // A valid JSON file whose rows were changed after publish (a merge), then a clock ahead of this one.
    const d2 = JSON.parse(readFileSync(day2, "utf8"));
    writeFileSync(day2, JSON.stringify({ ...d2, rows: [{ ...d2.rows[0], input_tokens: 999 }] }));
    let r = JSON.parse(
      (await m.cli(["usage", "daily", "--json", "--timezone", "UTC", "--machines", dir])).stdout,
    );
    expect(r.rows).toEqual([]);
    expect(r.machines[0].problems.map((p: { problem: string }) => p.problem.split(":")[0])).toEqual([
      "torn",
      "torn",
    ]);
    writeFileSync(day1, whole);
    writeFileSync(day2, JSON.stringify({ ...d2, published_at: "2099-01-01T00:00:00.000Z" }));
    r = JSON.parse(
      (await m.cli(["usage", "daily", "--json", "--timezone", "UTC", "--machines", dir])).stdout,
    );
    expect(r.totals.input_tokens).toBe(1000);
    expect(r.machines[0].problems).toEqual([
      { file: `${device}/2026-12-01.json`, problem: expect.stringContaining("clock skew") },
    ]);
    // Usage later than the file says it was published: the publishing clock was behind.
    writeFileSync(day2, JSON.stringify({ ...d2, published_at: "2026-12-01T09:00:00.000Z" }));
    const text = await m.cli(["usage", "daily", "--timezone", "UTC", "--machines", dir]);
    expect(text.stdout).toMatch(
      /Not summed:\n {2}[0-9a-f]{8}: [0-9a-f]{32}\/2026-12-01\.json not summed: usage at .* clock skew/,
    );
    // A stray file or folder is not a device.
    mkdirSync(join(dir, "notes"));
    writeFileSync(join(dir, device!, "2026-12-03 (conflict).json"), "{}");
    expect(
      JSON.parse((await m.cli(["usage", "daily", "--json", "--machines", dir])).stdout).machines,
    ).toHaveLength(1);
  });

  it("asks where on the first publish, refuses a bad name, and keeps --machines to the summable reports", async () => {
    const root = newRoot();
    const m = machine(root, "laptop");
    const none = await m.cli(["usage", "publish"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--to DIR");
    expect((await m.cli(["usage", "publish", "--to", join(root, "d"), "--device", "../etc"])).code).toBe(2);
    expect((await m.cli(["usage", "session", "--machines", join(root, "d")])).code).toBe(2);
    expect((await m.cli(["usage", "daily", "--to", join(root, "d")])).code).toBe(2);
    // The device is made once, 0600 in the tapedeck home, and remembers the folder.
    expect((await m.cli(["usage", "publish", "--to", join(root, "d")])).code).toBe(0);
    const device = JSON.parse(readFileSync(join(m.home, ".tapedeck", "usage-device.json"), "utf8"));
    expect((lstatSync(join(m.home, ".tapedeck", "usage-device.json")).mode & 0o777).toString(8)).toBe("600");
    expect((await m.cli(["usage", "publish", "--json"])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(m.home, ".tapedeck", "usage-device.json"), "utf8")).id).toBe(
      device.id,
    );
    // blocks: no --machines; --live without a terminal prints once and exits.
    expect((await m.cli(["usage", "blocks", "--machines", join(root, "d")])).code).toBe(2);
    const live = await m.cli(["usage", "blocks", "--live", "--project", m.home]);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toBe(`No Claude usage recorded in project ${m.home}.\n`);
    const daily = await m.cli(["usage", "daily", "--live", "--project", m.home]);
    expect(daily.code, daily.stderr).toBe(0);
    expect(daily.stdout).toMatch(/^No usage recorded in /);
    const help = await m.cli(["usage", "--help"]);
    expect(help.stdout).toContain("--machines <dir>");
    expect(help.stdout).toContain("--to <dir>");
    expect(help.stdout).toContain("--live");
    expect(help.stdout).toMatch(/blocks:\s+Claude's 5-hour windows/);
  });
});
