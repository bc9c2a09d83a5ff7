// A word list written as a readable pattern (`[Pp]ass(?:word|wd)?s?`), expanded once at load into its words
// and indexed by their endings, to ask in a few reads which of them ends at a position of a text: what a
// lookbehind over the list asks, without a regex call (./separators.ts).

/** Every string a finite pattern matches: literals, `\x` escapes, `[...]` sets (no ranges), `(?:a|b)` and `?`. */
export function wordsOf(pattern: string): string[] {
  let i = 0;
  const alternation = (): string[] => {
    let out = sequence();
    while (pattern[i] === "|") {
      i++;
      out = out.concat(sequence());
    }
    return out;
  };
  const sequence = (): string[] => {
    let acc = [""];
    while (i < pattern.length && pattern[i] !== "|" && pattern[i] !== ")") {
      let atom: string[];
      if (pattern.startsWith("(?:", i)) {
        i += 3;
        atom = alternation();
        if (pattern[i] !== ")") throw new Error(`unclosed group at ${i}`);
        i++;
      } else if (pattern[i] === "[") {
        const close = pattern.indexOf("]", i);
        atom = [...pattern.slice(i + 1, close)];
        if (atom.includes("-") || atom.includes("^")) throw new Error(`not a plain set at ${i}`);
        i = close + 1;
      } else if (pattern[i] === "\\") {
        atom = [pattern[i + 1] as string];
        i += 2;
      } else if ("(*+{}.".includes(pattern[i] as string)) {
        throw new Error(`not a finite pattern at ${i}`);
      } else {
        atom = [pattern[i] as string];
        i++;
      }
      if (pattern[i] === "?") {
        i++;
        atom = ["", ...atom];
      }
      acc = acc.flatMap((a) => atom.map((b) => a + b));
    }
    return acc;
  };
  const words = alternation();
  if (i !== pattern.length) throw new Error(`unexpected ${pattern[i]} at ${i}`);
  return [...new Set(words)];
}

/**
 * Words indexed by their last character first, to ask which of them ends at a position of a text: a trie
 * read backwards, flat in typed arrays over the words' own alphabet (a Map per node cost a quarter of the
 * separators' time: it is asked at most separators of a text whose key ends in a likely letter; rows of
 * 128 took a millisecond to build, on the hook's path, where these take a tenth).
 */
export interface EndingIndex {
  /** A character's column (1 + its index in the words' alphabet), 0 for one no word has; ASCII only. */
  column: Uint8Array;
  width: number;
  /** The child of node n by column k at n * width + k; 0 for none (the root is no one's child). */
  child: Uint16Array;
  /** Whether a word ends (begins, read forwards) at node n. */
  end: Uint8Array;
}

export function endingIndex(words: readonly string[]): EndingIndex {
  const column = new Uint8Array(128);
  let width = 1;
  // At most one node a character of the words, and the root.
  let capacity = 1;
  for (const w of words) {
    capacity += w.length;
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      if (c >= 128) throw new Error(`not an ASCII word: ${w}`);
      if (column[c] === 0) column[c] = width++;
    }
  }
  if (capacity > 65535) throw new Error("too many words for the index");
  const child = new Uint16Array(capacity * width);
  const end = new Uint8Array(capacity);
  let nodes = 1;
  for (const w of words) {
    let node = 0;
    for (let i = w.length - 1; i >= 0; i--) {
      const slot = node * width + (column[w.charCodeAt(i)] as number);
      let next = child[slot] as number;
      if (next === 0) {
        next = nodes++;
        child[slot] = next;
      }
      node = next;
    }
    end[node] = 1;
  }
  return { column, width, child, end };
}

/** Whether one of the indexed words ends right before `end` in `text`. */
export function endsWithOneOf(index: EndingIndex, text: string, end: number): boolean {
  const { column, width, child, end: ends } = index;
  let node = 0;
  for (let i = end - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    const k = c < 128 ? (column[c] as number) : 0;
    if (k === 0) return false;
    node = child[node * width + k] as number;
    if (node === 0) return false;
    if (ends[node] === 1) return true;
  }
  return false;
}
