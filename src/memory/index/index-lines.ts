// A line of events.jsonl turned into the row the index stores (core/base/bounded-lines.ts reads the lines).
import { isEnvelopeLine, parseObjectLine } from "../../core/archive/line-scan.ts";
import { searchableText } from "./index-text.ts";

/** The indexed row of one line; undefined when the line is no envelope. */
export function toPending(bytes: Buffer, offset: number, provider: string): Pending | undefined {
  const e = parseObjectLine(bytes);
  if (!isEnvelopeLine(e)) return undefined;
  const text = searchableText(e.kind, e.payload);
  return {
    line_offset: offset,
    seq: e.sequence,
    kind: e.kind,
    provider: typeof e.provider === "string" ? e.provider : provider,
    ts: typeof e.timestamp === "string" ? e.timestamp : "",
    event_id: e.event_id,
    body: text.body,
    idents: text.idents,
  };
}

export interface Pending {
  line_offset: number;
  seq: number;
  kind: string;
  provider: string;
  ts: string;
  event_id: string;
  body: string;
  idents: string;
}
