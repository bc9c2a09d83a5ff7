// A small TOML reader: enough to find `[table]` headers and `key = value` pairs whose values are strings or
// booleans, in the files Codex writes. Everything else is skipped without being interpreted. Multi-line strings
// and arrays are skipped as a whole, so text inside them is never taken for a header.

export type TomlScalar = string | boolean | number;
/** An array's value is not read; that the key is set is. */
export const TOML_ARRAY: { readonly opaque: "array" } = Object.freeze({ opaque: "array" });
export type TomlValue = TomlScalar | typeof TOML_ARRAY;
/** Table key (see tableKey) -> key -> value. Dotted keys and inline tables are flattened into their tables. */
export type TomlTables = Map<string, Map<string, TomlValue>>;

export function tableKey(path: readonly string[]): string {
  return JSON.stringify(path);
}

class TomlCursor {
  pos = 0;
  constructor(readonly text: string) {}
  peek(): string {
    return this.text[this.pos] ?? "";
  }
  eof(): boolean {
    return this.pos >= this.text.length;
  }
  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos += 1;
  }
  skipToLineEnd(): void {
    while (!this.eof() && this.peek() !== "\n") this.pos += 1;
  }
  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }
}

function parseKey(c: TomlCursor): string[] | undefined {
  const parts: string[] = [];
  for (;;) {
    c.skipSpaces();
    let part: string | undefined;
    if (c.peek() === '"') part = parseBasicString(c);
    else if (c.peek() === "'") part = parseLiteralString(c);
    else {
      const m = /^[A-Za-z0-9_-]+/.exec(c.text.slice(c.pos, c.pos + 4096));
      if (m) {
        part = m[0];
        c.pos += m[0].length;
      }
    }
    if (part === undefined) return undefined;
    parts.push(part);
    c.skipSpaces();
    if (c.peek() !== ".") return parts;
    c.pos += 1;
  }
}

function parseBasicString(c: TomlCursor): string | undefined {
  if (c.startsWith('"""')) return undefined;
  c.pos += 1;
  let out = "";
  while (!c.eof()) {
    const ch = c.peek();
    if (ch === '"') {
      c.pos += 1;
      return out;
    }
    if (ch === "\n") return undefined;
    if (ch === "\\") {
      const esc = c.text[c.pos + 1] ?? "";
      const simple: Record<string, string> = {
        b: "\b",
        t: "\t",
        n: "\n",
        f: "\f",
        r: "\r",
        '"': '"',
        "\\": "\\",
      };
      if (esc in simple) {
        out += simple[esc];
        c.pos += 2;
        continue;
      }
      if (esc === "u" || esc === "U") {
        const len = esc === "u" ? 4 : 8;
        const hex = c.text.slice(c.pos + 2, c.pos + 2 + len);
        const code = Number.parseInt(hex, 16);
        if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len || code > 0x10ffff) return undefined;
        out += String.fromCodePoint(code);
        c.pos += 2 + len;
        continue;
      }
      return undefined;
    }
    out += ch;
    c.pos += 1;
  }
  return undefined;
}

function parseLiteralString(c: TomlCursor): string | undefined {
  if (c.startsWith("'''")) return undefined;
  const end = c.text.indexOf("'", c.pos + 1);
  const nl = c.text.indexOf("\n", c.pos + 1);
  if (end < 0 || (nl >= 0 && nl < end)) return undefined;
  const out = c.text.slice(c.pos + 1, end);
  c.pos = end + 1;
  return out;
}

/** Skips any value (multi-line strings and nested arrays included); answers the scalar when it is one. */
function parseValue(c: TomlCursor, table: string[], tables: TomlTables, key: string[]): void {
  c.skipSpaces();
  const set = (value: TomlValue) => {
    const path = [...table, ...key.slice(0, -1)];
    const t = tables.get(tableKey(path)) ?? new Map<string, TomlValue>();
    t.set(key.at(-1)!, value);
    tables.set(tableKey(path), t);
  };
  for (const quote of ['"""', "'''"]) {
    if (c.startsWith(quote)) {
      const end = c.text.indexOf(quote, c.pos + 3);
      c.pos = end < 0 ? c.text.length : end + 3;
      while (c.peek() === quote[0]) c.pos += 1;
      return;
    }
  }
  if (c.peek() === '"' || c.peek() === "'") {
    const s = c.peek() === '"' ? parseBasicString(c) : parseLiteralString(c);
    if (s !== undefined) set(s);
    return;
  }
  if (c.peek() === "{") {
    c.pos += 1;
    for (;;) {
      c.skipSpaces();
      if (c.peek() === "}") {
        c.pos += 1;
        return;
      }
      const inner = parseKey(c);
      c.skipSpaces();
      if (!inner || c.peek() !== "=") return;
      c.pos += 1;
      parseValue(c, table, tables, [...key, ...inner]);
      c.skipSpaces();
      if (c.peek() === ",") c.pos += 1;
      else if (c.peek() !== "}") return;
    }
  }
  if (c.peek() === "[") {
    // An array: skipped, strings inside it included, however many lines it spans.
    set(TOML_ARRAY);
    let depth = 0;
    while (!c.eof()) {
      const ch = c.peek();
      if (ch === "[") depth += 1;
      else if (ch === "]") {
        depth -= 1;
        if (depth === 0) {
          c.pos += 1;
          return;
        }
      } else if (ch === "#") {
        c.skipToLineEnd();
        continue;
      } else if (ch === '"' || ch === "'") {
        const tripled = c.startsWith(ch.repeat(3));
        if (tripled) {
          const end = c.text.indexOf(ch.repeat(3), c.pos + 3);
          c.pos = end < 0 ? c.text.length : end + 3;
          continue;
        }
        if ((ch === '"' ? parseBasicString(c) : parseLiteralString(c)) === undefined) c.skipToLineEnd();
        continue;
      }
      c.pos += 1;
    }
    return;
  }
  const m = /^(true|false|[+-]?[0-9][0-9_]*)(?=[\s,}#]|$)/.exec(c.text.slice(c.pos, c.pos + 64));
  if (m) {
    c.pos += m[0].length;
    set(m[1] === "true" ? true : m[1] === "false" ? false : Number(m[1]!.replace(/_/g, "")));
  }
}

export function parseTomlTables(text: string): TomlTables {
  const tables: TomlTables = new Map();
  const c = new TomlCursor(text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n"));
  let table: string[] = [];
  while (!c.eof()) {
    c.skipSpaces();
    const ch = c.peek();
    if (ch === "\n") {
      c.pos += 1;
      continue;
    }
    if (ch === "#") {
      c.skipToLineEnd();
      continue;
    }
    if (ch === "[") {
      const array = c.startsWith("[[");
      c.pos += array ? 2 : 1;
      const path = parseKey(c);
      c.skipSpaces();
      // Array-of-tables entries are not addressable by key here: their pairs go to an unreachable table.
      table = path && !array ? path : ["\u0000unreachable"];
      c.skipToLineEnd();
      continue;
    }
    const key = parseKey(c);
    c.skipSpaces();
    if (!key || c.peek() !== "=") {
      c.skipToLineEnd();
      continue;
    }
    c.pos += 1;
    parseValue(c, table, tables, key);
    c.skipToLineEnd();
  }
  return tables;
}
