// UTF-8 bytes to text, chunk by chunk, as TextDecoder's streaming mode gives
// them (a leading byte order mark dropped, invalid bytes as U+FFFD), but
// through Buffer#toString: TextDecoder with `stream: true` decoded 13 KB
// chunks at a sixth of toString's speed here (Node 20), and was a tenth of the
// mirror's CPU per MB.
//
// A chunk is decoded up to its last sequence that the boundary cut short; that
// sequence waits for the next chunk. Up to that point the text cannot depend
// on what follows: a lead byte ends whatever came before it.

const BOM = [0xef, 0xbb, 0xbf];

/** The length of the sequence a lead byte opens (0 for a byte that opens none). */
function sequenceLength(b: number): number {
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/** Where the sequence the end of `buf` cuts short starts; buf.length when none is cut. */
function cutSequence(buf: Buffer): number {
  const last = Math.max(0, buf.length - 3);
  for (let i = buf.length - 1; i >= last; i -= 1) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue;
    const n = sequenceLength(b);
    // Only a sequence that can still complete waits; one already invalid is decoded (as U+FFFD) now.
    return n > buf.length - i && (i + 1 === buf.length || secondByteFits(b, buf[i + 1]!)) ? i : buf.length;
  }
  return buf.length;
}

/** The second byte's range after a lead byte (no overlong forms, no surrogates, nothing past U+10FFFF). */
function secondByteFits(lead: number, b: number): boolean {
  if (lead === 0xe0) return b >= 0xa0 && b <= 0xbf;
  if (lead === 0xed) return b >= 0x80 && b <= 0x9f;
  if (lead === 0xf0) return b >= 0x90 && b <= 0xbf;
  if (lead === 0xf4) return b >= 0x80 && b <= 0x8f;
  return b >= 0x80 && b <= 0xbf;
}

export class Utf8Chunks {
  #carry: Buffer | undefined;
  #start = true;

  /** The text of `bytes` and of what earlier chunks left open; the end of a cut sequence waits. */
  decode(bytes: Buffer): string {
    let buf = bytes;
    if (this.#carry) {
      buf = Buffer.concat([this.#carry, bytes]);
      this.#carry = undefined;
    }
    if (this.#start) {
      if (buf.length === 0) return "";
      if (buf.length < BOM.length && buf.every((b, i) => b === BOM[i])) {
        this.#carry = Buffer.from(buf);
        return "";
      }
      this.#start = false;
      if (buf[0] === BOM[0] && buf[1] === BOM[1] && buf[2] === BOM[2]) buf = buf.subarray(3);
    }
    const cut = cutSequence(buf);
    if (cut < buf.length) {
      // A copy: the chunk may be a view into a socket read that is otherwise done with.
      this.#carry = Buffer.from(buf.subarray(cut));
      buf = buf.subarray(0, cut);
    }
    return buf.toString("utf8");
  }
}
