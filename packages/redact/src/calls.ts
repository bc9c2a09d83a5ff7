// A call whose first two arguments are a secret's name and its value, or a user and a password:
// PHP's `define('DB_PASSWORD', '...')`, `os.Setenv("API_KEY", "...")`, `System.setProperty("db.password",
// ...)`, `headers.put("X-Api-Key", ...)`, `HTTPBasicAuth("user", "...")`, requests' `auth=("user", "...")`,
// `new NetworkCredential(...)`, `algoliasearch(APP_ID, "...")`, Twilio's `Client("AC...", "...")`.
// Found at the `,` between the two quoted arguments (./anchors.ts); the handler reads the callee before
// the `(` and the second argument after the comma, both bounded.
import { charTable, escapedLetterAt, hasDigit, isBlank, isQuote } from "./chars.ts";
import { keyKind } from "./keys.ts";
import { isPasswordPlaceholder, isPlaceholder, placeholderFor } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { looksGenerated } from "./split.ts";

const MAX_ARG = 512;
const CALLEE_CHAR = charTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$:>-");
// Callees whose second argument is a password whatever the first is: credentials' constructors and the
// login calls of clients (`conn.login(user, password)` of jsforce, smtplib, imaplib, ftplib, `signIn`).
const CREDENTIALS =
  /(?:^|[.:>])(?:HTTP(?:Basic|Digest)Auth|BasicAuth|NetworkCredential|SetBasicAuth|setBasicAuth|basicAuth|UsernamePasswordCredentials|PasswordAuthentication|PlainCredentials|UsernamePasswordToken|(?:Basic)?AWSCredentials|(?:New)?StaticCredentials(?:Provider)?|Credentials|[Ll]og[Ii]n|login_user|loginWithPassword|[Ss]ign[Ii]n(?:WithPassword)?|sign_in|[Aa]uthenticate|simple_bind_s?|oci_p?connect)$/;
// Connections that take a host (or DSN), a user and a password: the password is the third argument.
const HOST_USER_PASSWORD =
  /(?:^|[.:>\s])(?:mysqli?_p?connect|mysqli|mssql_p?connect|sqlsrv_connect|ftp_login|PDO|ldap_bind|ssh2_auth_password|imap_open)$/;
// `auth=("user", "...")`, `auth: ("user", "...")`: a tuple under an `auth` keyword.
const AUTH_TUPLE = /\bauth[ \t]*[=:][ \t]*$/;
// Search and messaging SDKs that take an application id, then its key.
const ID_THEN_KEY = /(?:^|[.:>])(?:algoliasearch|SearchClient\.create|[Tt]wilio|Client)$/;
// A name that only suggests a secret (`AUTH_SALT`, `NONCE_KEY`, `X-Insert-Key`): believed for generated values.
const WEAK_NAME = /(?:^|[_.-])(?:key|salt|KEY|SALT|Key|Salt)$/;

