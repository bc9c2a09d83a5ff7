// Splits an event stream into its events while it is still bytes, so that an
// event no observer asked for (a content delta, when only the archive feed
// listens) is skipped without being decoded to a string or parsed. Profiled on
// 50 concurrent 4 MB streams with an archive-feed-like observer: UTF-8 decoding
// was 27% of the proxy's CPU and JSON.parse of every event 20%, against 18% for
// the socket writes themselves.
//
// The skip is exact: eventsource-parser resets all of its state (data, event
// type, id) at every blank line, so dropping the lines between two blank lines
// of an unwanted event leaves nothing different for the events after it. What
// the cheap scan cannot judge goes to the full parser instead:
// - The first event always goes through, so the decoder and the parser see the
//   stream's start (a byte order mark) exactly as they would unsplit.
// - A CR anywhere (CRLF or CR line ends) hands this chunk and everything after
//   it to the full parser: Anthropic and OpenAI send LF only.
// - So does one event larger than the parser's buffer bound, so that the bound
//   is applied by the parser, in its own unit (characters), as before.
// An event without an `event:` line, or with the default type `message`, is
// always wanted: a data-only stream names no types.

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const EVENT = Buffer.from("event");
export const DEFAULT_TYPE = "message";

export interface SseSink {
  /** One whole event: its lines and the blank line that dispatches it. */
  event(bytes: Buffer): void;
  /** After the fallback: every byte as it comes, for the full parser. */
  raw(bytes: Buffer): void;
}

// Lines are found with indexOf(LF), a memchr: per event it is one short call for
// the `event:` line and one for the data, where searching for "\n\n" and
// "\nevent" cost twice as much (profiled).
export class SseSplitter {
  readonly #wanted: Buffer[];
  readonly #sink: SseSink;
  readonly #maxEventBytes: number;
  /** The current event's bytes from earlier chunks. */
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #first = true;
  #raw = false;
  /** Set by #eventEnd: where the last `event` line of the event it measured starts, or -1. */
  #eventLine = -1;
  /** Set by #eventEnd when the event did not end: where its unfinished last line starts. */
  #openLine = 0;
  /**
   * When the tail is one piece: its last complete `event` line, and where its
   * unfinished line starts (its length when it ends with a line), both within the piece.
   */
  #tailEventLine = -1;
  #tailOpenLine = 0;

  constructor(wanted: Iterable<string>, sink: SseSink, maxEventBytes: number) {
    // `event: message` is the type an unnamed event has: a gateway may spell it out.
    this.#wanted = [...new Set([...wanted, DEFAULT_TYPE])].map((n) => Buffer.from(n, "utf8"));
    this.#sink = sink;
    this.#maxEventBytes = maxEventBytes;
  }

