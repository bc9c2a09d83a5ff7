// Codex hands its notify program the turn's JSON as an argument: readable by any local user from the process
// table while the program runs. The hook's notify branch overwrites it first thing (Linux: /proc/<pid>/cmdline).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, HOOK } from "../../helpers/cli-run.ts";
import { newTempProject } from "../../helpers/temp-project.ts";

beforeAll(ensureBuilt);

describe("the notify program's command line", () => {
  it("no longer holds the turn once the program has started (what another user could read)", () => {
    const root = newTempProject();
    const seen = join(root, "cmdline");
    // Preloaded: reads the process's own command line as the kernel shows it to others, as the hook ends.
    const probe = join(root, "probe.cjs");
    writeFileSync(
      probe,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(seen)}, require("node:fs").readFileSync("/proc/self/cmdline")));`,
    );
    const turn = JSON.stringify({
      type: "agent-turn-complete",
      "thread-id": "t1",
      "turn-id": "u1",
      cwd: root,
      "input-messages": ["the private prompt PRIVATE-PROMPT-TEXT"],
      "last-assistant-message": "the answer",
    });
    const res = spawnSync(process.execPath, ["--require", probe, HOOK, "codex", "--notify", turn], {
      encoding: "utf8",
    });
    expect(res.status).toBe(0);
    const cmdline = readFileSync(seen, "latin1");
    expect(cmdline).not.toContain("PRIVATE-PROMPT-TEXT");
    expect(cmdline).toContain("tapedeck-notify");
  });
});
