import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES, runValidator } from "../../src/scenario/validator.ts";
import { until } from "../helpers/poll.ts";

const dir = mkdtempSync(join(tmpdir(), "tapedeck-validator-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const v = (command: string, timeout_s = 30, expect_exit = 0) => ({
  name: "v",
  command,
  timeout_s,
  expect_exit,
});

/** Running, not a zombie: a killed orphan stays one where the container's init does not reap. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
  return stat !== "" && !stat.startsWith("Z");
}

describe("runValidator", () => {
  it("runs in the given directory and reports the exit code", async () => {
    const ok = await runValidator(v("pwd; exit 3"), dir, process.env);
    expect(ok.exitCode).toBe(3);
    expect(ok.timedOut).toBe(false);
    expect(ok.output.trim()).toBe(dir);
  });

  it("kills a hanging validator at its timeout, with everything it started in the background", async () => {
    const pidFile = join(dir, "bg.pid");
    // A second: time enough, on two busy cores, for the shell to start its background sleep and name it.
    const r = await runValidator(v(`sleep 300 & echo $! > ${pidFile}; sleep 300`, 1), dir, process.env);
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    const bg = Number(readFileSync(pidFile, "utf8"));
    // The group was sent SIGKILL before the result came back; its end is the kernel's to deliver.
    expect(await until(() => !alive(bg))).toBe(true);
  }, 20_000);

  it("ends a validator's leftovers even when the validator itself exits", async () => {
    const pidFile = join(dir, "left.pid");
    const r = await runValidator(v(`sleep 300 >/dev/null 2>&1 & echo $! > ${pidFile}`), dir, process.env);
    expect(r.exitCode).toBe(0);
    const left = Number(readFileSync(pidFile, "utf8"));
    expect(await until(() => !alive(left))).toBe(true);
  });

  it("bounds 100 MB of output to its head and tail, counting every byte", async () => {
    const r = await runValidator(
      v("echo START; head -c 104857600 /dev/zero | tr '\\0' x; echo; echo END"),
      dir,
      process.env,
    );
    expect(r.exitCode).toBe(0);
    expect(r.outputBytes).toBe(104857600 + "START\n".length + "\nEND\n".length);
    expect(Buffer.byteLength(r.output)).toBeLessThan(OUTPUT_HEAD_BYTES + OUTPUT_TAIL_BYTES + 200);
    expect(r.output.startsWith("START\n")).toBe(true);
    expect(r.output.trimEnd().endsWith("END")).toBe(true);
    expect(r.output).toMatch(/bytes not kept/);
  }, 60_000);

  it("redacts a credential the command prints", async () => {
    const key = `sk-ant-api03-${"Q".repeat(40)}`;
    const r = await runValidator(v(`echo "token ${key}"`), dir, process.env);
    expect(r.output).not.toContain(key);
    expect(r.output).toContain("token");
  });
});
