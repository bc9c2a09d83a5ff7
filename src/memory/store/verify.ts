// `tapedeck memory verify`: each item's proof checked and its source re-read. An item's proof (origin.ts) is an
// HMAC under the user's key over its text and source, written by tapedeck with it: an item changed outside
// tapedeck is `tampered`, one without a proof (a file of the previous format until its first write, a file not
// the user's) `unproven`; neither is ever given to the agent. An item names its session and the sha256 of that
// session's events.jsonl from byte 0 to the end of the promotion's last promoted line; the recording is
// append-only, so those bytes never change while the session exists. A session that is gone (deleted) or
// whose prefix hashes differently (rewritten, replaced) is reported; the item itself is kept either way:
// memory outlives its recording by design.
import { listSessions } from "../../core/read/sessions.ts";
import type { MemoryItem } from "./items.ts";
import { eventsFile, sha256Prefix } from "./source.ts";
import type { MemoryStore } from "./store.ts";
import { PROVEN_ITEMS_VERSION } from "./store-schema.ts";

export type SourceProblem = "gone" | "changed";
export type ProofProblem = "tampered" | "unproven";

export interface VerifyFinding {
  id: string;
  title: string;
  session_id: string;
  problem: SourceProblem | ProofProblem;
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
  const unproven = unprovenReason(store);
  for (const item of store.iterate()) {
    const proof = proofFinding(store, item, unproven);
    const s = item.source;
    const key = `${s.session_id}\u0000${s.archive_bytes}\u0000${s.archive_sha256}`;
    let status = cache.get(key);
    if (!status) {
      status = checkSource(item, dirs.get(s.session_id));
      cache.set(key, status);
    }
    report.checked += 1;
    if (proof) report.findings.push({ ...findingOf(item), ...proof });
    if (status.ok && !proof) report.ok += 1;
    if (!status.ok)
      report.findings.push({ ...findingOf(item), problem: status.problem, reason: status.reason });
    if (onProgress && report.checked % 10_000 === 0) onProgress(report.checked);
  }
  return report;
}

function findingOf(item: MemoryItem): Pick<VerifyFinding, "id" | "title" | "session_id"> {
  return { id: item.id, title: item.title, session_id: item.source.session_id };
}

/** Why this file's items have no proof to check, when none of them can have one. */
function unprovenReason(store: MemoryStore): string | undefined {
  if (!store.isOwn()) {
    return "the file is not proven yours (it came with the project, was changed, or predates origin proofs)";
  }
  if (store.format < PROVEN_ITEMS_VERSION) {
    return "the file predates item proofs: the next promote, edit or forget proves its items as they are now";
  }
  return undefined;
}

function proofFinding(
  store: MemoryStore,
  item: MemoryItem,
  unproven: string | undefined,
): { problem: ProofProblem; reason: string } | undefined {
  if (unproven !== undefined) return { problem: "unproven", reason: unproven };
  const proof = store.proofOf(item);
  if (proof === "proven") return undefined;
  if (proof === "changed") {
    return {
      problem: "tampered",
      reason:
        "its text or source no longer matches the proof tapedeck wrote with it: changed outside tapedeck",
    };
  }
  return { problem: "unproven", reason: "it carries no proof: it was not written by your tapedeck" };
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
