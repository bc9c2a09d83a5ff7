// A secret said in a sentence: "the admin password is Xk9...", "my token is `...`", "here is the token for
// staging: ...". Not entropy over prose: only the word right after " is " that follows a secret's name,
// or right after a colon that ends a short clause naming one, and only when it looks generated (a
// sentence goes on with words). " is " is walked with indexOf (one substring search); the colon is one of
// the master regex's anchors.
import { hasDigit } from "./chars.ts";
import { isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { looksGenerated } from "./split.ts";

const NOUN =
  /\b(?:password|passphrase|passcode|passwd|token|secret|api[ -]?key|access key|secret key|private key)$/i;
const VALUE = /^[`'"]?([^\s`'",;()<>]{8,256})[`'"]?(?=[\s,;.!?)]|$)/;

export function proseSecrets(text: string, spans: Span[]): void {
  for (let i = text.indexOf(" is "); i >= 0; i = text.indexOf(" is ", i + 4)) {
    // Every noun ends in d, e, n, t or y: one character test before the regex.
    const c = text.charCodeAt(i - 1) | 32;
    if (
      (c !== 100 && c !== 101 && c !== 110 && c !== 116 && c !== 121) ||
      !NOUN.test(text.slice(Math.max(0, i - 20), i))
    )
      continue;
    const m = VALUE.exec(text.slice(i + 4, i + 4 + 260));
    if (m === null) continue;
    let v = m[1] as string;
    // A sentence's full stop is not part of the value.
    v = v.replace(/[.!?]+$/, "");
    if (!looksGenerated(v) || !hasDigit(v) || v.includes("://") || isPlaceholder(v)) continue;
    const s = i + 4 + m[0].indexOf(v);
    spans.push({ s, e: s + v.length, kind: "password", p: 1 });
  }
}

const CLAUSE_NOUN = /\b(?:password|passphrase|passcode|token|secret|api[ -]?key|access key|credentials?)\b/i;

/** The `:` after a clause that names a secret (`the token for the staging API:`); `cap` is the value. */
export function colonLabel(text: string, m: RegExpExecArray, cap: string, spans: Span[]): number {
  const at = m.index;
  let ls = at;
  const min = Math.max(0, at - 80);
  while (ls > min && !/[\n.!?;:"{}[\]]/.test(text[ls - 1] as string)) ls--;
  if (!CLAUSE_NOUN.test(text.slice(ls, at))) return at + 1;
  const s = at + 1 + cap.search(/[^ \t`'"]/);
  const v = text.slice(s, s + cap.trim().replace(/^[`'"]|[`'"]$/g, "").length);
  if (!looksGenerated(v) || !hasDigit(v) || v.includes("://") || isPlaceholder(v)) return at + 1;
  spans.push({ s, e: s + v.length, kind: "secret", p: 1 });
  return s + v.length;
}
