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

/** Words indexed by their last character first, to ask which of them ends at a position of a text. */
export interface EndingIndex {
  end: boolean;
  next: Map<number, EndingIndex>;
}

export function endingIndex(words: readonly string[]): EndingIndex {
  const root: EndingIndex = { end: false, next: new Map() };
  for (const w of words) {
    let node = root;
    for (let i = w.length - 1; i >= 0; i--) {
      const c = w.charCodeAt(i);
      let child = node.next.get(c);
      if (child === undefined) {
        child = { end: false, next: new Map() };
        node.next.set(c, child);
      }
      node = child;
    }
    node.end = true;
  }
  return root;
}

/** Whether one of the indexed words ends right before `end` in `text`. */
export function endsWithOneOf(index: EndingIndex, text: string, end: number): boolean {
  let node: EndingIndex | undefined = index;
  for (let i = end - 1; i >= 0; i--) {
    node = node.next.get(text.charCodeAt(i));
    if (node === undefined) return false;
    if (node.end) return true;
  }
  return false;
}
