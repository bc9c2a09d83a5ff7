// Where each value of a valid JSON text starts, by its path (`limits.max_turns`, `expected_facts[1].pattern`),
// so an error in a hand-edited scenario names the line to fix. Runs only on text JSON.parse accepted.

const WS = /[ \t\r\n]*/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;
const SCALAR = /-?[0-9][0-9.eE+-]*|true|false|null/y;

export function pathKey(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}

/** path → offset of the value (the whole file is ""). Deep files are cut at 64 levels: positions are a help. */
export function valueOffsets(text: string): Map<string, number> {
  const out = new Map<string, number>();
  let i = 0;
  const skip = () => {
    WS.lastIndex = i;
    WS.exec(text);
    i = WS.lastIndex;
  };
  const token = (re: RegExp): string => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new Error("unexpected");
    i = re.lastIndex;
    return m[0];
  };
  const value = (path: PropertyKey[], depth: number): void => {
    skip();
    if (depth < 64) out.set(pathKey(path), i);
    const c = text[i];
    if (c === "{") {
      i += 1;
      skip();
      while (text[i] !== "}") {
        const key = JSON.parse(token(STRING)) as string;
        skip();
        i += 1; // ':'
        value([...path, key], depth + 1);
        skip();
        if (text[i] === ",") i += 1;
        skip();
      }
      i += 1;
    } else if (c === "[") {
      i += 1;
      skip();
      let n = 0;
      while (text[i] !== "]") {
        value([...path, n], depth + 1);
        n += 1;
        skip();
        if (text[i] === ",") i += 1;
        skip();
      }
      i += 1;
    } else if (c === '"') token(STRING);
    else token(SCALAR);
  };
  try {
    value([], 0);
  } catch {
    // a position is a help, not a requirement
  }
  return out;
}

/** The line of the deepest known part of `path`. */
export function lineOf(text: string, offsets: Map<string, number>, path: ReadonlyArray<PropertyKey>): number {
  for (let n = path.length; n >= 0; n -= 1) {
    const at = offsets.get(pathKey(path.slice(0, n)));
    if (at !== undefined) {
      let line = 1;
      for (let k = 0; k < at; k += 1) if (text.charCodeAt(k) === 0x0a) line += 1;
      return line;
    }
  }
  return 1;
}
