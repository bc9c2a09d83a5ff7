// The checkpoint of the validated prefix (issue 14): a scan that continues
// from it reports exactly what a full parse of every line reports, on random
// archives with malformed lines, anomalies and torn tails cut at any byte; a
// checkpoint that no longer matches the file is ignored; it is written 0600,
// atomically, never through a symlink; repair never trusts it; and a
// remembered seal never hides a changed byte.
import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pick, seededRandom } from "../../packages/redact/test/random.ts";
import { CHECKPOINT_FILE } from "../../src/core/archive/checkpoint.ts";
import { recoverSession, verifyChecksums } from "../../src/core/archive/recovery.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { inspectSession, listSessions } from "../../src/core/read/sessions.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function sessionDir(): string {
  const dir = join(project(), "session");
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

const KINDS = [
  "session_start",
  "user_prompt",
  "tool_call",
  "tool_result",
  "turn_usage",
  "session_end",
  "é-kind",
];

/** A random archive: mostly well-formed envelopes, with every kind of damage recovery reports. */
function randomArchive(rand: () => number, lines: number): Buffer {
  const out: string[] = [];
  let seq = 0;
  const ids: string[] = [];
  for (let i = 0; i < lines; i += 1) {
    const r = rand();
    if (r < 0.06) {
      out.push(
        pick(rand, ["not json", "", "[1,2]", '{"sequence":"7","event_id":"x","kind":"k"}', '{"a":', "null"]),
      );
      continue;
    }
    if (r < 0.08) {
      // Not an envelope, but it carries usage: the usage sums have always counted such a line.
      out.push(JSON.stringify({ kind: "turn_usage", usage: { input_tokens: 3, source: "stray" } }));
      continue;
    }
    const s = rand();
    seq = s < 0.05 ? Math.max(1, seq - Math.floor(rand() * 3)) : s < 0.07 ? seq : seq + 1;
    const id = rand() < 0.04 && ids.length > 0 ? pick(rand, ids) : `ev-${i}-${rand() < 0.1 ? "ü" : ""}`;
    ids.push(id);
    const kind = pick(rand, KINDS);
    const envelope: Record<string, unknown> = {
      schema_version: 1,
      sequence: seq,
      event_id: id,
      timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      kind,
      payload: { text: "x".repeat(Math.floor(rand() * 200)), nested: { é: [1, { deep: "✓" }] } },
      redactions: Array.from({ length: Math.floor(rand() * 3) }, () => ({ rule: "r" })),
      truncations: Array.from({ length: rand() < 0.1 ? 1 : 0 }, () => ({ path: "p" })),
    };
    if (rand() < 0.1) delete envelope.timestamp;
    if (kind === "turn_usage") {
      envelope.usage = {
        source: pick(rand, ["hook", "transcript"]),
        input_tokens: Math.floor(rand() * 1000),
        output_tokens: Math.floor(rand() * 1000),
        cache_read_input_tokens: rand() < 0.5 ? Math.floor(rand() * 50) : undefined,
        cache_creation_input_tokens: "not a number",
        reasoning_output_tokens: rand() < 0.3 ? Math.floor(rand() * 20) : undefined,
      };
    }
    out.push(JSON.stringify(envelope));
  }
  let text = out.map((l) => `${l}\n`).join("");
  const tail = rand();
  if (tail < 0.2) text += '{"schema_version":1,"sequence":99999,"event_i';
  else if (tail < 0.3)
    text += JSON.stringify({ schema_version: 1, sequence: seq + 1, event_id: "last", kind: "session_end" });
  else if (tail < 0.4) text += '{"text":"caf\u00e9'.slice(0, -1);
  const bytes = Buffer.from(text);
  // Cut inside a UTF-8 character now and then.
  return tail >= 0.4 && tail < 0.45 ? bytes.subarray(0, bytes.length - 1) : bytes;
}

/**
 * The reference: every line through JSON.parse, as the scan was before
 * checkpoints (inspect's counters, the malformed lines, the anomalies and the tail).
 */
function fullParse(bytes: Buffer) {
  const parts = bytes.length === 0 ? [] : splitLines(bytes);
  const counts: Record<string, number> = {};
  const malformed: Array<{ line: number; offset: number; bytes: number }> = [];
  const duplicateSequences: number[] = [];
  const nonMonotonic: number[] = [];
  const duplicateIds: number[] = [];
  const sequences = new Set<number>();
  const ids = new Set<string>();
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    reasoning_output_tokens: 0,
  };
  const sources = new Set<string>();
  let previous = 0;
  let redactions = 0;
  let truncations = 0;
  let valid = 0;
  let last: string | null = null;
  let tail: number | null = null;
  parts.forEach(({ offset, line, terminated }, index) => {
    const lineNo = index + 1;
    if (!terminated) {
      tail = line.length;
      return;
    }
    let v: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(line.toString("utf8"));
      v = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : undefined;
    } catch {
      v = undefined;
    }
    const u = v?.usage as Record<string, unknown> | undefined;
    if (u && line.includes('"kind":"turn_usage"')) {
      if (typeof u.source === "string") sources.add(u.source);
      for (const k of Object.keys(usage) as Array<keyof typeof usage>) {
        if (typeof u[k] === "number") usage[k] += u[k] as number;
      }
    }
    if (
      !v ||
      typeof v.sequence !== "number" ||
      typeof v.event_id !== "string" ||
      typeof v.kind !== "string"
    ) {
      malformed.push({ line: lineNo, offset, bytes: line.length });
      return;
    }
    if (sequences.has(v.sequence)) duplicateSequences.push(lineNo);
    else if (v.sequence <= previous) nonMonotonic.push(lineNo);
    sequences.add(v.sequence);
    previous = Math.max(previous, v.sequence);
    if (ids.has(v.event_id)) duplicateIds.push(lineNo);
    ids.add(v.event_id);
    counts[v.kind] = (counts[v.kind] ?? 0) + 1;
    redactions += Array.isArray(v.redactions) ? v.redactions.length : 0;
    truncations += Array.isArray(v.truncations) ? v.truncations.length : 0;
    if (typeof v.timestamp === "string" && v.timestamp) last = v.timestamp;
    valid += 1;
  });
  return {
    bytes: bytes.length,
    counts,
    malformed,
    duplicateSequences,
    nonMonotonic,
    duplicateIds,
    usage: { ...usage, sources: [...sources].sort() },
    redactions,
    truncations,
    valid,
    last,
    tail,
  };
}

