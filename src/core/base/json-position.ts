// Where a JSON text first goes wrong, as a line and column. Node 20's
// JSON.parse messages quote the text itself (which may hold a secret) and
// often give no position, so a corrupt config file is located by this small
// scanner instead, and reported without any of its content.

export interface TextPosition {
  line: number;
  column: number;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const LITERALS = ["true", "false", "null"];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Fail {
  constructor(readonly at: number) {}
}

/** The offset of the first syntax error, or -1 for valid JSON. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const skip = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i += 1;
  };
  const string = () => {
    i += 1;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i += 1;
        return;
      }
      if (c < 0x20) throw new Fail(i);
      i += c === 0x5c ? 2 : 1;
    }
    throw new Fail(i);
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new Fail(i);
    skip();
    const c = text[i];
    if (c === "{" || c === "[") {
      container(c === "{", depth);
      return;
    }
    if (c === '"') {
      string();
      return;
    }
    for (const word of LITERALS) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    throw new Fail(i);
  };
  const container = (object: boolean, depth: number): void => {
    const close = object ? "}" : "]";
    i += 1;
    skip();
    if (text[i] === close) {
      i += 1;
      return;
    }
    for (;;) {
      if (object) {
        skip();
        if (text[i] !== '"') throw new Fail(i);
        string();
        skip();
        if (text[i] !== ":") throw new Fail(i);
        i += 1;
      }
      value(depth + 1);
      skip();
      if (text[i] === ",") {
        i += 1;
        continue;
      }
      if (text[i] === close) {
        i += 1;
        return;
      }
      throw new Fail(i);
    }
  };
  try {
    value(0);
    skip();
    return i < text.length ? i : -1;
  } catch (error) {
    if (error instanceof Fail) return error.at;
    throw error;
  }
}

export function positionOf(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < offset && k < text.length; k += 1) {
    if (text.charCodeAt(k) === 0x0a) {
      line += 1;
      lineStart = k + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
