// A secret said in a sentence: "the admin password is Xk9...", "my token is `...`", "here is the token for
// staging: ...". Not entropy over prose: only the word right after " is " that follows a secret's name,
// or right after a colon that ends a short clause naming one, and only when it looks generated (a
// sentence goes on with words). The colon is one of the scan's anchors.
import { hasDigit } from "./chars.ts";
import { isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { looksGenerated } from "./split.ts";

const NOUN =
  /\b(?:password|passphrase|passcode|passwd|token|secret|api[ -]?key|access key|secret key|private key)$/i;
const VALUE = /^[`'"]?([^\s`'",;()<>]{8,256})[`'"]?(?=[\s,;.!?)]|$)/;

// Every noun ends in d, e, n, t or y: a regex finds " is " after one of them (its fixed tail lets it skip
// ahead), 0.45 ms a MB against 0.56 for indexOf(" is ") and a test of each.
const NOUN_IS = /[DENTYdenty] is /g;

export function proseSecrets(text: string, spans: Span[]): void {
  NOUN_IS.lastIndex = 0;
  for (let m = NOUN_IS.exec(text); m !== null; m = NOUN_IS.exec(text)) {
    const i = m.index + 1;
    if (!NOUN.test(text.slice(Math.max(0, i - 20), i))) continue;
    const vm = VALUE.exec(text.slice(i + 4, i + 4 + 260));
    if (vm === null) continue;
    let v = vm[1] as string;
    // A sentence's full stop is not part of the value.
    v = v.replace(/[.!?]+$/, "");
    if (!looksGenerated(v) || !hasDigit(v) || v.includes("://") || isPlaceholder(v)) continue;
    const s = i + 4 + vm[0].indexOf(v);
    spans.push({ s, e: s + v.length, kind: "password", p: 1 });
  }
}

const CLAUSE_NOUN = /\b(?:password|passphrase|passcode|token|secret|api[ -]?key|access key|credentials?)\b/i;

/** The `:` after a clause that names a secret (`the token for the staging API:`); `cap` is the value. */
export function colonLabel(text: string, at: number, cap: string, spans: Span[]): number {
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
