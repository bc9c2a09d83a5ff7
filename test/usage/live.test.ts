// `--live`: drawn again on a timer until q or Ctrl-C on a terminal, bounded; once and done when not a terminal.
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { runLive } from "../../src/cli/commands/usage/live.ts";

function streams(tty: boolean) {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean; setRawMode?: (r: boolean) => void };
  input.isTTY = tty;
  const raw: boolean[] = [];
  input.setRawMode = (r) => raw.push(r);
  const output = new PassThrough() as PassThrough & { isTTY?: boolean };
  output.isTTY = tty;
  const written: string[] = [];
  output.on("data", (c: Buffer) => written.push(c.toString()));
  return { input, output, written, raw };
}

describe("runLive", () => {
  it("prints the report once when the output is no terminal", async () => {
    const s = streams(false);
    let draws = 0;
    await runLive({ ...s, render: () => `report ${++draws}\n`, intervalMs: 1 });
    await new Promise((r) => setImmediate(r));
    expect(draws).toBe(1);
    expect(s.written.join("")).toBe("report 1\n");
  });

  it.each(["q", "\x03"])("redraws until %j, then leaves the screen as it found it", async (key) => {
    const s = streams(true);
    let draws = 0;
    const done = runLive({
      ...s,
      render: () => {
        draws += 1;
        if (draws === 3) setImmediate(() => s.input.write(key));
        return `report ${draws}\n`;
      },
      intervalMs: 1,
    });
    await done;
    await new Promise((r) => setImmediate(r));
    expect(draws).toBe(3);
    const text = s.written.join("");
    expect(text.startsWith("\x1b[?1049h")).toBe(true);
    expect(text.endsWith("\x1b[?25h\x1b[?1049l")).toBe(true);
    expect(text).toContain("q or Ctrl-C to quit");
    expect(s.raw).toEqual([true, false]);
  });

  it("stops by itself at its bound", async () => {
    const s = streams(true);
    let draws = 0;
    await runLive({ ...s, render: () => `r${++draws}`, intervalMs: 1, maxMs: 0 });
    expect(draws).toBe(1);
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)("on %s restores the screen, then exits %i", async (signal, code) => {
    const s = streams(true);
    const signals = new EventEmitter();
    const exits: number[] = [];
    let draws = 0;
    void runLive({
      ...s,
      signals,
      exit: (c) => exits.push(c),
      render: () => {
        draws += 1;
        if (draws === 2) setImmediate(() => signals.emit(signal));
        return `report ${draws}\n`;
      },
      intervalMs: 1,
    });
    await vi.waitFor(() => expect(exits).toEqual([code]));
    await new Promise((r) => setTimeout(r, 5));
    expect(draws).toBe(2);
    expect(s.written.join("").endsWith("\x1b[?25h\x1b[?1049l")).toBe(true);
    expect(s.raw).toEqual([true, false]);
    expect(signals.listenerCount(signal)).toBe(0);
  });

  it("restores the screen when a redraw throws, and rejects with the error", async () => {
    const s = streams(true);
    const signals = new EventEmitter();
    let draws = 0;
    const done = runLive({
      ...s,
      signals,
      render: () => {
        draws += 1;
        if (draws === 2) throw new Error("archive gone");
        return "report\n";
      },
      intervalMs: 1,
    });
    await expect(done).rejects.toThrow("archive gone");
    expect(s.written.join("").endsWith("\x1b[?25h\x1b[?1049l")).toBe(true);
    expect(signals.listenerCount("SIGTERM")).toBe(0);
  });
});
