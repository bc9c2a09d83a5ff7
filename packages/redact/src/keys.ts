// Secret-ish keys
//
// Rule: split the key into words (camelCase, snake_case, kebab-case, dots),
// and decide on the LAST word only (plus the one before it for "key" and
// "string"). That single rule keeps counters and metadata such as
// `input_tokens`, `token_count`, `token_type`, `password_required`,
// `secret_name`, `api_key_id` or `tokenizer`, while catching `github_token`,
// `AWS_SECRET_ACCESS_KEY`, `dbPassword`, `x-api-key` and
// `proxy-authorization`. `signature` is never secret: Anthropic thinking
// blocks carry one that is integrity data, not a credential.
import { isDigit, isLower, isUpper } from "./chars.ts";

const PASSWORD_WORDS = new Set(["password", "passwords", "passwd", "pwd", "passphrase", "passcode"]);
const COOKIE_WORDS = new Set(["cookie", "cookies", "setcookie"]);
const CREDENTIAL_WORDS = new Set(["credential", "credentials", "creds", "cred"]);
const AUTH_WORDS = new Set(["authorization", "proxyauthorization", "auth"]);
// Keys that hold a password under another name: Wi-Fi pre-shared keys, Redis's `requirepass` and
// `masterauth`, HAProxy's `insecure-password`.
const PASSWORD_NAMES = new Set(["psk", "requirepass", "masterauth", "rpcpassword"]);
// Honeycomb sends its API key as `X-Honeycomb-Team`: a documented header without a secret word.
// Both tables are Maps: they are asked about any key a payload has, and a plain object answered
// `constructor` with Object's own member (`[REDACTED:function Object() { [native code] }]`).
const HEADER_KEYS = new Map([["x-honeycomb-team", "api_key"]]);
// A bare "key" is a map key or a keyboard key; only these qualifiers make it a credential.
// Vendors add their own: Datadog's `DD-APPLICATION-KEY`, New Relic's `X-Insert-Key` and ingest keys,
// Sentry's `sentry_key`, Segment's write key, Mailchimp's and Okta's admin and management keys.
const KEY_QUALIFIERS = new Set(
  "api access secret private account master encryption signing session subscription client auth app storage shared service hmac jwt license application admin management server write insert ingest ingestion consumer merchant partner developer integration webhook personal bot sentry decryption".split(
    " ",
  ),
);
const JOINED_KEYS = new Map([
  ["apikey", "api_key"],
  ["xapikey", "api_key"],
  ["accesskey", "access_key"],
  ["secretkey", "secret_key"],
  ["privatekey", "private_key"],
  ["privkey", "private_key"],
  ["accountkey", "secret_key"],
  ["masterkey", "secret_key"],
  ["signingkey", "secret_key"],
  ["sessionkey", "secret_key"],
  ["subscriptionkey", "api_key"],
  ["clientkey", "secret_key"],
  ["authkey", "secret_key"],
  ["appkey", "secret_key"],
  ["hmackey", "secret_key"],
  ["encryptionkey", "secret_key"],
  ["connectionstring", "connection_string"],
  ["connstr", "connection_string"],
]);

export function splitWords(key: string): string[] {
  const words: string[] = [];
  const n = key.length;
  let ws = -1;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    const up = isUpper(c);
    if (!up && !isLower(c) && !isDigit(c)) {
      if (ws >= 0) words.push(key.slice(ws, i).toLowerCase());
      ws = -1;
      continue;
    }
    if (ws < 0) {
      ws = i;
    } else if (up) {
      const prev = key.charCodeAt(i - 1);
      // "dbPassword" -> db|password, "APIKey" -> api|key, "AWSSecret" -> aws|secret
      if (isLower(prev) || isDigit(prev) || (isUpper(prev) && i + 1 < n && isLower(key.charCodeAt(i + 1)))) {
        words.push(key.slice(ws, i).toLowerCase());
        ws = i;
      }
    }
  }
  if (ws >= 0) words.push(key.slice(ws).toLowerCase());
  return words;
}