function splitLines(bytes: Buffer): Array<{ offset: number; line: Buffer; terminated: boolean }> {
  const out: Array<{ offset: number; line: Buffer; terminated: boolean }> = [];
  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(10, start);
    if (nl < 0) break;
    out.push({ offset: start, line: bytes.subarray(start, nl), terminated: true });
    start = nl + 1;
  }
  if (start < bytes.length) out.push({ offset: start, line: bytes.subarray(start), terminated: false });
  return out;
}

/** What inspect reports, from one read-only recovery, in the reference's shape. */
function counters(dir: string, options: { checkpoint: boolean }) {
  const r = recoverSession(dir, { write: false, checkpoint: options.checkpoint, checkpointMinBytes: 0 });
  return {
    bytes: r.report.bytes_scanned,
    counts: r.countsByKind,
    malformed: r.report.malformed_lines.map(({ line, offset, bytes }) => ({ line, offset, bytes })),
    duplicateSequences: r.report.duplicate_sequences.map((d) => d.line),
    nonMonotonic: r.report.non_monotonic_sequences.map((d) => d.line),
    duplicateIds: r.report.duplicate_event_ids.map((d) => d.line),
    usage: { ...r.usage, sources: [...r.usage.sources].sort() },
    redactions: r.state.redaction_count,
    truncations: r.state.truncation_count,
    valid: r.report.valid_events,
    last: r.lastTimestamp,
    tail: r.report.torn_tail?.bytes ?? null,
  };
}

/** Everything the scan returns, for a checkpointed run against a full one. */
function everything(dir: string, options: { checkpoint: boolean }) {
  const r = recoverSession(dir, { write: false, checkpoint: options.checkpoint, checkpointMinBytes: 0 });
  return { ...r, report: { ...r.report, scanned_at: "" } };
}

describe("a checkpointed scan equals a full parse", () => {
  it("on random archives cut at random bytes, appended in up to three steps", () => {
    for (let seed = 1; seed <= 60; seed += 1) {
      const rand = seededRandom(seed);
      const archive = randomArchive(rand, 5 + Math.floor(rand() * 120));
      const dir = sessionDir();
      const file = join(dir, "events.jsonl");
      const cuts = [Math.floor(rand() * archive.length), Math.floor(rand() * archive.length)].sort(
        (a, b) => a - b,
      );
      writeFileSync(file, archive.subarray(0, cuts[0]));
      counters(dir, { checkpoint: true });
      appendFileSync(file, archive.subarray(cuts[0], cuts[1]));
      const middle = counters(dir, { checkpoint: true });
      expect(middle, `seed ${seed}, first append`).toEqual(fullParse(archive.subarray(0, cuts[1])));
      appendFileSync(file, archive.subarray(cuts[1]));
      const checkpointed = everything(dir, { checkpoint: true });
      const full = everything(dir, { checkpoint: false });
      expect(checkpointed, `seed ${seed}`).toEqual(full);
      expect(counters(dir, { checkpoint: true }), `seed ${seed}`).toEqual(fullParse(archive));
    }
  });

  it("leaves a checkpoint at the last complete line, private and readable by the next scan", () => {
    const dir = sessionDir();
    const archive = randomArchive(seededRandom(7), 40);
    writeFileSync(join(dir, "events.jsonl"), archive);
    counters(dir, { checkpoint: true });
    const checkpoint = JSON.parse(readFileSync(join(dir, CHECKPOINT_FILE), "utf8"));
    expect(checkpoint.scan.offset).toBe(archive.lastIndexOf(10) + 1);
    expect(statSync(join(dir, CHECKPOINT_FILE)).mode & 0o777).toBe(0o600);
  });
});

