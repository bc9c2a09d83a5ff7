// A .env line gives its value away by its shape, whatever the variable is called: `UPSTREAM=...`,
// `STRIPE=...`. A line that starts with an UPPER_SNAKE name and `=` is a dotenv (or shell) assignment,
// and a value with the entropy of key material there is a secret. Only there: the same run in prose,
// a hash or an id stays (this is the one place entropy alone decides, and the structure comes first).
import { hasDigit, isBlank, isQuote } from "./chars.ts";
import { isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { scanState } from "./scan-state.ts";

// Names whose values are data that looks generated: digests, revisions, ids, public material.
const DATA_NAME =
  /(?:SHA|HASH|DIGEST|CHECKSUM|COMMIT|REVISION|REV|VERSION|INTEGRITY|ETAG|UUID|GUID|(?:^|_)IDS?|NONCE|PUBLIC|PUB|CERT|CERTIFICATE|FINGERPRINT|THUMBPRINT|REGION|ZONE|ARN|URL|URI|HOST|PATH|DIR|FILE|IMAGE|TAG|BRANCH|REF|NAME|USER|USERNAME|EMAIL|LOCALE|TZ|LANG|MODE|LEVEL|ENV|PORT|DATE|TIME)$/;
const NOT_KEY_MATERIAL =
  /^\d{4}-\d{2}-\d{2}|^v?\d+(?:\.\d+)+|^[0-9a-f]+$|^[0-9A-F]+$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-|^(?:sha\d*|md5|h1)[-:]|:\/\/|^[/~.]/;

/** Whether `v` has the mix of generated key material: long, upper and lower case and digits. */
export function keyMaterial(v: string): boolean {
  return v.length >= 20 && /[a-z]/.test(v) && /[A-Z]/.test(v) && hasDigit(v) && !NOT_KEY_MATERIAL.test(v);
}

// Keys in one case: Mailgun's and Pusher's hex secrets, a 40-character lowercase HMAC key. Under a name
// that is no digest's (DATA_NAME), hex of 32 and more is a key; so is a lowercase run of letters and
// digits, 24 and more, that mixes both as a generator does.
const HEX_KEY = /^(?:[0-9a-f]{32,512}|[0-9A-F]{32,512})$/;
const LOWER_KEY = /^[a-z0-9]{24,512}$/;

function oneCaseKey(v: string): boolean {
  if (HEX_KEY.test(v)) return true;
  if (!LOWER_KEY.test(v)) return false;
  const digits = v.replace(/[^0-9]/g, "").length;
  return digits >= 4 && v.length - digits >= 8;
}

/** The `=` of a line-start `NAME=value` whose name the key rules do not know (./anchors.ts). */
export function dotenvValue(text: string, eq: number, cap: string, spans: Span[]): number {
  const name = cap.slice(cap.lastIndexOf(" ") + 1).trim();
  if (DATA_NAME.test(name)) return eq + 1;
  let vs = eq + 1;
  let quote = -1;
  if (isQuote(text.charCodeAt(vs))) quote = text.charCodeAt(vs++);
  let ve = vs;
  const limit = Math.min(text.length, vs + 1024);
  while (ve < limit) {
    const c = text.charCodeAt(ve);
    if (
      c === quote ||
      c === 10 ||
      c === 13 ||
      c === 92 ||
      (quote < 0 && (isBlank(c) || c === 35 || c === 59))
    )
      break;
    ve++;
  }
  const v = text.slice(vs, ve);
  if (!(keyMaterial(v) || oneCaseKey(v)) || /[\s,]/.test(v) || isPlaceholder(v)) return eq + 1;
  spans.push({ s: vs, e: ve, kind: "secret", p: 1 });
  scanState.keyedEnd = ve;
  return vs;
}
