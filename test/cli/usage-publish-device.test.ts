// `usage publish` and this machine's device file (~/.tapedeck/usage-device.json): only a missing one makes a new
// device. One that is there but cannot be used is an error that says how to go on, and nothing is published. And
// the folder published into: never inside an archive, never through another user's link.
import {
  chmodSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CAN_CHOWN, giveToOtherUser, OTHER_UID } from "../helpers/other-user.ts";
import { useScratchDir } from "../helpers/temp-project.ts";
import { machine, machinesRoot } from "../usage/machines-fixture.ts";

const scratch = useScratchDir("tapedeck-usage-publish-device-");
const turn = (at: string, input: number) => ({ at, model: "claude-sonnet-4-5-20250929", input, output: 1 });

describe("usage publish: the device file", () => {
  it("a damaged, planted or foreign device file is an error (exit 1), never a second device", async () => {
    const root = machinesRoot(scratch);
    const m = machine(root, "laptop");
    const dir = join(root, "synced");
    const file = join(m.home, ".tapedeck", "usage-device.json");
    expect((await m.cli(["usage", "publish", "--to", dir])).code).toBe(0);
    const good = readFileSync(file, "utf8");
    const { id } = JSON.parse(good);
    const damage: Array<[string, () => void, string]> = [
      ["cut", () => writeFileSync(file, good.slice(0, 40), { mode: 0o600 }), "is not valid JSON"],
      [
        "no id",
        () => writeFileSync(file, JSON.stringify({ ...JSON.parse(good), id: "x" })),
        "holds no device id",
      ],
      [
        "no salt",
        () => writeFileSync(file, JSON.stringify({ ...JSON.parse(good), salt: 1 })),
        "holds no salt",
      ],
      ["a folder", () => mkdirSync(file), "is not a regular file"],
      [
        "a link",
        () => {
          writeFileSync(join(root, "elsewhere.json"), good);
          symlinkSync(join(root, "elsewhere.json"), file);
        },
        "is a symlink",
      ],
    ];
    if (CAN_CHOWN)
      damage.push([
        "another user's",
        () => {
          writeFileSync(file, good, { mode: 0o600 });
          giveToOtherUser(file);
        },
        "belongs to another user",
      ]);
    for (const [name, make, why] of damage) {
      renameSync(file, join(root, "kept.json"));
      make();
      const r = await m.cli(["usage", "publish"]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(`usage-device.json ${why}`);
      expect(r.stderr).toContain("restore it");
      expect(r.stderr).toContain("move it away to publish as a new device");
      expect(readdirSync(dir), name).toEqual([id]);
      rmSync(file, { recursive: true, force: true });
      renameSync(join(root, "kept.json"), file);
    }
    // Moved away: a new device, as the message says.
    renameSync(file, join(root, "old-device.json"));
    expect((await m.cli(["usage", "publish", "--to", dir])).code).toBe(0);
    expect(readdirSync(dir).length).toBe(2);
  });
});

describe("usage publish: where to", () => {
  it("refuses an empty name, a .tapedeck folder, an archive, and a link another user owns", async () => {
    const root = machinesRoot(scratch);
    const m = machine(root, "laptop");
    const project = join(m.home, "p");
    await m.importSession(project, "11111111-1111-4111-8111-111111111111", [
      { at: "2026-01-01T10:00:00.000Z", model: "claude-sonnet-4-5-20250929", input: 10, output: 1 },
    ]);
    const device = () => JSON.parse(readFileSync(join(m.home, ".tapedeck", "usage-device.json"), "utf8"));
    expect((await m.cli(["usage", "publish", "--to", ""])).code).toBe(2);
    symlinkSync(join(m.home, ".tapedeck"), join(root, "sneaky"));
    for (const to of [
      join(m.home, ".tapedeck", "pub"),
      join(project, ".tapedeck", "usage"),
      join(root, "a", ".tapedeck", "b"),
      join(root, "sneaky", "pub"),
    ]) {
      const r = await m.cli(["usage", "publish", "--to", to, "--project", project]);
      expect(r.code, `${to}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain("inside a .tapedeck folder or an archive");
    }
    // The user's own link to a folder is followed; the device folder is made private if it was not.
    const dir = join(root, "synced");
    mkdirSync(dir);
    symlinkSync(dir, join(root, "my-link"));
    expect((await m.cli(["usage", "publish", "--to", join(root, "my-link")])).code).toBe(0);
    const { id } = device();
    chmodSync(join(dir, id), 0o755);
    expect((await m.cli(["usage", "publish"])).code).toBe(0);
    expect((lstatSync(join(dir, id)).mode & 0o777).toString(8)).toBe("700");
    expect(device().to).toBe(join(root, "my-link"));
    // A publish that fails (the folder cannot be made under a file) remembers nothing.
    writeFileSync(join(root, "a-file"), "");
    expect((await m.cli(["usage", "publish", "--to", join(root, "a-file", "sub")])).code).toBe(1);
    expect(device().to).toBe(join(root, "my-link"));
    if (!CAN_CHOWN) return;
    // A link another user made: refused, and the folder remembered stays the one last published into.
    mkdirSync(join(root, "theirs"));
    symlinkSync(join(root, "theirs"), join(root, "their-link"));
    lchownSync(join(root, "their-link"), OTHER_UID, OTHER_UID);
    const r = await m.cli(["usage", "publish", "--to", join(root, "their-link")]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("symlink another user owns");
    expect(readdirSync(join(root, "theirs"))).toEqual([]);
    expect(device().to).toBe(join(root, "my-link"));
  });
});

describe("usage publish: the device folder over publishes", () => {
  it("leaves a day file whose rows did not change, and removes a killed publish's old temp files", async () => {
    const root = machinesRoot(scratch);
    const m = machine(root, "laptop");
    const project = join(m.home, "p");
    await m.importSession(project, "11111111-1111-4111-8111-111111111111", [
      turn("2026-01-01T10:00:00.000Z", 10),
      turn("2026-01-02T10:00:00.000Z", 20),
    ]);
    const dir = join(root, "synced");
    const pub = async () => {
      const r = await m.cli(["usage", "publish", "--to", dir, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const first = await pub();
    const folder = first.folder as string;
    const bytes = (day: string) => readFileSync(join(folder, `${day}.json`), "utf8");
    const day1 = bytes("2026-01-01");
    const day2 = bytes("2026-01-02");
    const info = JSON.parse(readFileSync(join(folder, "device.json"), "utf8"));
    // Nothing new: no day file is written again; device.json records the publish.
    const again = await pub();
    expect([again.days, again.unchanged]).toEqual([2, 2]);
    expect([bytes("2026-01-01"), bytes("2026-01-02")]).toEqual([day1, day2]);
    expect(JSON.parse(readFileSync(join(folder, "device.json"), "utf8")).published_at).not.toBe(
      info.published_at,
    );
    // More usage on one day: that file only.
    await m.importSession(project, "22222222-2222-4222-8222-222222222222", [
      turn("2026-01-02T11:00:00.000Z", 5),
    ]);
    expect((await pub()).unchanged).toBe(1);
    expect(bytes("2026-01-01")).toBe(day1);
    expect(bytes("2026-01-02")).not.toBe(day2);
    // A killed publish's temp file: gone once older than a minute; a live one (just written) stays.
    const stale = join(folder, "2026-01-01.json.4242.1.tmp");
    const live = join(folder, "2026-01-02.json.4242.2.tmp");
    writeFileSync(stale, "{", { mode: 0o600 });
    writeFileSync(live, "{", { mode: 0o600 });
    const old = new Date(Date.now() - 5 * 60_000);
    utimesSync(stale, old, old);
    const all = JSON.parse(
      (await m.cli(["usage", "daily", "--json", "--timezone", "UTC", "--machines", dir])).stdout,
    );
    expect(all.machines[0].problems).toEqual([]);
    expect(all.totals.input_tokens).toBe(35);
    await pub();
    expect(readdirSync(folder).sort()).toEqual([
      "2026-01-01.json",
      "2026-01-02.json",
      "2026-01-02.json.4242.2.tmp",
      "device.json",
    ]);
  });
});

describe("usage publish: a project out of reach", () => {
  it("keeps an absent project's published days, and a renamed one's are replaced, never doubled", async () => {
    const root = machinesRoot(scratch);
    const m = machine(root, "laptop");
    const web = join(m.home, "web");
    const api = join(m.home, "api");
    await m.importSession(web, "11111111-1111-4111-8111-111111111111", [
      turn("2026-01-01T10:00:00.000Z", 10),
    ]);
    await m.importSession(api, "22222222-2222-4222-8222-222222222222", [
      turn("2026-01-01T11:00:00.000Z", 200),
      turn("2026-01-02T11:00:00.000Z", 3000),
    ]);
    const dir = join(root, "synced");
    const publish = async (args: string[] = []) => {
      const r = await m.cli(["usage", "publish", "--to", dir, ...args], m.home);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const total = async () =>
      JSON.parse((await m.cli(["usage", "daily", "--json", "--timezone", "UTC", "--machines", dir])).stdout)
        .totals.input_tokens;
    await publish();
    expect(await total()).toBe(3210);
    // The api project's disk is not mounted: its two days stay published as they were.
    renameSync(api, join(root, "unmounted"));
    expect(await publish()).toContain("; kept 2 day(s) of absent projects.");
    expect(await total()).toBe(3210);
    // Back again: read, so replaced, not added.
    renameSync(join(root, "unmounted"), api);
    expect(await publish()).not.toContain("absent projects");
    expect(await total()).toBe(3210);
    // Named, then renamed: the old label's rows are this project's, replaced each time.
    await publish(["--project", web, "--name-project", "web"]);
    expect(await total()).toBe(3210);
    await publish(["--project", web, "--name-project", "frontend"]);
    expect(await total()).toBe(3210);
    const projects = JSON.parse(
      (await m.cli(["usage", "project", "--json", "--timezone", "UTC", "--machines", dir])).stdout,
    ).rows.map((r: { project: string }) => r.project);
    expect(projects).toHaveLength(2);
    expect(projects).toContain("frontend");
    expect(projects.filter((p: string) => p !== "frontend")).toEqual([
      expect.stringMatching(/^p-[0-9a-f]{16}$/),
    ]);
  });
});