describe("a checkpoint that does not match the file is ignored", () => {
  function checkpointed(lines = 50): { dir: string; file: string; archive: Buffer } {
    const dir = sessionDir();
    const file = join(dir, "events.jsonl");
    const archive = randomArchive(seededRandom(11), lines);
    writeFileSync(file, archive);
    counters(dir, { checkpoint: true });
    return { dir, file, archive };
  }

  it("a truncated file", () => {
    const { dir, file, archive } = checkpointed();
    const cut = Math.floor(archive.length / 2);
    truncateSync(file, cut);
    expect(counters(dir, { checkpoint: true })).toEqual(fullParse(archive.subarray(0, cut)));
  });

  it("a file rewritten with other bytes before the checkpoint's offset (same size)", () => {
    const { dir, file, archive } = checkpointed();
    const offset = JSON.parse(readFileSync(join(dir, CHECKPOINT_FILE), "utf8")).scan.offset as number;
    const changed = Buffer.from(archive);
    // The last complete line becomes malformed: its first byte is no longer "{".
    const lastLine = changed.lastIndexOf(10, offset - 2) + 1;
    changed[lastLine] = 0x58;
    writeFileSync(file, changed);
    expect(counters(dir, { checkpoint: true })).toEqual(fullParse(changed));
  });

  it("a file replaced by a shorter one, then grown past the old offset", () => {
    const { dir, file } = checkpointed();
    const other = randomArchive(seededRandom(99), 200);
    writeFileSync(file, other);
    expect(counters(dir, { checkpoint: true })).toEqual(fullParse(other));
  });

  it("a checkpoint that is not one (garbage, another version, an offset past the end)", () => {
    const { dir, archive } = checkpointed();
    const path = join(dir, CHECKPOINT_FILE);
    const good = JSON.parse(readFileSync(path, "utf8"));
    for (const bad of [
      "{not json",
      JSON.stringify({ ...good, version: 2 }),
      JSON.stringify({ ...good, scan: { ...good.scan, offset: archive.length + 10 } }),
      JSON.stringify({ ...good, scan: { ...good.scan, offset: 3 } }),
      JSON.stringify({ ...good, scan: { ...good.scan, event_ids: "x" } }),
      JSON.stringify({ ...good, scan: { ...good.scan, event_ids: [1, 2] } }),
      JSON.stringify({ ...good, scan: { ...good.scan, offset: "12" } }),
      JSON.stringify({ ...good, scan: { ...good.scan, state: { ...good.scan.state, counts: null } } }),
      JSON.stringify({ ...good, scan: { ...good.scan, sequences: [[1]] } }),
      JSON.stringify({ ...good, scan: { ...good.scan, usage: { ...good.scan.usage, input_tokens: "9" } } }),
      JSON.stringify({
        ...good,
        scan: { ...good.scan, report: { ...good.scan.report, malformed_lines: [1] } },
      }),
    ]) {
      writeFileSync(path, bad);
      expect(counters(dir, { checkpoint: true })).toEqual(fullParse(archive));
    }
  });

  it("a damaged id list, found only when lines were appended: a full scan", () => {
    const { dir, file, archive } = checkpointed();
    const path = join(dir, CHECKPOINT_FILE);
    const good = JSON.parse(readFileSync(path, "utf8"));
    const more = randomArchive(seededRandom(12), 20);
    appendFileSync(file, more);
    for (const ids of ['["a",1]', "{not json", '{"a":1}']) {
      writeFileSync(path, JSON.stringify({ ...good, scan: { ...good.scan, event_ids: ids } }));
      expect(counters(dir, { checkpoint: true })).toEqual(fullParse(Buffer.concat([archive, more])));
    }
  });
});

