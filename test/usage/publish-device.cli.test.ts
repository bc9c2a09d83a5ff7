// `usage publish` and this machine's device file (~/.tapedeck/usage-device.json): only a missing one makes a new
// device. One that is there but cannot be used is an error that says how to go on, and nothing is published.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/cli-run.ts";
import { CAN_CHOWN, giveToOtherUser } from "../helpers/other-user.ts";
import { useScratchDir } from "../helpers/temp-project.ts";
import { machine } from "./machines-fixture.ts";

const scratch = useScratchDir("tapedeck-usage-publish-device-");
beforeAll(ensureBuilt);

describe("usage publish: the device file", () => {
  it("a damaged, planted or foreign device file is an error (exit 1), never a second device", () => {
    const root = scratch.fresh("root");
    mkdirSync(root, { mode: 0o700 });
    const m = machine(root, "laptop");
    const dir = join(root, "synced");
    const file = join(m.home, ".tapedeck", "usage-device.json");
    expect(m.cli(["usage", "publish", "--to", dir]).code).toBe(0);
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
      const r = m.cli(["usage", "publish"]);
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
    expect(m.cli(["usage", "publish", "--to", dir]).code).toBe(0);
    expect(readdirSync(dir).length).toBe(2);
  });
});