function callee(text: string, paren: number): string {
  // Twilio's module required and called at once, with the sid and the token: the module is the callee.
  if (text.charCodeAt(paren - 1) === 41) {
    const mod = /\brequire\([ \t]*["']([A-Za-z0-9@/_.-]{1,64})["'][ \t]*\)$/.exec(
      text.slice(Math.max(0, paren - 80), paren),
    );
    if (mod !== null) return (mod[1] as string).replace(/^.*\//, "");
  }
  let s = paren;
  while (
    s > 0 &&
    paren - s < 80 &&
    text.charCodeAt(s - 1) < 128 &&
    CALLEE_CHAR[text.charCodeAt(s - 1)] === 1
  ) {
    // In JSON-escaped text a line's `\n` comes right before the callee: its `n` is no part of the name.
    if (escapedLetterAt(text, s - 1)) break;
    s--;
  }
  const name = text.slice(s, paren);
  // `new Foo(`, `Foo::bar(`, `$obj->baz(`: the identifier is what counts.
  return name.replace(/->/g, ".");
}

/** The second argument: the quoted string right after the comma at `comma`, or null. */
function secondArg(text: string, comma: number): [number, number] | null {
  let p = comma + 1;
  while (p < text.length && isBlank(text.charCodeAt(p))) p++;
  let bs = p;
  while (text.charCodeAt(bs) === 92 && bs - p < 8) bs++;
  const q = text.charCodeAt(bs);
  if (!isQuote(q)) return null;
  const open = text.slice(p, bs + 1);
  // Searched in a bounded window: a text of a thousand `("a", "` stays linear.
  const rel = text
    .slice(bs + 1, bs + 1 + MAX_ARG + open.length)
    .indexOf(open.length > 1 ? open : (text[bs] as string));
  if (rel < 0) return null;
  const close = bs + 1 + rel;
  const vs = bs + 1;
  if (text.slice(vs, close).includes("\n")) return null;
  // The call goes on with `)` or another argument that is not a string (`setenv(N, V, 1)`); a third
  // string makes it a list (`["password", "token", "secret"]`).
  let r = close + open.length;
  while (r < text.length && isBlank(text.charCodeAt(r))) r++;
  const after = text.charCodeAt(r);
  if (after === 44) {
    let r2 = r + 1;
    while (r2 < text.length && isBlank(text.charCodeAt(r2))) r2++;
    if (isQuote(text.charCodeAt(r2)) || text.charCodeAt(r2) === 92) return null;
  } else if (after !== 41 && after !== 125 && after !== 93) return null;
  // `close` is where the closing quote's backslashes start: the value ends there.
  return [vs, close];
}

/** `at` is the comma; `name` the first argument's text and `paren` where its `(` is. */
export function callPair(text: string, at: number, name: string, paren: number, spans: Span[]): number {
  const range = secondArg(text, at);
  if (range === null) return at + 1;
  const [vs, ve] = range;
  const v = text.slice(vs, ve);
  if (v.length === 0 || v.startsWith("-")) return at + 1;
  const fn = callee(text, paren);
  let kind: string | null = null;
  // A password named by the call, or by a constant PHP defines, is one whatever it looks like.
  let strict = false;
  if (CREDENTIALS.test(fn) || (fn === "" && AUTH_TUPLE.test(text.slice(Math.max(0, paren - 20), paren)))) {
    kind = "password";
    strict = true;
  } else if (ID_THEN_KEY.test(fn)) {
    const twilio = /^AC[0-9a-f]{32}$/.test(name);
    if ((twilio || /^[A-Z0-9]{10}$/.test(name)) && looksGenerated(v))
      kind = twilio ? "twilio_auth_token" : "api_key";
  } else {
    const named = keyKind(name.replace(/^.*[:/]/, ""));
    const generated = v.length >= 6 && looksGenerated(v) && !/\s/.test(v);
    // A salt or key of wp-config may hold spaces; a few, between generated-looking characters.
    const salt = fn === "define" && v.length >= 32 && (v.match(/ /g)?.length ?? 0) <= 3 && hasDigit(v);
    strict = fn === "define" && named === "password";
    if (named !== null && (generated || salt || strict)) kind = named;
    else if (named === null && WEAK_NAME.test(name) && ((generated && v.length >= 16) || salt))
      kind = "secret_key";
  }
  if (kind === null || (strict ? placeholderFor(kind, v) : isPlaceholder(v))) return at + 1;
  spans.push({ s: vs, e: ve, kind, p: 1 });
  return ve;
}

/** The quoted arguments of the call whose `(` is at `paren`, up to `max`, as [start, end) of their insides. */
function quotedArgs(text: string, paren: number, max: number): Array<[number, number] | null> {
  const out: Array<[number, number] | null> = [];
  let p = paren + 1;
  const limit = Math.min(text.length, paren + MAX_ARG);
  while (p < limit && out.length < max) {
    while (p < limit && isBlank(text.charCodeAt(p))) p++;
    const q = text.charCodeAt(p);
    if (isQuote(q)) {
      const close = text.indexOf(text[p] as string, p + 1);
      if (close < 0 || close > limit || text.slice(p + 1, close).includes("\n")) return out;
      out.push([p + 1, close]);
      p = close + 1;
    } else {
      // A variable or expression: its extent is all that matters, up to the next comma.
      while (p < limit && !/[,()"'\n]/.test(text[p] as string)) p++;
      if (text.charCodeAt(p) === 40) return out;
      out.push(null);
    }
    while (p < limit && isBlank(text.charCodeAt(p))) p++;
    if (text.charCodeAt(p) !== 44) return out;
    p++;
  }
  return out;
}

/** `mysqli_connect('db', 'app', '...')`, `new PDO($dsn, 'app', '...')`: the third argument. */
function hostUserPassword(text: string, paren: number, spans: Span[]): number {
  const args = quotedArgs(text, paren, 3);
  const pw = args[2];
  if (pw === undefined || pw === null || args[1] === null) return -1;
  const v = text.slice(pw[0], pw[1]);
  if (v.length === 0 || isPasswordPlaceholder(v)) return -1;
  spans.push({ s: pw[0], e: pw[1], kind: "password", p: 1 });
  return pw[1];
}

// JWT libraries take the signing secret second: `jwt.sign(payload, SECRET)`, PyJWT's `jwt.encode(...)`.
const JWT_SIGN = /(?:^|[^A-Za-z0-9_$])(?:jwt|jsonwebtoken|JWT)\.(?:sign|verify|encode|decode)$/;

/** The `,` after a call's first argument (`cap`: quoted, or an identifier), as the master regex finds it. */
export function callComma(text: string, at: number, cap: string, spans: Span[]): number {
  const paren = text.lastIndexOf("(", at);
  if (paren < 0 || at - paren > 140) return at + 1;
  const name = cap.replace(/^[ \t]*\\*["']|\\*["']$/g, "");
  if (HOST_USER_PASSWORD.test(callee(text, paren))) {
    const next = hostUserPassword(text, paren, spans);
    if (next >= 0) return next;
  }
  if (name !== cap) return callPair(text, at, name, paren, spans);
  if (!JWT_SIGN.test(text.slice(Math.max(0, paren - 40), paren))) return at + 1;
  const range = secondArg(text, at);
  if (range === null) return at + 1;
  const v = text.slice(range[0], range[1]);
  if (v.length < 6 || isPlaceholder(v) || !looksGenerated(v)) return at + 1;
  spans.push({ s: range[0], e: range[1], kind: "secret", p: 1 });
  return range[1];
}