describe("the checkpoint is used, and only where it may be", () => {
  /** A damaged byte in the middle of the prefix keeps the boundary: only a full read sees it. */
  function damagedPrefix() {
    const dir = sessionDir();
    const file = join(dir, "events.jsonl");
    const archive = Buffer.from(
      Array.from({ length: 200 }, (_, i) =>
        JSON.stringify({
          schema_version: 1,
          sequence: i + 1,
          event_id: `e${i}`,
          kind: "tool_result",
          payload: {},
        }),
      )
        .map((l) => `${l}\n`)
        .join(""),
    );
    // 0600, as the recorder creates it: repair appends only to a private file.
    writeFileSync(file, archive, { mode: 0o600 });
    counters(dir, { checkpoint: true });
    const damaged = Buffer.from(archive);
    damaged[100] = 0x00;
    writeFileSync(file, damaged);
    return { dir, damaged };
  }

  it("inspect does not parse the validated prefix again", () => {
    const { dir } = damagedPrefix();
    const r = recoverSession(dir, { write: false, checkpointMinBytes: 0 });
    expect(r.report.malformed_lines).toEqual([]);
    expect(r.report.valid_events).toBe(200);
  });

  it("repair reads everything, whatever the checkpoint says", () => {
    const { dir, damaged } = damagedPrefix();
    const r = recoverSession(dir, { write: true, checkpointMinBytes: 0 });
    expect(r.report.malformed_lines.map((m) => m.line)).toEqual(
      fullParse(damaged).malformed.map((m) => m.line),
    );
    expect(r.report.valid_events).toBe(199);
    // and leaves a checkpoint that tells the truth: the next inspect agrees.
    expect(counters(dir, { checkpoint: true })).toEqual(fullParse(damaged));
  });

  it("never writes through a symlink planted as the checkpoint", () => {
    const dir = sessionDir();
    const victim = join(dir, "..", "victim.txt");
    writeFileSync(victim, "keep me\n");
    symlinkSync(victim, join(dir, CHECKPOINT_FILE));
    const archive = randomArchive(seededRandom(5), 30);
    writeFileSync(join(dir, "events.jsonl"), archive);
    expect(counters(dir, { checkpoint: true })).toEqual(fullParse(archive));
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    expect(lstatSync(join(dir, CHECKPOINT_FILE)).isFile()).toBe(true);
  });

  it("an archive it cannot write to is still inspected", () => {
    const dir = sessionDir();
    const archive = randomArchive(seededRandom(6), 30);
    writeFileSync(join(dir, "events.jsonl"), archive);
    chmodSync(dir, 0o500);
    try {
      // root ignores the mode: what matters is that a failed write is no failure of the scan.
      expect(counters(dir, { checkpoint: true })).toEqual(fullParse(archive));
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe("a remembered seal", () => {
  function sealed() {
    const s = spec(project());
    const events = [event("session_start", "a")];
    for (let i = 0; i < 50; i += 1) events.push(event("tool_result", `t${i}`, { out: "y".repeat(500) }));
    events.push(event("session_end", "z"));
    const { sessionDir: dir } = recordEvents(s, events);
    // A whole second: the test below can put it back exactly, so only the ctime tells.
    utimesSync(join(dir, "events.jsonl"), 1_700_000_000, 1_700_000_000);
    recoverSession(dir, { write: true, checkpointMinBytes: 0 });
    return { root: s.projectRoot, dir };
  }

  /** A seal is remembered only for a file whose last change is a file-time tick old. */
  const quiet = () => new Promise((resolve) => setTimeout(resolve, 150));

  it("answers for an untouched sealed session", async () => {
    const { root, dir } = sealed();
    await quiet();
    const first = inspectSession(listSessions(root)[0]!);
    expect(first.checksums).toEqual({ ok: true, reason: "sha256 matches" });
    expect(JSON.parse(readFileSync(join(dir, CHECKPOINT_FILE), "utf8")).seal.sha256).toMatch(
      /^[0-9a-f]{64}$/,
    );
    expect(inspectSession(listSessions(root)[0]!).checksums).toEqual({ ok: true, reason: "sha256 matches" });
  });

  it("never hides a byte changed in place, even with the size and mtime put back", async () => {
    const { dir } = sealed();
    await quiet();
    expect(verifyChecksums(dir).ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, CHECKPOINT_FILE), "utf8")).seal).toBeDefined();
    const file = join(dir, "events.jsonl");
    const before = statSync(file, { bigint: true });
    const bytes = readFileSync(file);
    bytes[200] = bytes[200] === 0x79 ? 0x7a : 0x79;
    writeFileSync(file, bytes);
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const after = statSync(file, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    expect(verifyChecksums(dir)).toEqual({ ok: false, reason: "sha256 differs" });
  });
});
