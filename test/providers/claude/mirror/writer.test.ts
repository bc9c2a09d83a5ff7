import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ChainHead,
  compareMirrorFiles,
  EVENTS_FILE,
  EventsLog,
  fileStamp,
  MirrorWriter,
  type MirrorWriterOptions,
} from "../../../../src/providers/claude/mirror/writer.ts";
import { CAN_CHOWN, giveToOtherUser } from "../../../helpers/other-user.ts";
import { readEvents } from "./helpers.ts";

let base: string;
let root: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "tapedeck-mirror-writer-")));
  root = join(base, "mirrors");
});
const writers: MirrorWriter[] = [];
afterEach(async () => {
  // Pending event-log writes must land before the directory goes, or they report a failure on stderr.
  await Promise.all(writers.splice(0).map((w) => w.idle()));
  rmSync(base, { recursive: true, force: true });
});

const DAY = 86_400_000;
const main = { sessionId: "sess-1", agentId: null };

function writer(opts: Partial<MirrorWriterOptions> = {}): MirrorWriter {
  const w = new MirrorWriter({ root, maxBytes: 1024 * 1024, retentionDays: 30, ...opts });
  writers.push(w);
  return w;
}

let counter = 0;
function record(size = 100): { uuid: string; pad: string } {
  counter += 1;
  const hex = counter.toString(16).padStart(12, "0");
  return { uuid: `00000000-0000-0000-0000-${hex}`, pad: "x".repeat(size) };
}

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function age(path: string, days: number): void {
  const t = new Date(Date.now() - days * DAY);
  utimesSync(path, t, t);
}

