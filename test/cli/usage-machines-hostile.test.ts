// `usage … --machines DIR` over day files a peer (or anyone who can write into the synced folder) planted, each
// with a valid rows_sha256: the CLI (in process) reports each one and sums the rest, never crashes.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useScratchDir } from "../helpers/temp-project.ts";
import { dayRow, writeDay } from "../usage/day-file.ts";
import { machine, machinesRoot } from "../usage/machines-fixture.ts";

const scratch = useScratchDir("tapedeck-usage-machines-hostile-");

const GOOD = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const EVIL = "cccccccccccccccccccccccccccccccc";

function setup() {
  const root = machinesRoot(scratch);
  const m = machine(root, "reader");
  const dir = join(root, "synced");
  writeDay(dir, "2024-05-01", [dayRow({ input_tokens: 7 })], { device: GOOD });
  const report = async () => {
    const r = await m.cli(["usage", "daily", "--json", "--timezone", "UTC", "--machines", dir]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const evil = out.machines.find((x: { device_id: string }) => x.device_id === EVIL);
    return {
      input: out.totals.input_tokens as number,
      problems: (evil?.problems ?? []).map(
        (p: { file: string; problem: string }) => `${p.file}: ${p.problem}`,
      ),
    };
  };
  return { dir, report };
}

describe("--machines over planted day files", () => {
  it("a row nested 200,000 deep, or holding such a field, is no row: reported, not hashed", async () => {
    const { dir, report } = setup();
    const n = 200_000;
    writeDay(dir, "2024-05-02", null, { device: EVIL, rowsText: `[${"[".repeat(n)}${"]".repeat(n)}]` });
    const deepField = JSON.stringify([dayRow()]).replace(/}]$/, `,"x":${"[".repeat(n)}${"]".repeat(n)}}]`);
    writeDay(dir, "2024-05-03", null, { device: EVIL, rowsText: deepField });
    expect(await report()).toEqual({
      input: 7,
      problems: [
        `${EVIL}/2024-05-02.json: a row is not an object`,
        `${EVIL}/2024-05-03.json: a row has a field publish never writes`,
      ],
    });
  });

  it("a day of more rows than publish can write is reported, not summed", async () => {
    const { dir, report } = setup();
    const rows = Array.from({ length: 130_000 }, (_, i) =>
      dayRow({ slot: (i % 96) * 15, model: `m${i}`, sessions: [`s${i}`] }),
    );
    writeDay(dir, "2024-05-02", rows, { device: EVIL });
    expect(await report()).toEqual({
      input: 7,
      problems: [`${EVIL}/2024-05-02.json: 130000 rows, more than a day file holds (96000)`],
    });
  });

  it("a day file named for no calendar day is reported, not summed into another day", async () => {
    const { dir, report } = setup();
    for (const day of ["2024-13-45", "2024-02-30", "2023-02-29"])
      writeDay(dir, day, [dayRow({ input_tokens: 1000 })], { device: EVIL });
    writeDay(dir, "2024-02-29", [dayRow({ input_tokens: 1 })], { device: EVIL });
    expect(await report()).toEqual({
      input: 8,
      problems: [
        `${EVIL}/2023-02-29.json: named for no day of the calendar`,
        `${EVIL}/2024-02-30.json: named for no day of the calendar`,
        `${EVIL}/2024-13-45.json: named for no day of the calendar`,
      ],
    });
  });

  it("a count or cost past its bound, or two rows of one key, is reported, not summed", async () => {
    const { dir, report } = setup();
    const max = Number.MAX_SAFE_INTEGER;
    writeDay(dir, "2024-05-02", [dayRow({ input_tokens: max }), dayRow({ slot: 615, input_tokens: max })], {
      device: EVIL,
    });
    writeDay(dir, "2024-05-03", [dayRow({ cost_usd: 1e308 }), dayRow({ slot: 615, cost_usd: 1e308 })], {
      device: EVIL,
    });
    writeDay(dir, "2024-05-04", [dayRow({ input_tokens: 100 }), dayRow({ input_tokens: 100 })], {
      device: EVIL,
    });
    // A usage row and a row of sessions without usage share a slot and a project: two rows, as publish writes.
    writeDay(
      dir,
      "2024-05-05",
      [
        dayRow({ model: null, agent_version: null, input_tokens: 2 }),
        dayRow({
          model: null,
          agent_version: null,
          sessions: [],
          sessions_without_usage: ["s2"],
          input_tokens: 0,
        }),
      ],
      { device: EVIL },
    );
    expect(await report()).toEqual({
      input: 9,
      problems: [
        `${EVIL}/2024-05-02.json: a row's input_tokens is not a count up to 10^12`,
        `${EVIL}/2024-05-03.json: a row's cost is not a number of USD up to 10^9`,
        `${EVIL}/2024-05-04.json: two rows of one slot, provider, model, version and project`,
      ],
    });
  });

  it("files whose counts would sum past 2^53 are reported, the rest summed exactly", async () => {
    const { dir, report } = setup();
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => dayRow({ model: `m${i}`, input_tokens: 1e12, cost_usd: 0 }));
    writeDay(dir, "2024-05-02", rows(5000), { device: EVIL });
    writeDay(dir, "2024-05-03", rows(5000), { device: EVIL });
    const r = await report();
    expect(r.input).toBe(7 + 5000 * 1e12);
    expect(r.problems).toEqual([
      `${EVIL}/2024-05-03.json: its input_tokens would take the sum past 2^53 tokens, where counts stop being exact`,
    ]);
  });
});

describe("--machines DIR that is no folder", () => {
  it("a missing folder, a file or a FIFO is an error (exit 1), not a folder of no usage", async () => {
    const root = machinesRoot(scratch);
    const m = machine(root, "reader");
    const file = join(root, "a-file");
    writeFileSync(file, "{}");
    const fifo = join(root, "a-fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const cases: Array<[string, string]> = [
      [join(root, "missing"), "no such folder"],
      [file, "not a folder"],
      [fifo, "not a folder"],
    ];
    for (const [dir, why] of cases) {
      const r = await m.cli(["usage", "daily", "--machines", dir]);
      expect(r.code, `${dir}: ${r.stdout}`).toBe(1);
      expect(r.stderr).toContain(`--machines ${dir}: ${why}`);
    }
    mkdirSync(join(root, "empty"));
    const empty = await m.cli(["usage", "daily", "--machines", join(root, "empty")]);
    expect(empty.code, empty.stderr).toBe(0);
  });
});
