// What the history mappers (<provider>/history-map.ts) share: the cursor's open turn and last record time, the
// count of lines that are no record, the parse every line gets before the agent's own mapping, and the hook
// payload each record is turned into before the hooks' own normalizer reads it.
import type { NormalizedEvent } from "../core/archive/event.ts";
import { parseObjectLine } from "../core/archive/line-scan.ts";
import { type HistoryMapper, isoTime, shortString } from "./history.ts";
import type { Payload } from "./shared.ts";

/** The fields that are set, in their order: what a hook payload or a cursor's state holds. */
export function setFields(fields: Payload): Payload {
  const out: Payload = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

export abstract class RecordMapper implements HistoryMapper {
  malformed = 0;
  /** The turn of a record that names none: the last one opened (the state's `turn`). */
  protected turn: string | undefined;
  /** The last record time read, for a record without one (the state's `last_at`). */
  protected lastAt: string | undefined;

  /** `state` is what the previous import of the file left; `firstAt` the time before its first record. */
  protected constructor(
    protected readonly session: string,
    state: Record<string, unknown> | undefined,
    firstAt: string | undefined,
  ) {
    this.turn = shortString(state?.turn);
    this.lastAt = isoTime(state?.last_at) ?? firstAt;
  }

  line(bytes: Buffer): NormalizedEvent[] {
    const record = parseObjectLine(bytes);
    if (!record) {
      this.malformed += 1;
      return [];
    }
    const at = this.timeOf(record);
    if (at !== undefined) this.lastAt = at;
    return this.map(record);
  }

  end(): NormalizedEvent[] {
    return [];
  }

  /** Keeps `turn` and `last_at` among the mapper's own fields. */
  abstract state(): Record<string, unknown>;

  /** One record's events. */
  protected abstract map(record: Payload): NormalizedEvent[];

  protected timeOf(record: Payload): string | undefined {
    return isoTime(record.timestamp);
  }

  /** The payload of the agent's hook `name` for this session: the fields that are set, in their order. */
  protected hookPayload(name: string, fields: Payload): Payload {
    return { hook_event_name: name, session_id: this.session, ...setFields(fields) };
  }
}
