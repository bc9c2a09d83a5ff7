// The proxy's chunked UTF-8 decoding must give the text TextDecoder's streaming
// mode gives, however the bytes are cut: observers saw that text before.
import { describe, expect, it } from "vitest";
import { cutBytes, lcgRandom, pick } from "../../packages/redact/test/random.ts";
import { Utf8Chunks } from "../../src/proxy/utf8-chunks.ts";

const PIECES = ["plain ascii ", "héllo ", "✓ check ", "𝄞 clef ", "\ufeff", 'data: {"t":"日本語"}\n\n'].map(
  (p) => Buffer.from(p, "utf8"),
);
// Bytes TextDecoder replaces: stray continuations, overlong and surrogate forms, cut sequences, F5-FF.
const INVALID = [
  [0x80],
  [0xbf, 0x80],
  [0xc0, 0xaf],
  [0xc1],
  [0xe0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf0, 0x80],
  [0xf4, 0x90],
  [0xf5],
  [0xff],
  [0xe2, 0x9c],
  [0xf0, 0x9d, 0x84],
].map((b) => Buffer.from(b));

function randomBytes(r: () => number): Buffer {
  const parts: Buffer[] = [];
  if (r() < 0.3) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  const n = 3 + Math.floor(r() * 30);
  for (let i = 0; i < n; i += 1) {
    const pool = r() < 0.25 ? INVALID : PIECES;
    parts.push(pick(r, pool));
  }
  return Buffer.concat(parts);
}

function cuts(bytes: Buffer, r: () => number): Buffer[] {
  return cutBytes(bytes, () => 1 + Math.floor(r() * (r() < 0.5 ? 4 : 40)));
}

describe("Utf8Chunks", () => {
  it("gives what TextDecoder's streaming mode gives, for any bytes and any cuts", () => {
    for (let seed = 1; seed <= 2000; seed += 1) {
      const r = lcgRandom(seed);
      const chunks = cuts(randomBytes(r), r);
      const reference = new TextDecoder("utf-8");
      const ours = new Utf8Chunks();
      const want = chunks.map((c) => reference.decode(c, { stream: true })).join("");
      const got = chunks.map((c) => ours.decode(c)).join("");
      expect({ seed, got }).toEqual({ seed, got: want });
    }
  });

  it("drops a byte order mark only at the start, also when it comes byte by byte", () => {
    const ours = new Utf8Chunks();
    const text = [0xef, 0xbb, 0xbf, 0x61, 0xef, 0xbb, 0xbf]
      .map((b) => ours.decode(Buffer.from([b])))
      .join("");
    expect(text).toBe("a\ufeff");
  });
});