const PASS_SUFFIX = /(?:^|[_.-])pass$/i;
// Abbreviated names run the service into the word: `dbpasswd`, `rootpw`, `adminpwd`, `dbpass`. A `pw`,
// `pwd` or `passwd` ending is always one (no English word ends so); a `pass`
// ending only after a service's name, since `bypass`, `compass`, `lowpass`, `renderpass` end so too.
// `chpasswd` is a command, a shell's `OLDPWD` the directory it left.
const ABBREVIATED = /^([a-z][a-z0-9]{0,13}?)(passwd|pwd|pw|pass)$/;
const NOT_SERVICES = new Set(["ch", "old"]);
const PASS_SERVICES = new Set(
  "db sql mysql pg psql postgres mongo mongodb redis root admin adm user usr ftp sftp smtp mail imap pop ldap ssh vnc rdp wifi wlan proxy master sys sa svc app api web login irc oracle ora mssql jdbc amqp rabbit mq kafka es elastic git svn nexus docker registry repo bind server srv client acct account site".split(
    " ",
  ),
);
const VERBS = new Set(
  "can could should would will must may might is was has had does did not no to by let allow skip force test tests".split(
    " ",
  ),
);
const TOOL_PASS = /^(?:src|dest)?(?:store|key)pass$|^pass(?:in|out)$/;

// Every word keyKind can return a kind for contains one of these.
const KEYISH = /pass|pwd|pw|secret|token|key|auth|cookie|cred|str|sonar|pat|psk|bearer|honeycomb/i;
// Payloads repeat the same few hundred keys; remembering the verdict skips the word split.
const KEY_CACHE = new Map<string, string | null>();

/** The redaction kind a key implies, or null when the key is not secret-ish. */
export function keyKind(key: string): string | null {
  if (key.length === 0 || key.length > 128 || !KEYISH.test(key)) return null;
  let kind = KEY_CACHE.get(key);
  if (kind === undefined) {
    kind = wordsKind(key);
    if (KEY_CACHE.size >= 4096) KEY_CACHE.clear();
    KEY_CACHE.set(key, kind);
  }
  return kind;
}

