// The integrity panel: the checksum recomputed here, in the page, from the stored bytes; the redaction,
// omission and truncation markers counted from the same bytes; what recovery found; the capture channels.
import type { Integrity } from "../api.ts";
import { bytes, compact, h } from "./dom.ts";
import { Sha256 } from "./sha256.ts";
import type { Source } from "./source.ts";

export interface Tally {
  sha256: string;
  bytes: number;
  events: number;
  redactions: number;
  redacted_events: number;
  omitted: number;
  truncations: number;
  bad_lines: number;
  /** tokens per usage source (hook payload, transcript, proxy): the channels that reported usage */
  sources: Record<string, { events: number; input: number; output: number }>;
  kinds: Record<string, number>;
  /** responses (by message_id) that two channels both reported, and those whose token counts differ */
  shared_responses: number;
  disagreements: number;
}

/** Reads events.jsonl chunk by chunk, hashing every byte and counting the markers of each complete line. */
export async function tallyArchive(
  source: Source,
  key: string,
  onProgress?: (n: number) => void,
): Promise<Tally> {
  const hash = new Sha256();
  const t: Tally = {
    sha256: "",
    bytes: 0,
    events: 0,
    redactions: 0,
    redacted_events: 0,
    omitted: 0,
    truncations: 0,
    bad_lines: 0,
    // Keyed by names the archive gives (a kind, a usage source): no prototype, so `constructor` or
    // `__proto__` count as the names they are.
    sources: Object.create(null),
    kinds: Object.create(null),
    shared_responses: 0,
    disagreements: 0,
  };
  const byMessage = new Map<string, Map<string, string>>();
  const decoder = new TextDecoder();
  let carry = "";
  for (;;) {
    const chunk = await source.raw(key, t.bytes);
    if (chunk.length === 0) break;
    hash.update(chunk);
    t.bytes += chunk.length;
    onProgress?.(t.bytes);
    const lines = (carry + decoder.decode(chunk, { stream: true })).split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) countLine(t, line, byMessage);
  }
  if (carry) t.bad_lines += 1;
  for (const counts of byMessage.values()) {
    if (counts.size < 2) continue;
    t.shared_responses += 1;
    if (new Set(counts.values()).size > 1) t.disagreements += 1;
  }
  t.sha256 = hash.hex();
  return t;
}

function countLine(t: Tally, line: string, byMessage: Map<string, Map<string, string>>): void {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line);
  } catch {
    t.bad_lines += 1;
    return;
  }
  t.events += 1;
  const kind = String(e.kind);
  t.kinds[kind] = (t.kinds[kind] ?? 0) + 1;
  const r = Array.isArray(e.redactions) ? e.redactions.length : 0;
  t.redactions += r;
  if (r > 0) t.redacted_events += 1;
  t.omitted += Array.isArray(e.omitted) ? e.omitted.length : 0;
  t.truncations += Array.isArray(e.truncations) ? e.truncations.length : 0;
  const u = e.usage as Record<string, unknown> | undefined;
  if (u && typeof u === "object") {
    const src = String(u.source ?? "unknown");
    const s = t.sources[src] ?? { events: 0, input: 0, output: 0 };
    t.sources[src] = s;
    s.events += 1;
    s.input += Number(u.input_tokens ?? 0) || 0;
    s.output += Number(u.output_tokens ?? 0) || 0;
    // One response seen by two channels (the transcript and the proxy) must carry the same counts; totals
    // per channel differ by design (a subagent's hook-payload total repeats its transcript messages).
    if (typeof u.message_id === "string") {
      const seen = byMessage.get(u.message_id) ?? new Map<string, string>();
      seen.set(src, `${Number(u.input_tokens ?? 0)}/${Number(u.output_tokens ?? 0)}`);
      byMessage.set(u.message_id, seen);
    }
  }
}

function row(label: string, value: Node | string, cls?: string): HTMLElement {
  return h("tr", cls ? { class: cls } : {}, h("th", {}, label), h("td", {}, value));
}

type ChecksumState = "verified" | "mismatch" | "none";

function checksumState(info: Integrity, t: Tally): ChecksumState {
  const stored = info.checksums?.events_sha256;
  if (typeof stored !== "string") return "none";
  return stored === t.sha256 && info.checksums?.byte_count === t.bytes ? "verified" : "mismatch";
}

function checksumRow(info: Integrity, t: Tally): HTMLElement {
  const stored = String(info.checksums?.events_sha256);
  const state = checksumState(info, t);
  const text = {
    none: `no checksums.json yet (session ${String(info.manifest.status)}); sha256 now ${t.sha256.slice(0, 16)}…`,
    verified: `✓ verified in this page: sha256 ${t.sha256.slice(0, 16)}… of ${bytes(t.bytes)} matches checksums.json`,
    mismatch: `✗ does not match: checksums.json says ${stored.slice(0, 16)}… (${String(info.checksums?.byte_count)} B), the file hashes to ${t.sha256.slice(0, 16)}… (${t.bytes} B)`,
  }[state];
  return row("Checksum", h("span", { class: STATE_CLASS[state] }, text));
}

