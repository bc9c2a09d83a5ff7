// Day files of our own making, as `usage publish` writes them or as a hostile peer could: any rows, with a
// valid `rows_sha256` (the hash is no signature: anyone who can write into the synced folder can make one).
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const DEVICE = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/** A row as publish writes one, with `o` over it. */
export function dayRow(o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    slot: 600,
    provider: "claude",
    model: "claude-sonnet-4-5-20250929",
    agent_version: "2.1.300",
    project: "p-0123456789abcdef",
    sessions: ["s1"],
    sessions_without_usage: [],
    usage_recorded: true,
    sources: ["claude-transcript"],
    input_tokens: 10,
    output_tokens: 1,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cost_usd: 0.001,
    prices_as_of: ["2026-11-24"],
    project_priced: false,
    ...o,
  };
}

/**
 * Writes `<dir>/<device>/<day>.json` holding `rows` (or the raw JSON text `rowsText`, for shapes
 * JSON.stringify cannot make), its hash valid; `head` over the file's other fields.
 */
export function writeDay(
  dir: string,
  day: string,
  rows: unknown[] | null,
  o: { device?: string; head?: Record<string, unknown>; rowsText?: string } = {},
): string {
  const device = o.device ?? DEVICE;
  mkdirSync(join(dir, device), { recursive: true, mode: 0o700 });
  const text = o.rowsText ?? JSON.stringify(rows);
  const head = {
    format: "tapedeck-usage-day",
    format_version: 1,
    device_id: device,
    device_name: "planted",
    day,
    published_at: "2025-01-01T00:00:00.000Z",
    slot_minutes: 15,
    ...o.head,
  };
  const sha = createHash("sha256").update(text).digest("hex");
  const path = join(dir, device, `${day}.json`);
  writeFileSync(path, `${JSON.stringify(head).slice(0, -1)},"rows":${text},"rows_sha256":"${sha}"}`);
  return path;
}