  write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.#raw) {
      this.#sink.raw(chunk);
      return;
    }
    if (chunk.indexOf(CR) !== -1) {
      this.#fallBack(chunk);
      return;
    }
    let p = 0;
    if (this.#tailBytes > 0) {
      const last = this.#tail[this.#tail.length - 1]!;
      // The blank line may be this chunk's first byte, after a line the last chunk ended.
      const end = last[last.length - 1] === LF && chunk[0] === LF ? 1 : blankLineEnd(chunk);
      if (end === -1) {
        this.#keep(chunk);
        return;
      }
      if (this.#spanWanted(chunk, end)) {
        this.#tail.push(chunk.subarray(0, end));
        const whole = Buffer.concat(this.#tail, this.#tailBytes + end);
        this.#tail = [];
        this.#tailBytes = 0;
        this.#eventEnd(whole, 0);
        this.#offer(whole, 0, whole.length);
      } else {
        this.#tail = [];
        this.#tailBytes = 0;
      }
      p = end;
    }
    while (p < chunk.length) {
      // A blank line between events dispatches nothing.
      if (chunk[p] === LF) {
        p += 1;
        continue;
      }
      const end = this.#eventEnd(chunk, p);
      if (end === -1) {
        this.#tailEventLine = this.#eventLine === -1 ? -1 : this.#eventLine - p;
        this.#tailOpenLine = this.#openLine - p;
        this.#keep(chunk.subarray(p));
        return;
      }
      this.#offer(chunk, p, end);
      p = end;
    }
  }

  /** The index after the blank line that ends the event starting at p (or -1); notes its last `event` line. */
  #eventEnd(buf: Buffer, p: number): number {
    this.#eventLine = -1;
    let line = p;
    for (;;) {
      const lf = buf.indexOf(LF, line);
      if (lf === -1) {
        this.#openLine = line;
        return -1;
      }
      if (isEventLine(buf, line)) this.#eventLine = line;
      if (buf[lf + 1] === LF) return lf + 2;
      line = lf + 1;
    }
  }

  #keep(piece: Buffer): void {
    this.#tail.push(piece);
    this.#tailBytes += piece.length;
    if (this.#tailBytes > this.#maxEventBytes) this.#fallBack(undefined);
  }

  #fallBack(chunk: Buffer | undefined): void {
    this.#raw = true;
    const tail = this.#tail;
    this.#tail = [];
    this.#tailBytes = 0;
    for (const piece of tail) this.#sink.raw(piece);
    if (chunk) this.#sink.raw(chunk);
  }

  /**
   * Whether the event that began in the tail and ends at `end` in this chunk may be
   * wanted. Judged from the lines as they lie, without joining them (a copy per chunk
   * boundary was a third of the split's time, profiled); what cannot be judged that
   * way (the first event, a tail of several pieces, an `event` line cut by the
   * boundary) answers true, and #offer judges the joined event.
   */
  #spanWanted(chunk: Buffer, end: number): boolean {
    if (this.#first || this.#tail.length !== 1) return true;
    const tail = this.#tail[0]!;
    const open = this.#tailOpenLine;
    let line = 0;
    if (open < tail.length) {
      // The line cut by the boundary: too short to tell, or an `event` line, is judged joined.
      if (tail.length - open < 6 || isEventLine(tail, open)) return true;
      line = chunk.indexOf(LF) + 1;
    }
    let eventLine = -1;
    // The lines wholly in this chunk, up to the blank line at end - 1.
    while (line < end - 1) {
      if (isEventLine(chunk, line)) eventLine = line;
      line = chunk.indexOf(LF, line) + 1;
    }
    if (eventLine !== -1) return this.#wants(chunk, eventLine);
    return this.#tailEventLine === -1 || this.#wants(tail, this.#tailEventLine);
  }

  #offer(buf: Buffer, start: number, end: number): void {
    if (this.#first) {
      this.#first = false;
    } else if (!this.#wants(buf, this.#eventLine)) {
      return;
    }
    this.#sink.event(buf.subarray(start, end));
  }

  /** Whether the event whose last `event` line starts at `line` (-1: none) is one an observer asked for. */
  #wants(buf: Buffer, line: number): boolean {
    if (line === -1 || buf[line + 5] === LF) return true;
    const from = buf[line + 6] === SPACE ? line + 7 : line + 6;
    // `event:` with no value leaves the type unset, as no line would.
    if (buf[from] === LF) return true;
    for (const name of this.#wanted) {
      if (buf[from + name.length] === LF && sameBytes(name, buf, from)) return true;
    }
    return false;
  }
}

/** The index just after the first blank line, or -1. */
function blankLineEnd(chunk: Buffer): number {
  for (let lf = chunk.indexOf(LF); lf !== -1; lf = chunk.indexOf(LF, lf + 1)) {
    if (chunk[lf + 1] === LF) return lf + 2;
  }
  return -1;
}

// Byte by byte in JS: for a few bytes per event, a native compare costs more in the call than in the work.

/** A line `event:…` or exactly `event` (which sets an empty type), starting at i. */
function isEventLine(buf: Buffer, i: number): boolean {
  if (buf.length < i + 6) return false;
  for (let k = 0; k < 5; k += 1) if (buf[i + k] !== EVENT[k]) return false;
  return buf[i + 5] === COLON || buf[i + 5] === LF;
}

function sameBytes(name: Buffer, buf: Buffer, at: number): boolean {
  for (let k = 0; k < name.length; k += 1) if (buf[at + k] !== name[k]) return false;
  return true;
}