describe("mirror writer", () => {
  it("appends all records of a batch in one write, continuing the chain head", async () => {
    const w = writer();
    const heads: ChainHead[] = [];
    const first = [record(), record()];
    await w.append(main, (h) => {
      heads.push(h);
      return { records: first };
    });
    const second = [record()];
    const r = await w.append(main, (h) => {
      heads.push(h);
      return { records: second };
    });
    expect(r).toMatchObject({ ok: true, records: 1 });
    expect(heads).toEqual([{ lastUuid: null }, { lastUuid: first[1]?.uuid }]);
    const files = readdirSync(join(root, "sess-1"));
    expect(files).toHaveLength(1);
    expect(lines(join(root, "sess-1", files[0] as string)).map((l) => l.uuid)).toEqual(
      [...first, ...second].map((x) => x.uuid),
    );
  });

  it("serializes appends to one target so the chain stays linear", async () => {
    const w = writer();
    const seen: (string | null)[] = [];
    const all = Array.from({ length: 20 }, () => record(10));
    await Promise.all(
      all.map((rec) =>
        w.append(main, (h) => {
          seen.push(h.lastUuid);
          return { records: [rec] };
        }),
      ),
    );
    expect(seen).toEqual([null, ...all.slice(0, -1).map((r) => r.uuid)]);
  });

  it("runs onWritten only after a successful write", async () => {
    let ok = 0;
    const good = writer();
    await good.append(main, () => ({ records: [record()], onWritten: () => ok++ }));
    const bad = writer({ io: { appendFile: () => Promise.reject(new Error("nope")) } });
    const r = await bad.append(main, () => ({ records: [record()], onWritten: () => ok++ }));
    expect(ok).toBe(1);
    expect(r).toMatchObject({ ok: false, stage: "write" });
  });

  it("never rejects: a throwing build is reported as a result and logged", async () => {
    const w = writer();
    const r = await w.append(main, () => {
      throw new RangeError("bad record");
    });
    expect(r).toEqual({ ok: false, stage: "build", code: "RangeError" });
    await w.idle();
    expect(readEvents(root)).toContainEqual(expect.objectContaining({ action: "error", stage: "build" }));
  });

  describe("rotation", () => {
    it("opens a new <timestamp>.jsonl when the next message would pass maxBytes, and logs it", async () => {
      let now = Date.parse("2026-11-29T18:40:00.000Z");
      const w = writer({ maxBytes: 700, now: () => now });
      const written: string[] = [];
      for (let i = 0; i < 6; i++) {
        const rec = record(200);
        written.push(rec.uuid);
        await w.append(main, () => ({ records: [rec] }));
        now += 1000;
      }
      await w.idle();
      const dir = join(root, "sess-1");
      const files = readdirSync(dir).sort(compareMirrorFiles);
      expect(files.length).toBe(3);
      expect(files[0]).toBe(`${fileStamp(Date.parse("2026-11-29T18:40:00.000Z"))}.jsonl`);
      for (const f of files) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(700);
      // Reading the files in name order gives the records in write order.
      expect(files.flatMap((f) => lines(join(dir, f)).map((l) => l.uuid))).toEqual(written);
      const rotates = readEvents(root).filter((e) => e.action === "rotate");
      expect(rotates.map((e) => e.rotations)).toEqual([1, 2]);
      expect(rotates[0]?.bytes).toBeGreaterThan(400);
      expect(rotates[0]?.file).toBe(files[1]);
    });

    it("a single message larger than maxBytes still gets written, alone in its file", async () => {
      const w = writer({ maxBytes: 100 });
      await w.append(main, () => ({ records: [record(500)] }));
      await w.append(main, () => ({ records: [record(500)] }));
      expect(readdirSync(join(root, "sess-1"))).toHaveLength(2);
    });

    it("names files of the same millisecond (or a clock that stepped back) so they still sort in order", async () => {
      const w = writer({ maxBytes: 150, now: () => Date.parse("2026-11-29T18:40:00.000Z") });
      const written: string[] = [];
      for (let i = 0; i < 3; i++) {
        const rec = record(120);
        written.push(rec.uuid);
        await w.append(main, () => ({ records: [rec] }));
      }
      const files = readdirSync(join(root, "sess-1")).sort(compareMirrorFiles);
      expect(files).toEqual([
        "2026-11-29T18-40-00-000Z.jsonl",
        "2026-11-29T18-40-00-000Z.1.jsonl",
        "2026-11-29T18-40-00-000Z.2.jsonl",
      ]);
      expect(files.flatMap((f) => lines(join(root, "sess-1", f)).map((l) => l.uuid))).toEqual(written);
    });
  });

  describe("retention sweep", () => {
    it("unlinks files past retention, including an inactive session's active file, and prunes empty dirs", async () => {
      let now = Date.parse("2026-11-29T00:00:00.000Z");
      const w = writer({ maxBytes: 300, retentionDays: 30, now: () => now });
      const agent = { sessionId: "sess-1", agentId: "agent-1" };
      const idle = { sessionId: "idle-session", agentId: null };
      for (let i = 0; i < 3; i++) {
        await w.append(main, () => ({ records: [record(200)] }));
        now += 1;
      }
      await w.append(agent, () => ({ records: [record(50)] }));
      await w.append(idle, () => ({ records: [record(50)] }));
      const mainFiles = readdirSync(join(root, "sess-1"))
        .filter((n) => n.endsWith(".jsonl"))
        .sort(compareMirrorFiles);
      expect(mainFiles).toHaveLength(3);
      const agentFile = readdirSync(join(root, "sess-1", "agents", "agent-1"))[0] as string;
      const idleFile = readdirSync(join(root, "idle-session"))[0] as string;

      now = Date.now();
      age(join(root, "sess-1", mainFiles[0] as string), 45); // a rotated file past retention
      age(join(root, "sess-1", mainFiles[1] as string), 29); // rotated but still inside the window
      age(join(root, "sess-1", "agents", "agent-1", agentFile), 31);
      age(join(root, "idle-session", idleFile), 60); // the active file of an inactive session

      const result = await w.sweep();
      await w.idle();
      expect(result.files).toBe(3);
      expect(existsSync(join(root, "sess-1", mainFiles[0] as string))).toBe(false);
      expect(existsSync(join(root, "sess-1", mainFiles[1] as string))).toBe(true);
      expect(existsSync(join(root, "sess-1", mainFiles[2] as string))).toBe(true);
      expect(existsSync(join(root, "sess-1", "agents"))).toBe(false);
      expect(existsSync(join(root, "idle-session"))).toBe(false);
      expect(existsSync(join(root, EVENTS_FILE))).toBe(true);
      expect(readEvents(root)).toContainEqual(expect.objectContaining({ action: "sweep", files: 3 }));

      // The swept session comes back with a new file when it talks again.
      await w.append(idle, () => ({ records: [record(10)] }));
      expect(readdirSync(join(root, "idle-session"))).toHaveLength(1);
    });

    it("keeps a just-created empty directory and skips symlinks", async () => {
      const w = writer({ retentionDays: 1 });
      mkdirSync(join(root, "brand-new"), { recursive: true });
      const outside = join(base, "outside.jsonl");
      writeFileSync(outside, "{}\n");
      age(outside, 10);
      mkdirSync(join(root, "linked"), { recursive: true });
      symlinkSync(outside, join(root, "linked", "2020-01-01T00-00-00-000Z.jsonl"));
      const r = await w.sweep();
      expect(r.files).toBe(0);
      expect(existsSync(join(root, "brand-new"))).toBe(true);
      expect(existsSync(outside)).toBe(true);
    });

    it("maybeSweep runs at most once a minute", async () => {
      let now = Date.now();
      const w = writer({ retentionDays: 1, now: () => now });
      await w.append(main, () => ({ records: [record()] }));
      const file = join(root, "sess-1", readdirSync(join(root, "sess-1"))[0] as string);
      w.maybeSweep(); // first call sweeps (nothing is old yet)
      await w.idle();
      age(file, 2);
      w.maybeSweep();
      await w.idle();
      expect(existsSync(file)).toBe(true);
      now += 60_001;
      w.maybeSweep();
      await w.idle();
      expect(existsSync(file)).toBe(false);
    });
  });

  describe("paths", () => {
    it("refuses a symlinked session directory and writes nothing through it", async () => {
      const elsewhere = join(base, "elsewhere");
      mkdirSync(elsewhere);
      mkdirSync(root, { recursive: true });
      symlinkSync(elsewhere, join(root, "sess-1"));
      const w = writer();
      const r = await w.append(main, () => ({ records: [record()] }));
      expect(r).toEqual({ ok: false, stage: "open", code: "UnsafePathError" });
      expect(readdirSync(elsewhere)).toEqual([]);
      await w.idle();
      expect(readEvents(root)).toContainEqual(
        expect.objectContaining({ action: "error", session: "sess-1", code: "UnsafePathError" }),
      );
    });

    it("refuses a symlinked mirror root and a symlinked agents directory", async () => {
      const elsewhere = join(base, "elsewhere");
      mkdirSync(elsewhere);
      symlinkSync(elsewhere, root);
      const stderr = process.stderr.write;
      process.stderr.write = (() => true) as typeof process.stderr.write;
      try {
        const w = writer();
        expect(await w.append(main, () => ({ records: [record()] }))).toMatchObject({ ok: false });
        await w.idle(); // its events log cannot be written either: the root is refused
      } finally {
        process.stderr.write = stderr;
      }
      expect(readdirSync(elsewhere)).toEqual([]);
      rmSync(root);

      mkdirSync(join(root, "sess-1"), { recursive: true });
      symlinkSync(elsewhere, join(root, "sess-1", "agents"));
      const r = await writer().append({ sessionId: "sess-1", agentId: "a1" }, () => ({
        records: [record()],
      }));
      expect(r).toMatchObject({ ok: false, code: "UnsafePathError" });
      expect(readdirSync(elsewhere)).toEqual([]);
    });

    it("never follows a symlink planted at the file it is about to create (O_NOFOLLOW)", async () => {
      const now = Date.parse("2026-11-29T18:40:00.000Z");
      const victim = join(base, "victim.txt");
      writeFileSync(victim, "untouched\n");
      mkdirSync(join(root, "sess-1"), { recursive: true });
      symlinkSync(victim, join(root, "sess-1", `${fileStamp(now)}.jsonl`));
      const r = await writer({ now: () => now }).append(main, () => ({ records: [record()] }));
      expect(r.ok).toBe(false);
      expect(readFileSync(victim, "utf8")).toBe("untouched\n");
    });

    it("never appends to a mirror file that is not the user's private one (a 0666 file as the newest)", async () => {
      const dir = join(root, "sess-1");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const planted = join(dir, "2026-01-01T00-00-00-000Z.jsonl");
      const text = `${JSON.stringify({ message: {}, uuid: record().uuid })}\n`;
      writeFileSync(planted, text);
      chmodSync(planted, 0o666);
      const r = await writer().append(main, () => ({ records: [record()] }));
      expect(r).toEqual({ ok: false, stage: "write", code: "UnsafePathError" });
      expect(readFileSync(planted, "utf8")).toBe(text);
    });

    it.runIf(CAN_CHOWN)("a session directory or a mirror root another user owns gets nothing", async () => {
      const dir = join(root, "sess-1");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      giveToOtherUser(dir);
      const first = writer();
      const r = await first.append(main, () => ({ records: [record()] }));
      expect(r).toEqual({ ok: false, stage: "open", code: "UnsafePathError" });
      expect(readdirSync(dir)).toEqual([]);
      await first.idle();
      rmSync(root, { recursive: true });

      mkdirSync(root, { mode: 0o700 });
      giveToOtherUser(root);
      const stderr = process.stderr.write;
      process.stderr.write = (() => true) as typeof process.stderr.write;
      try {
        const w = writer();
        expect(await w.append(main, () => ({ records: [record()] }))).toMatchObject({ ok: false });
        await w.idle(); // nor its events log: the root is refused
      } finally {
        process.stderr.write = stderr;
      }
      expect(readdirSync(root)).toEqual([]);
    });

    it("steps over a torn last line and reads the chain head from the tail", async () => {
      const dir = join(root, "sess-1");
      mkdirSync(dir, { recursive: true });
      const prev = record(20);
      writeFileSync(
        join(dir, "2026-01-01T00-00-00-000Z.jsonl"),
        `${JSON.stringify({ message: {}, uuid: prev.uuid, source: "tapedeck-mirror" })}\n{"parentUuid":"x","mess`,
        // 0600, as the writer creates it: it appends only to a private file.
        { mode: 0o600 },
      );
      const heads: ChainHead[] = [];
      const next = record(20);
      await writer().append(main, (h) => {
        heads.push(h);
        return { records: [next] };
      });
      expect(heads).toEqual([{ lastUuid: prev.uuid }]);
      const text = readFileSync(join(dir, "2026-01-01T00-00-00-000Z.jsonl"), "utf8").split("\n");
      expect(text[1]).toBe('{"parentUuid":"x","mess');
      expect(JSON.parse(text[2] as string).uuid).toBe(next.uuid);
    });
  });

  it("finds the chain head behind a long last record whose uuid comes early (a system attachment)", async () => {
    const dir = join(root, "sess-1");
    mkdirSync(dir, { recursive: true });
    const before = record(10);
    const long = record(10);
    writeFileSync(
      join(dir, "2026-01-01T00-00-00-000Z.jsonl"),
      `${JSON.stringify({ uuid: before.uuid, message: {} })}\n` +
        `${JSON.stringify({ type: "attachment", uuid: long.uuid, rendered: [{ content: "e".repeat(300_000) }] })}\n`,
    );
    const heads: ChainHead[] = [];
    await writer().append(main, (h) => {
      heads.push(h);
      return { records: [record(5)] };
    });
    expect(heads).toEqual([{ lastUuid: long.uuid }]);
  });

  describe("events log", () => {
    it("rotates at its size limit to a single .1 file", async () => {
      const log = new EventsLog(root, 400);
      for (let i = 0; i < 20; i++) log.log({ action: "open", session: `s${i}`, bytes: i });
      await log.idle();
      expect(statSync(join(root, EVENTS_FILE)).size).toBeLessThanOrEqual(400);
      expect(statSync(join(root, `${EVENTS_FILE}.1`)).size).toBeLessThanOrEqual(400);
      expect(readdirSync(root).sort()).toEqual([EVENTS_FILE, `${EVENTS_FILE}.1`]);
      const last = readEvents(root).at(-1);
      expect(last).toMatchObject({ action: "open", session: "s19", bytes: 19 });
      expect(typeof last?.ts).toBe("string");
    });

    it("swallows its own write failures", async () => {
      writeFileSync(join(base, "file-not-dir"), "");
      const stderr = process.stderr.write;
      let said = "";
      process.stderr.write = ((s: string) => {
        said += s;
        return true;
      }) as typeof process.stderr.write;
      try {
        const log = new EventsLog(join(base, "file-not-dir", "sub"));
        log.log({ action: "error", code: "X" });
        log.log({ action: "error", code: "Y" });
        await expect(log.idle()).resolves.toBeUndefined();
      } finally {
        process.stderr.write = stderr;
      }
      expect(said.split("\n").filter(Boolean)).toHaveLength(1);
    });
  });
});