const STATE_CLASS: Record<ChecksumState, string> = { verified: "ok", mismatch: "bad", none: "warn" };
const STATE_WORDS: Record<ChecksumState, string> = {
  verified: "✓ checksum verified",
  mismatch: "✗ checksum does not match",
  none: "no checksum yet",
};

function channels(info: Integrity, t: Tally): HTMLElement {
  const caps = Array.isArray(info.manifest.capabilities) ? (info.manifest.capabilities as string[]) : [];
  const list = h("ul", { class: "channels" });
  list.append(h("li", {}, `hooks: ${t.events} events recorded`));
  for (const [src, s] of Object.entries(t.sources)) {
    list.append(
      h("li", {}, `${src}: usage on ${s.events} events, ${compact(s.input)} in / ${compact(s.output)} out`),
    );
  }
  if (t.shared_responses > 0) {
    list.append(
      h(
        "li",
        { class: t.disagreements ? "warn" : "ok", "data-disagreements": String(t.disagreements) },
        t.disagreements
          ? `${t.disagreements} of ${t.shared_responses} response(s) reported by two channels carry different token counts`
          : `${t.shared_responses} response(s) reported by two channels: their token counts agree`,
      ),
    );
  }
  if (caps.length) list.append(h("li", { class: "dim" }, `capabilities: ${caps.join(", ")}`));
  return list;
}

function findingsOf(info: Integrity): string[] {
  const s = info.scan;
  const findings: string[] = [];
  if (s.torn_tail) findings.push("a torn final line");
  if (s.malformed_lines) findings.push(`${s.malformed_lines} malformed line(s)`);
  if (s.duplicate_sequences) findings.push(`${s.duplicate_sequences} duplicate sequence(s)`);
  if (s.non_monotonic_sequences) findings.push(`${s.non_monotonic_sequences} out-of-order sequence(s)`);
  if (s.dropped_count) findings.push(`${s.dropped_count} event(s) dropped at the size limit`);
  if (s.duplicate_count) findings.push(`${s.duplicate_count} retried hook(s) deduplicated`);
  return findings;
}

function recovery(info: Integrity): HTMLElement {
  const findings = findingsOf(info);
  const rec = info.recovery;
  const past = rec
    ? ` · recovery.json of ${String(rec.scanned_at)}${rec.marked_incomplete ? `: marked incomplete (${String(rec.marked_incomplete)})` : ""}`
    : "";
  return h(
    "span",
    { class: findings.length ? "warn" : "ok" },
    `${findings.length ? findings.join("; ") : "nothing to recover"}${past}`,
  );
}

export function integrityPanel(info: Integrity, t: Tally): HTMLElement {
  const m = info.manifest;
  const table = h(
    "table",
    { class: "kv" },
    checksumRow(info, t),
    row(
      "Redactions",
      `${t.redactions} marker(s) in ${t.redacted_events} event(s) (manifest: ${String(m.redaction_count)}, policy ${String(m.redaction_policy)})`,
    ),
    row("Omitted", `${t.omitted} value(s) left out whole`),
    row(
      "Truncations",
      `${t.truncations} value(s) cut to the limits (manifest: ${String(m.truncation_count)})`,
    ),
    row("Recovery", recovery(info)),
    row(
      "Events",
      `${t.events} events, ${bytes(t.bytes)}${t.bad_lines ? `, ${t.bad_lines} line(s) not an event` : ""}`,
    ),
    row("Capture channels", channels(info, t)),
  );
  const manifest = h("table", { class: "kv manifest" });
  for (const [k, v] of Object.entries(m)) {
    manifest.append(row(k, typeof v === "string" ? v : JSON.stringify(v)));
  }
  // One line above the conversation, the table behind it: open only when something is wrong, so a
  // healthy session starts with its first turn in view.
  const state = checksumState(info, t);
  const findings = findingsOf(info);
  const wrong = state === "mismatch" || findings.length > 0;
  return h(
    "details",
    { class: "integrity", id: "integrity", open: wrong },
    h(
      "summary",
      { class: "integrity-line" },
      h("b", {}, "Integrity"),
      " · ",
      h("span", { class: STATE_CLASS[state], "data-checksum": state }, STATE_WORDS[state]),
      " · ",
      h("span", { "data-redactions": String(t.redactions) }, `${t.redactions} redaction(s)`),
      ` · ${t.truncations} truncation(s) · `,
      h(
        "span",
        { class: findings.length ? "warn" : "ok" },
        findings.length ? findings.join("; ") : "nothing to recover",
      ),
    ),
    table,
    h("details", {}, h("summary", {}, "Manifest"), manifest),
  );
}
