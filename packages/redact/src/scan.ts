// The scan of one string: the master regex (./anchors.ts) finds where a rule may start, its handlers
// push spans, and the whole-text passes (Kubernetes Secrets, .netrc) add theirs; overlapping spans merge.
import { BRANCHES, type Branch, MASTER } from "./anchors.ts";
import { authAt, hereStrings, loginTokens } from "./cli-secrets.ts";
import { netrcEntries } from "./command-line.ts";
import { cookieJars, cookieMappings, mayHoldCookieJar, mayHoldCookieMapping } from "./cookies.ts";
import { passwordDirectives } from "./directives.ts";
import { ldapHashes, passwordHashes } from "./hashes.ts";
import { ARMOUR_FORMS } from "./key-tails.ts";
import { k8sSecretSpans } from "./kubernetes.ts";
import {
  mayHoldRedisDirective,
  oracleTools,
  PREFIX_FORMS,
  pipedSecrets,
  redisDirectives,
} from "./positional.ts";
import { proseSecrets } from "./prose.ts";
import { BY_PREFIX } from "./provider-rules.ts";
import type { Span } from "./rule.ts";
import { cmdCache, scanState } from "./scan-state.ts";
import { matched, separatorMatch } from "./separators.ts";
import { prefixed } from "./split.ts";
import { sqlPasswords } from "./sql.ts";
import { boxTables } from "./tables.ts";

const SCRATCH: Span[] = [];
// One pass finds any of Oracle's login tools (two alternatives cost about one indexOf each), only in a
// text with an `@` (a single-character indexOf runs at memchr speed).
const ORACLE_GATE = /sqlplus|[ei][xm]pdp/;

/** Hands the match at `at` to its branch's handler; where the scan resumes. */
function handleMatch(
  text: string,
  at: number,
  branch: Branch,
  cap: string,
  withKeys: boolean,
  spans: Span[],
): number {
  if (branch.handle === "prefix" || branch.handle === "at") {
    const start = branch.handle === "prefix" ? at - cap.length : at;
    // Airtable's `pat<14 chars>.<64 hex>` is the one prefix that is not a fixed string.
    const rules = BY_PREFIX.get(text[at] + cap) ?? BY_PREFIX.get(text[at] + cap.slice(0, 3));
    const key = text[at] + cap;
    const form =
      rules === undefined && withKeys ? (PREFIX_FORMS.get(key) ?? ARMOUR_FORMS.get(key)) : undefined;
    return form !== undefined
      ? Math.max(form(text, at, spans), at + 1)
      : prefixed(rules, text, start, spans, at + 1);
  }
  if (branch.keyed === true && (!withKeys || at < scanState.keyedEnd)) return at + 1;
  return branch.handle(text, at, cap, spans);
}

export function scan(text: string, withKeys: boolean): Span[] | null {
  const re = MASTER;
  const spans = SCRATCH;
  spans.length = 0;
  re.lastIndex = 0;
  scanState.keyedEnd = 0;
  scanState.printedLine = -1;
  scanState.printedEnd = 0;
  scanState.outputField = -1;
  scanState.grepLine = false;
  cmdCache.re = null;
  // The master regex's matches and the separators (`:` and `=`, found with indexOf and tried by
  // ./separators.ts), taken in text order as one regex over both would give them; a handler's resume
  // point applies to both.
  let m = re.exec(text);
  let colon = text.indexOf(":");
  let equals = text.indexOf("=");
  for (;;) {
    const separator = colon < 0 || (equals >= 0 && equals < colon) ? equals : colon;
    let at: number;
    let next: number;
    if (separator >= 0 && (m === null || separator < m.index)) {
      at = separator;
      if (!separatorMatch(text, at)) {
        if (at === colon) colon = text.indexOf(":", at + 1);
        else equals = text.indexOf("=", at + 1);
        continue;
      }
      next = handleMatch(text, at, matched.branch, matched.cap, withKeys, spans);
    } else if (m !== null) {
      at = m.index;
      // The master regex's branches have one capturing group each: the first that took part is the branch.
      let g = 1;
      while (m[g] === undefined) g++;
      next = handleMatch(text, at, BRANCHES[g - 1] as Branch, m[g] as string, withKeys, spans);
    } else {
      break;
    }
    const resume = next > at ? next : at + 1;
    if (m !== null && m.index < resume) {
      re.lastIndex = resume;
      m = re.exec(text);
    }
    if (colon >= 0 && colon < resume) colon = text.indexOf(":", resume);
    if (equals >= 0 && equals < resume) equals = text.indexOf("=", resume);
  }
  if (withKeys) wholeTextPasses(text, spans);
  return spans.length > 0 ? spans.slice() : null;
}

