// `tapedeck inspect` of a sealed session reads only what its checkpoints do not cover, the Claude transcript
// check included (issue 14: the check re-read the whole archive, 0.2 s of a 0.3 s inspect of 200 MB), and the
// transcript tally resumed from its memo equals the one a full byte scan gives.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { pick, seededRandom } from "../../packages/redact/test/random.ts";

/** Bytes read through readSync, per path opened with openSync (every reader in src/core reads that way). */
const io = vi.hoisted(() => ({ paths: new Map<number, string>(), bytes: new Map<string, number>() }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const openSync = ((...args: Parameters<typeof fs.openSync>) => {
    const fd = fs.openSync(...args);
    io.paths.set(fd, String(args[0]));
    return fd;
  }) as typeof fs.openSync;
  const readSync = ((fd: number, ...rest: unknown[]) => {
    const n = (fs.readSync as (...a: unknown[]) => number)(fd, ...rest);
    const path = io.paths.get(fd);
    if (path !== undefined) io.bytes.set(path, (io.bytes.get(path) ?? 0) + n);
    return n;
  }) as typeof fs.readSync;
  return { ...fs, default: { ...fs, openSync, readSync }, openSync, readSync };
});

const { inspectSession, listSessions } = await import("../../src/core/read/sessions.ts");
const { BOUNDARY_BYTES } = await import("../../src/core/archive/checkpoint.ts");
const { recordEvents } = await import("../../src/core/archive/session-store.ts");
const { claudeTranscripts, scanArchive, TALLY_FILE } = await import(
  "../../src/providers/claude/transcript-check.ts"
);
const { event, spec, useTempProjects } = await import("../helpers/session.ts");

const project = useTempProjects("tapedeck-inspect-checkpoint-");

/** A sealed Claude session of a little over 1 MB: big enough to get a checkpoint. */
function sealedSession(root: string): string {
  const s = spec(root);
  const events = [event("session_start", "start", { cwd: root })];
  for (let i = 0; i < 700; i += 1) {
    events.push(event("user_prompt", `p${i}`, { prompt: `prompt ${i}` }));
    events.push(event("tool_call", `c${i}`, { tool_name: "Bash", tool_use_id: `toolu_${i}` }));
    events.push(
      event("tool_result", `r${i}`, {
        tool_name: "Bash",
        tool_response: { stdout: "y".repeat(1500) },
        tool_use_id: `toolu_${i}`,
      }),
    );
  }
  events.push(event("session_end", "end"));
  recordEvents(s, events);
  const ref = listSessions(root)[0]!;
  expect(ref.manifest.status).toBe("complete");
  // A seal is remembered only for a file quiet for a while (file times tick coarsely: see checkpoint.ts).
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
  return ref.dir;
}

function readsOf(path: string, run: () => void): number {
  io.bytes.clear();
  run();
  return io.bytes.get(path) ?? 0;
}

describe("inspect of a sealed session", () => {
  it("a second inspect reads only the checkpoint's boundary of events.jsonl, transcript check included", () => {
    const root = project();
    const dir = sealedSession(root);
    const events = join(dir, "events.jsonl");
    const inspect = () => {
      const ref = listSessions(root)[0]!;
      const summary = inspectSession(ref);
      const transcript = claudeTranscripts.inspect(ref, root);
      expect(summary.event_count).toBe(2102);
      expect(summary.checksums?.ok).toBe(true);
      return transcript;
    };
    const size = readsOf(events, () => inspect());
    expect(size).toBeGreaterThan(1024 * 1024);
    const first = scanArchive(dir);
    const again = readsOf(events, () => inspect());
    // The boundary hash of the scan's checkpoint and of the transcript tally's memo; no line re-read.
    expect(again).toBeLessThanOrEqual(2 * BOUNDARY_BYTES);
    expect(scanArchive(dir)).toEqual(first);
    expect(first.expected.tool_calls).toBe(700);
    expect(first.cwd).toBe(root);
  });

  it("lines appended after the checkpoint are the only lines read, and counted", () => {
    const root = project();
    const dir = sealedSession(root);
    const events = join(dir, "events.jsonl");
    scanArchive(dir);
    const extra = `${JSON.stringify({ schema_version: 1, sequence: 99999, event_id: "late", kind: "user_prompt", payload: { prompt: "late" } })}\n`;
    appendFileSync(events, extra);
    const read = readsOf(events, () => {
      expect(scanArchive(dir).expected.prompts).toBe(701);
    });
    // The memo's boundary when it is read, the new line, and the new boundary when the memo moves on.
    expect(read).toBeLessThanOrEqual(2 * BOUNDARY_BYTES + extra.length);
  });
});

describe("the tally memo is used only where it may be", () => {
  it("a file rewritten under the memo (same size, other lines) is counted in full", () => {
    const root = project();
    const dir = sealedSession(root);
    const file = join(dir, "events.jsonl");
    expect(scanArchive(dir).expected.prompts).toBe(700);
    const text = readFileSync(file, "utf8").replaceAll('"kind":"user_prompt"', '"kind":"user_promp_"');
    writeFileSync(file, text);
    expect(scanArchive(dir).expected.prompts).toBe(0);
  });
});

/** Lines the tally looks at, with the cases it tells apart (subagents, empty answers, unanswered calls). */
function randomLines(rand: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const id = `toolu_${Math.floor(rand() * 12)}`;
    const kind = pick(rand, [
      "user_prompt",
      "assistant_message",
      "tool_call",
      "tool_result",
      "tool_error",
      "session_start",
    ]);
    const payload =
      kind === "assistant_message"
        ? { text: pick(rand, ["", "an answer", 'quoted "text":"x"']) }
        : kind === "session_start"
          ? { cwd: pick(rand, ["/p/ü", '/p/a"b', "/q"]) }
          : { tool_use_id: id, note: pick(rand, ["", '"tool_use_id":"fake"']) };
    const envelope: Record<string, unknown> = { schema_version: 1, sequence: i + 1, event_id: `e${i}`, kind };
    if (rand() < 0.15) envelope.agent_id = "sub";
    envelope.payload = payload;
    out.push(rand() < 0.05 ? "not json" : JSON.stringify(envelope));
  }
  return out.map((l) => `${l}\n`).join("");
}

describe("the transcript tally from a checkpoint equals a full byte scan", () => {
  it("on random archives checkpointed at random lines", () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const rand = seededRandom(seed);
      const text = Buffer.from(randomLines(rand, 10 + Math.floor(rand() * 80)));
      const cut = text.indexOf(10, Math.floor(rand() * text.length)) + 1;
      const dir = join(project(), "s");
      mkdirSync(dir, { mode: 0o700 });
      const file = join(dir, "events.jsonl");
      writeFileSync(file, text.subarray(0, cut > 0 ? cut : text.length));
      scanArchive(dir, 0);
      appendFileSync(file, text.subarray(cut > 0 ? cut : text.length));
      const resumed = scanArchive(dir, 0);
      expect(readsOf(file, () => scanArchive(dir, 0))).toBeLessThanOrEqual(BOUNDARY_BYTES);
      writeFileSync(join(dir, TALLY_FILE), "{}");
      expect(resumed, `seed ${seed}`).toEqual(scanArchive(dir, Number.POSITIVE_INFINITY));
    }
  });
});
