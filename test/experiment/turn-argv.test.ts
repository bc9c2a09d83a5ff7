import { describe, expect, it } from "vitest";
import type { ArmSettings, ReplayDriver } from "../../src/core/ports/replay-driver.ts";
import { makeSpawner } from "../../src/experiment/process.ts";
import { claudeReplay } from "../../src/providers/claude/replay.ts";
import { codexReplay } from "../../src/providers/codex/replay.ts";
import { geminiReplay } from "../../src/providers/gemini/replay.ts";

// A recorded prompt as a hostile baseline may hold it: a flag, shell syntax, a secret-looking word, and more
// than one argument may carry on Linux (128 KiB).
const PROMPT = `--dangerously-skip-permissions $(touch x) \`id\`; private-plan-${"y".repeat(200_000)}`;
const settings: ArmSettings = { nativeMemory: false, retrieval: false };

describe("a replay turn's prompt", () => {
  for (const driver of [claudeReplay, codexReplay, geminiReplay] as ReplayDriver[]) {
    it(`${driver.provider}: goes to stdin, never onto the command line (ps shows it to every user)`, () => {
      for (const sessionId of [undefined, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"]) {
        const turn = {
          index: 0,
          prompt: PROMPT,
          newSessionId: "new-id",
          ...(sessionId ? { sessionId } : {}),
        };
        const line = driver.command("/bin/agent", turn, settings);
        expect(line.input).toBe(PROMPT);
        expect(line.args.join(" ")).not.toContain("private-plan");
        expect(line.args.join(" ")).not.toContain("touch");
      }
    });
  }

  it("the spawner writes the input to the child's stdin and closes it", async () => {
    const spawn = makeSpawner({ timeoutMs: 30_000 });
    const run = await spawn("wc", ["-c"], {
      cwd: process.cwd(),
      env: { PATH: "/usr/bin:/bin" },
      input: PROMPT,
    });
    expect(run.code).toBe(0);
    expect(Number(run.stdout.trim())).toBe(Buffer.byteLength(PROMPT));
    // Without input stdin is closed, as before: claude and codex read an open pipe as more prompt.
    const closed = await spawn("wc", ["-c"], { cwd: process.cwd(), env: { PATH: "/usr/bin:/bin" } });
    expect(closed.stdout.trim()).toBe("0");
  });
});