/**
 * The rules that read a whole text for their words. Each gate is one indexOf, a full pass over the text,
 * so a gate's needle starts with a character rare in agent traffic (a letter-led word costs 0.2-0.5 ms
 * a MB, a `$` or a tab 0.04), and a word two rules need is looked for once.
 */
function wholeTextPasses(text: string, spans: Span[]): void {
  // One indexOf (several GB/s) keeps the Secret parser off every other text.
  if (text.includes("Secret")) k8sSecretSpans(text, spans);
  // A .netrc entry starts a line with a word too common to anchor the master regex on
  // (a newline anchor costs a quarter of the throughput); one indexOf gates the search:
  // "login" is in nearly every entry and skips faster than "machine" (0.2 vs 0.6 ms/MB).
  const login = text.includes("login");
  if (login) netrcEntries(text, spans);
  const auth = authAt(text, -1);
  if (text.includes("|")) pipedSecrets(text, spans);
  if (text.includes("<<<")) hereStrings(text, spans);
  loginTokens(text, login, auth, spans);
  if (mayHoldRedisDirective(text, auth >= 0)) redisDirectives(text, spans);
  if (text.includes("@") && ORACLE_GATE.test(text)) oracleTools(text, spans);
  sqlPasswords(text, spans);
  // A `$` at memchr speed; the hashes' own shapes are checked only after one.
  if (text.includes("$")) passwordHashes(text, spans);
  ldapHashes(text, spans);
  proseSecrets(text, spans);
  // Its own search for "password" is the gate.
  passwordDirectives(text, spans);
  // A jar's fields stand between tabs, real or escaped (a tab and a backslash are found at memchr speed).
  if ((text.includes("\t") || text.includes("\\t")) && mayHoldCookieJar(text)) cookieJars(text, spans);
  if (mayHoldCookieMapping(text)) cookieMappings(text, spans);
  boxTables(text, spans);
}

/** Sorted, non-overlapping regions: overlapping spans merge, since redacting their union can only hide more. */
export function mergeSpans(spans: Span[]): Span[] {
  if (spans.length > 1) spans.sort((a, b) => a.s - b.s || b.e - a.e);
  const out: Span[] = [];
  let pos = 0;
  let i = 0;
  while (i < spans.length) {
    const first = spans[i] as Span;
    let { s, e, kind, p } = first;
    i++;
    while (i < spans.length && (spans[i] as Span).s < e) {
      const next = spans[i] as Span;
      if (next.e > e) e = next.e;
      if (next.p > p) {
        p = next.p;
        kind = next.kind;
      }
      i++;
    }
    if (s < pos) s = pos;
    if (e <= s) continue;
    out.push({ s, e, kind, p });
    pos = e;
  }
  return out;
}

export function applySpans(text: string, spans: Span[], kinds: string[]): string {
  let out = "";
  let pos = 0;
  for (const r of mergeSpans(spans)) {
    out += text.slice(pos, r.s) + `[REDACTED:${r.kind}]`;
    kinds.push(r.kind);
    pos = r.e;
  }
  return out + text.slice(pos);
}
