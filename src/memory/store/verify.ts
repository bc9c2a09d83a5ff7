// `tapedeck memory verify`: each item's source re-read. An item names its session and the sha256 of that
// session's events.jsonl from byte 0 to the end of the promotion's last promoted line; the recording is
// append-only, so those bytes never change while the session exists. A session that is gone (deleted) or
// whose prefix hashes differently (rewritten, replaced) is reported; the item itself is kept either way:
// memory outlives its recording by design.
import { listSessions } from "../../core/archive.ts";
import type { MemoryItem } from "./items.ts";
import { eventsFile, sha256Prefix } from "./source.ts";
import type { MemoryStore } from "./store.ts";

export type SourceProblem = "gone" | "changed";

export interface VerifyFinding {
  id: string;
  title: string;
  session_id: string;
  problem: SourceProblem;
  reason: string;
}

export interface VerifyReport {
  checked: number;
  ok: number;
  findings: VerifyFinding[];
}

type Status = { ok: true } | { ok: false; problem: SourceProblem; reason: string };

export function verifyMemory(
  projectRoot: string,
  store: MemoryStore,
  onProgress?: (checked: number) => void,
): VerifyReport {
  const dirs = new Map<string, string>();
  for (const ref of listSessions(projectRoot)) dirs.set(ref.manifest.session_id, ref.dir);
  // One hash per promotion, not per item: a promotion's items share their checksum.
  const cache = new Map<string, Status>();
  const report: VerifyReport = { checked: 0, ok: 0, findings: [] };
  for (const item of store.iterate()) {
    const s = item.source;
    const key = `${s.session_id}\u0000${s.archive_bytes}\u0000${s.archive_sha256}`;
    let status = cache.get(key);
    if (!status) {
      status = checkSource(item, dirs.get(s.session_id));
      cache.set(key, status);
    }
    report.checked += 1;
    if (status.ok) report.ok += 1;
    else
      report.findings.push({
        id: item.id,
        title: item.title,
        session_id: s.session_id,
        problem: status.problem,
        reason: status.reason,
      });
    if (onProgress && report.checked % 10_000 === 0) onProgress(report.checked);
  }
  return report;
}

function checkSource(item: MemoryItem, dir: string | undefined): Status {
  const { archive_bytes: bytes, archive_sha256: sha256 } = item.source;
  if (dir === undefined) {
    return { ok: false, problem: "gone", reason: "the session is no longer recorded in this project" };
  }
  let now: string | undefined;
  try {
    now = sha256Prefix(eventsFile(dir), bytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === "ENOENT")
      return { ok: false, problem: "gone", reason: "the session's events.jsonl is missing" };
    return {
      ok: false,
      problem: "changed",
      reason: `the session's events.jsonl cannot be read (${code ?? "unsafe"})`,
    };
  }
  if (now === undefined) {
    return {
      ok: false,
      problem: "changed",
      reason: `events.jsonl is now shorter than the ${bytes} bytes promoted from`,
    };
  }
  if (now !== sha256) {
    return {
      ok: false,
      problem: "changed",
      reason: `the first ${bytes} bytes of events.jsonl no longer match`,
    };
  }
  return { ok: true };
}