function wordsKind(key: string): string | null {
  const header = HEADER_KEYS.get(key.toLowerCase());
  if (header !== undefined) return header;
  const words = splitWords(key);
  // `password2`, `key1`, `token_2`: a numbered copy of the same field.
  let last = words[words.length - 1];
  if (last !== undefined && /[a-z][0-9]{1,2}$/.test(last)) last = last.replace(/[0-9]+$/, "");
  else if (last !== undefined && /^[0-9]{1,2}$/.test(last) && words.length > 1) {
    words.pop();
    last = words[words.length - 1];
  }
  if (last === undefined) return null;
  const prev = words.length > 1 ? words[words.length - 2] : undefined;
  if (PASSWORD_WORDS.has(last) || (last.endsWith("password") && last.length > 8)) return "password";
  if (last === "pw") return "password";
  const abbreviated = ABBREVIATED.exec(last);
  if (abbreviated !== null) {
    const [, service, word] = abbreviated as unknown as [string, string, string];
    if (word === "pass" ? PASS_SERVICES.has(service) : !NOT_SERVICES.has(service)) return "password";
  }
  if (PASSWORD_NAMES.has(last)) return "password";
  // curl's `--oauth2-bearer TOKEN` (a bare `bearer` is Postman's auth section or a scheme name).
  if (last === "bearer" && words.length > 1) return "token";
  // "pass" alone is too common a word ("bypass", "canPass"); only `pass`, `_pass`, or a service's
  // camelCase password (`smtpPass`, `dbPass`), not a verb's (`canPass`, `shouldPass`).
  if (last === "pass")
    return PASS_SUFFIX.test(key) || (prev !== undefined && !VERBS.has(prev)) ? "password" : null;
  if (last.endsWith("token")) return "token";
  // keytool's `-storepass` / `-keypass`, openssl's `-passin` / `-passout`.
  if (TOOL_PASS.test(last)) return "password";
  // Rails' `secret_key_base`, a GCP service account's `private_key_id`, Sonar's `sonar.login`.
  if (last === "base" && prev === "key" && words.at(-3) === "secret") return "secret";
  if (last === "id" && prev === "key" && words.at(-3) === "private") return "private_key";
  if (last === "login" && prev === "sonar") return "token";
  // Azure DevOps' `AZURE_DEVOPS_EXT_PAT`, `GITLAB_PAT`: a personal access token.
  if (last === "pat") return "token";
  if (last.endsWith("secret") || last === "secrets") return "secret";
  if (last === "key") {
    if (prev === undefined) return null;
    if (prev === "api" || prev === "subscription" || prev === "xapi") return "api_key";
    // AWS's own name for its secret key (`aws_secret_access_key`, `AWS_SECRET_ACCESS_KEY`, S3 tools'
    // `secret_access_key`): labelled as the same secret found beside its key id, one label everywhere.
    if (prev === "access") return words.at(-3) === "secret" ? "aws_secret_access_key" : "access_key";
    if (prev === "private") return "private_key";
    return KEY_QUALIFIERS.has(prev) ? "secret_key" : null;
  }
  const joined = JOINED_KEYS.get(last);
  if (joined !== undefined) return joined;
  if (AUTH_WORDS.has(last)) {
    // "OAuth" splits into o|auth; it names a mechanism, not a credential.
    if (last === "auth" && prev === "o") return null;
    return "authorization";
  }
  if (COOKIE_WORDS.has(last)) return "cookie";
  if (CREDENTIAL_WORDS.has(last)) return "credential";
  if (last === "string" && (prev === "connection" || prev === "conn")) return "connection_string";
  // AWS Secrets Manager's `SecretString` and `SecretBinary` hold the secret itself.
  if ((last === "string" || last === "binary") && prev === "secret") return "secret";
  return null;
}

export function isSecretKey(key: string): boolean {
  return keyKind(key) !== null;
}

// Firefox's logins.json keeps `encryptedUsername` and `encryptedPassword`, ciphertext that the key4.db
// beside it opens: a credential store's field, never text an agent needs to read back.
const ENCRYPTED_FIELD = /^encrypted(?:[A-Z][a-z]+|_[a-z]+)+$/;
const ENV_KEY_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_KEY$/;
const NOT_SECRET_KEY_NAME =
  /(?:PUBLIC|PUBLISHABLE|PRIMARY|SORT|PARTITION|CACHE|FOREIGN|IDEMPOTENCY|OBJECT|S3|HOT|SHORTCUT|SSH_PUB|GPG|PGP|SITE|MAP)_KEY$/;

/**
 * A key that only suggests a secret, believed when its value looks generated: an environment variable
 * named for a key (`STRIPE_KEY`, `MAPS_KEY`), Azure's `primaryKey` / `secondaryKey`, Consul's gossip
 * `encrypt`, wp-config's and Rails' salts. Returns the kind to report, or null.
 */
export function weakKeyKind(key: string): string | null {
  if (key.length === 0 || key.length > 128) return null;
  // Every such name ends in key, salt or encrypt: one comparison spares most keys the regexes.
  if (ENCRYPTED_FIELD.test(key)) return "encrypted_credential";
  const tail = key.slice(-3).toLowerCase();
  if (tail !== "key" && tail !== "alt" && tail !== "ypt") return null;
  if (ENV_KEY_NAME.test(key)) return NOT_SECRET_KEY_NAME.test(key) ? null : "secret_key";
  if (/^encrypt$|(?:^|[_.-])salt$|[a-z]Salt$/i.test(key)) return "secret_key";
  if (/^(?:primary|secondary)(?:Read[Oo]nly)?(?:[_-]?[Kk]ey)$/.test(key)) return "secret_key";
  return null;
}
