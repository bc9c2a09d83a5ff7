// Redaction for everything tapedeck writes. It runs inside the hook process
// before a byte reaches disk, so it imports nothing and compiles every regex
// once at load. Each string is scanned by ONE combined regex whose top-level
// alternatives each start with a single, fairly rare character; text with no
// hit costs one linear scan, and the validation only runs where a hit is.
//
// Precision matters as much as recall: the archive is for debugging agents,
// so hashes, UUIDs, images, public keys, code and token counters must survive
// byte-identical. Where a rule cannot tell, it prefers the cheap signal that
// real credentials carry (provider prefix, entropy, a literal value).

export const REDACTION_POLICY = "default-v1";

export interface RedactionHit {
  path: string;
  kind: string;
}

export interface RedactResult<T = unknown> {
  value: T;
  /** Path of every value (or key) that was changed, once per path. */
  redactions: string[];
  /** Kind of each redacted span, in document order; a string with two secrets contributes two. */
  kinds: string[];
  /** Paths whose whole string was replaced by an `[OMITTED:...]` marker. */
  omitted: string[];
}

// ---------------------------------------------------------------------------
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
// ---------------------------------------------------------------------------

const PASSWORD_WORDS = new Set(["password", "passwords", "passwd", "pwd", "passphrase", "passcode"]);
const COOKIE_WORDS = new Set(["cookie", "cookies", "setcookie"]);
const CREDENTIAL_WORDS = new Set(["credential", "credentials", "creds", "cred"]);
const AUTH_WORDS = new Set(["authorization", "proxyauthorization", "auth"]);
// A bare "key" is a map key or a keyboard key; only these qualifiers make it a credential.
const KEY_QUALIFIERS = new Set(
  "api access secret private account master encryption signing session subscription client auth app storage shared service hmac jwt license".split(
    " ",
  ),
);
const JOINED_KEYS: Record<string, string> = {
  apikey: "api_key",
  xapikey: "api_key",
  accesskey: "access_key",
  secretkey: "secret_key",
  privatekey: "private_key",
  privkey: "private_key",
  accountkey: "secret_key",
  masterkey: "secret_key",
  signingkey: "secret_key",
  sessionkey: "secret_key",
  subscriptionkey: "api_key",
  clientkey: "secret_key",
  authkey: "secret_key",
  appkey: "secret_key",
  hmackey: "secret_key",
  encryptionkey: "secret_key",
  connectionstring: "connection_string",
  connstr: "connection_string",
};

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function charTable(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1;
  return t;
}

function splitWords(key: string): string[] {
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
const TOOL_PASS = /^(?:src|dest)?(?:store|key)pass$|^pass(?:in|out)$/;

// Every word keyKind can return a kind for contains one of these.
const KEYISH = /pass|pwd|secret|token|key|auth|cookie|cred|str|sonar|pat/i;
// Payloads repeat the same few hundred keys; remembering the verdict skips the word split.
const KEY_CACHE = new Map<string, string | null>();

/** The redaction kind a key implies, or null when the key is not secret-ish. */
function keyKind(key: string): string | null {
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
  const words = splitWords(key);
  const last = words[words.length - 1];
  if (last === undefined) return null;
  const prev = words.length > 1 ? words[words.length - 2] : undefined;
  if (PASSWORD_WORDS.has(last) || (last.endsWith("password") && last.length > 8)) return "password";
  // "pass" alone is too common a word ("bypass", "canPass"); only `pass` or `_pass`.
  if (last === "pass") return PASS_SUFFIX.test(key) ? "password" : null;
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
    if (prev === "access") return "access_key";
    if (prev === "private") return "private_key";
    return KEY_QUALIFIERS.has(prev) ? "secret_key" : null;
  }
  const joined = JOINED_KEYS[last];
  if (joined !== undefined) return joined;
  if (AUTH_WORDS.has(last)) {
    // "OAuth" splits into o|auth; it names a mechanism, not a credential.
    if (last === "auth" && prev === "o") return null;
    return "authorization";
  }
  if (COOKIE_WORDS.has(last)) return "cookie";
  if (CREDENTIAL_WORDS.has(last)) return "credential";
  if (last === "string" && (prev === "connection" || prev === "conn")) return "connection_string";
  return null;
}

export function isSecretKey(key: string): boolean {
  return keyKind(key) !== null;
}

// ---------------------------------------------------------------------------
// Placeholders and code: values that sit where a secret would, but are not one
// ---------------------------------------------------------------------------

const SECRET_WORD = /pass|pwd|secret|token|key|auth|cred|cookie/i;
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
const VAR_REF = /^\$(?:\{[^}\s]{1,200}\}|\([^)]{1,500}\)|[A-Za-z_][A-Za-z0-9_]{0,100})$/;
const MASKED = /^[xX*.•_-]+$/;
const ONLY_STARS = /^[*.•]+$/;
const ELIDED = /^[A-Za-z]{1,12}[_-]?(?:\.{3}|…)$/;
// printf/format templates such as "%s", "%(user)s:%(pw)s" or "{0}:{1}".
const FORMAT_ONLY =
  /^(?:%[-#0 +]*[0-9]*(?:\.[0-9]+)?[sdrfxXoiuv]|%\([A-Za-z0-9_]{1,30}\)[sdrf]|\{[A-Za-z0-9_.]{0,30}\}|[ :@/._-])+$/;

// Deliberately narrow: a made-up-looking value such as "your-api-key" is still
// redacted, because guessing wrong here leaks a real secret.
function isPlaceholder(v: string): boolean {
  if (v.length === 0) return true;
  const c = v.charCodeAt(0);
  // `$(cmd)` and `${VAR...}` substitute at run time, even when the scan cut them short.
  if (c === 36 /* $ */) return v.startsWith("$(") || v.startsWith("${") || VAR_REF.test(v);
  if (c === 60 /* < */) return v.charCodeAt(v.length - 1) === 62;
  if (c === 91 /* [ */ && (v.startsWith("[REDACTED:") || v.startsWith("[OMITTED:"))) return true;
  if (c === 123 /* { */ && v.startsWith("{{") && v.endsWith("}}")) return true;
  // `Bearer {token}`, also when the scan stopped before its closing brace.
  if (c === 123 && /^\{[A-Za-z_][A-Za-z0-9_.]{0,40}\}?$/.test(v)) return true;
  if (c === 37 /* % */ && v.length > 2 && v.endsWith("%") && /^%[A-Za-z_][A-Za-z0-9_]*%$/.test(v))
    return true;
  if (MASKED.test(v) && (v.length >= 3 || ONLY_STARS.test(v))) return true;
  // An elided example such as "sk-..." or "ghp_…" shows a prefix, never a secret.
  if (ELIDED.test(v)) return true;
  if ((c === 37 || c === 123) && FORMAT_ONLY.test(v)) return true;
  if (v.length <= 200 && isSample(v)) return true;
  // The NAME of an environment variable ("GITHUB_TOKEN") or a help text's metavar ("TEXT") is not a value.
  return ENV_NAME.test(v) && (SECRET_WORD.test(v) || METAVAR.test(v));
}

// Words sample values are made of: "REPLACE_ME", "changeme123", "your-api-key-here", "dummy-token".
const PLACEHOLDER_WORDS =
  /replace[-_ ]?me|change[-_ ]?(?:me|it)|placeholder|example|dummy|fixme|redacted|removed|^(?:todo|tbd|n\/a)$|(?:^|[-_ ])your[-_ ]?[a-z]|[-_ ]here$|^insert[-_ ]|^<[^<>]{1,80}>$|^(?:test|fake|sample|mock)[-_ ](?:api[-_ ]?)?(?:token|key|secret|password|value)s?$|^(?:my|the)[-_ ]?(?:api[-_ ]?|secret[-_ ]?)?(?:secret|password|token|key)$|^(.)\1{5,}$/i;
// Literal credential words used as sample values: `user:password@localhost`, `client-secret=bar`.
const SAMPLE_WORDS = new Set(
  "password passwd pass pwd secret token apikey api_key api-key key foo bar baz qux topsecret mysecret mypassword test sample".split(
    " ",
  ),
);
// Masking as tools print it: `gho_****`, `sk-...a1B2`, `***REMOVED***`, `•••`, `ghp_xxxxxx`.
const MASK_RUN = /\*{3}|•{2}|…|\.{3}|x{6}|X{6}/;
// A help text's metavar: `--token TEXT`, `--passphrase=PHRASE`; real secrets carry digits.
const METAVAR = /^[A-Z][A-Z_-]{1,23}$/;
// `[REDACTED]`, `[your-token]`, `(hidden)`, `{{TOKEN}}`, also when the scan stopped before the closer.
const BRACKET_MARKER =
  /^\[[A-Za-z][A-Za-z _:-]{0,40}\]?$|^\([A-Za-z][A-Za-z _-]{0,30}\)?$|^\{\{[^{}]{0,80}(?:\}\}?)?$/;
// Dependency versions: `"next-auth": "^4.24.0"`.
const VERSION_RANGE =
  /^(?:[\^~]|[<>]=?)\s*v?[0-9]+(?:\.[0-9x*]+)*(?:-[0-9A-Za-z.]+)?$|^v?[0-9]+\.[0-9]+(?:\.[0-9]+)?(?:-[0-9A-Za-z.]+)?$/;

// `--from-file=ssh-privatekey=path/to/id_rsa`, `--client-key=keyfile`: where the secret is, not the secret.
const PATH_LIKE = /^(?:~|\.{1,2})?\/?[a-z0-9_.-]+(?:\/[a-z0-9_.-]+)+\/?$/;
const FILE_WORD = /^[a-z_-]*(?:file|path|dir|name)$/;

function isSample(v: string): boolean {
  return (
    PLACEHOLDER_WORDS.test(v) ||
    MASK_RUN.test(v) ||
    SAMPLE_WORDS.has(v.toLowerCase()) ||
    BRACKET_MARKER.test(v) ||
    VERSION_RANGE.test(v) ||
    PATH_LIKE.test(v) ||
    FILE_WORD.test(v)
  );
}

/** A provider-shaped token that is masked or a documented example (`AKIAIOSFODNN7EXAMPLE`). */
function isSampleToken(t: string): boolean {
  return MASK_RUN.test(t) || /example/i.test(t);
}

const CODE_KEYWORDS = new Set(
  "null NULL nil None undefined true false True False TRUE FALSE string String str &str number int i32 i64 u32 u64 bool boolean bytes any unknown object void never optional Optional required await new this self function async lambda yes no on off none inherit read write | > |- >-".split(
    " ",
  ),
);
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const DECIMAL = /^[0-9][0-9_]*$/;
const HEX_NUMBER = /^0[xX][0-9a-fA-F]{1,16}$/;
// Versions, OIDs and IP addresses.
const DOTTED_NUMBER = /^[0-9]+(?:\.[0-9]+)+$/;
const GENERIC_TYPE = /^[A-Za-z_$][A-Za-z0-9_$.]*<.*>$/;
// `process.env.X`, `this.#list.cookies`, `!req.headers.authorization`
const DOTTED = /^!?[A-Za-z_$][A-Za-z0-9_$]*(?:\??\.#?[A-Za-z_$][A-Za-z0-9_$]*)+$/;
const HUMP_OR_SNAKE = /[a-z][A-Z]|_/;

// ---------------------------------------------------------------------------
// Value patterns
//
// Speed comes from the shape of the master regex. A big alternation of
// provider prefixes makes irregexp try every prefix at every position
// (~25 MB/s). Instead each top-level alternative starts with one anchor
// character (`_ - . = : /` or a few letters); only where that character
// occurs do its branches look back for the provider prefix before it, or
// ahead for the rest. A hit only says "a rule may start here"; the rule's own
// sticky regex then decides.
// ---------------------------------------------------------------------------

interface Span {
  s: number;
  e: number;
  kind: string;
  /** Provider rules outrank key-based ones when spans overlap, for a more useful kind. */
  p: number;
}

interface Rule {
  kind: string;
  /** Sticky regex anchored at the token start; when it has a group 1, only that group is secret. */
  re: RegExp;
  ok?: (secret: string) => boolean;
  /** How far before its anchor the token starts. */
  back?: number;
}

/**
 * Agent traffic is full of JSON-escaped text, where a token often follows a
 * literal `\n`. Every one-character boundary `(?<![...])` is therefore widened
 * so that a letter right after a backslash still counts as a boundary.
 */
function escapeAware(src: string): string {
  return src.replaceAll("(?<![", "(?<!(?<!\\\\)[");
}

function rule(kind: string, src: string, ok?: (secret: string) => boolean): Rule {
  // Indices are only needed to locate a group; compute them only for rules that have one.
  const flags = /\((?!\?)/.test(src.replace(/\\\\|\\\(|\[[^\]]*\]/g, "")) ? "dy" : "y";
  return { kind, re: new RegExp(escapeAware(src), flags), ok };
}

function hasDigit(s: string): boolean {
  return /[0-9]/.test(s);
}
function mixedCase(s: string): boolean {
  return /[a-z]/.test(s) && /[A-Z]/.test(s);
}
// Kebab-case names like "sk-learn-..." never mix upper, lower and digits; keys do.
function keyLike(s: string): boolean {
  return hasDigit(s) && mixedCase(s);
}

const PRINTABLE = /^[\x20-\x7e]+$/;

function decodeB64(s: string, url: boolean): string {
  return Buffer.from(s, url ? "base64url" : "base64").toString("latin1");
}

const GITHUB = rule("github_token", "gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])");
const GITLAB = rule("gitlab_token", "gl[a-z]{2,5}-[0-9A-Za-z_-]{20,255}(?![0-9A-Za-z_-])");
const SLACK = rule("slack_token", String.raw`xox(?:[abposr]|e(?:\.xox[bp])?)-[0-9A-Za-z-]{10,250}`, hasDigit);
const STRIPE = rule("stripe_key", "[sr]k_(?:live|test)_[0-9A-Za-z]{10,247}(?![0-9A-Za-z_])");
const DIGITALOCEAN = rule("digitalocean_token", "do[por]_v1_[a-f0-9]{64}(?![0-9A-Za-z])");
const SHOPIFY = rule("shopify_token", "shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![0-9A-Za-z])");
const AWS_KEY_ID = rule(
  "aws_access_key_id",
  "(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
);
const VAULT = rule("vault_token", String.raw`hv[sbr]\.[A-Za-z0-9_-]{24,512}(?![A-Za-z0-9_-])`);
const NEWRELIC = rule("newrelic_key", "NR(?:AK|II)-[A-Za-z0-9_-]{27,32}(?![A-Za-z0-9_-])");
const SQUARE = rule("square_token", "sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}(?![0-9A-Za-z_-])");
// Outside an Authorization header "Bearer" is often prose ("a Bearer token"),
// so the credential must look machine-made: a digit, or long and mixed-case.
const BEARER = rule(
  "bearer",
  String.raw`(?<![A-Za-z0-9_])(?:[Bb]earer|BEARER)[ \t]+([A-Za-z0-9._~+/-]{7,4095}[A-Za-z0-9_~+/-]=*)`,
  (s) => hasDigit(s) || (s.length >= 32 && mixedCase(s)),
);
// "Basic usage" is prose; a real Basic credential decodes to printable "user:pass".
const BASIC = rule(
  "basic_auth",
  String.raw`(?<![A-Za-z0-9_])(?:[Bb]asic|BASIC)[ \t]+([A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=])`,
  (s) => {
    const d = decodeB64(s, false);
    return d.includes(":") && PRINTABLE.test(d);
  },
);

/**
 * Rules keyed by the anchor character (or first letter) plus the prefix the
 * master regex captured next to it: "_ghp" is "ghp" before an underscore.
 */
const BY_PREFIX = new Map<string, Rule[]>();
function on(keys: string, ...rules: Rule[]): void {
  for (const k of keys.split(" ")) BY_PREFIX.set(k, [...(BY_PREFIX.get(k) ?? []), ...rules]);
}

on("_ghp _gho _ghu _ghs _ghr", GITHUB);
on("_github", rule("github_token", "github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![A-Za-z0-9_])"));
on("-glpat -gldt -glptt -glrt -glcbt -glimt -gloas -glft -glsoat -glagent -glffct -glwt", GITLAB);
on("_glc", rule("grafana_token", "glc_[A-Za-z0-9+/]{32,400}={0,2}(?![A-Za-z0-9+/=])"));
on("_glsa", rule("grafana_token", "glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9_])"));
on("-xoxa -xoxb -xoxp -xoxo -xoxs -xoxr -xoxe .xoxe", SLACK);
on("-xapp", rule("slack_token", "xapp-[0-9]-[0-9A-Za-z-]{20,250}"));
on(
  ".hooks",
  rule(
    "slack_webhook",
    String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/+-]{20,300})`,
  ),
);
on("_sk _rk", STRIPE, rule("elevenlabs_key", "sk_[a-f0-9]{48}(?![A-Za-z0-9_])"));
on("_whsec", rule("stripe_key", "whsec_[0-9A-Za-z+/=]{24,100}(?![0-9A-Za-z+/=])"));
on(
  "-sk",
  rule("anthropic_key", "sk-ant-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])"),
  rule("openrouter_key", "sk-or-v1-[a-f0-9]{64}(?![A-Za-z0-9_-])"),
  // DeepSeek and others issue `sk-` plus 32 lowercase hex: no mixed case to go by.
  rule("api_key", "sk-[a-f0-9]{32}(?![A-Za-z0-9_-])"),
  rule("openai_key", "sk-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])", keyLike),
);
on("AIza", rule("google_api_key", "(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"));
on("-GOCSPX", rule("google_oauth_secret", "GOCSPX-[0-9A-Za-z_-]{20,64}(?![0-9A-Za-z_-])"));
on(".ya29", rule("google_oauth_token", String.raw`ya29\.[0-9A-Za-z._-]{19,2047}[0-9A-Za-z_-]`));
on("/1", rule("google_oauth_token", "1//0[0-9A-Za-z_-]{40,512}(?![0-9A-Za-z_-])"));
on("_hf", rule("huggingface_token", "hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])", mixedCase));
on("_api", rule("huggingface_token", "api_org_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])", mixedCase));
on(
  "_npm",
  rule("npm_token", "npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])", (s) => hasDigit(s.slice(4)) && /[a-z]/i.test(s)),
);
on("-pypi", rule("pypi_token", "pypi-Ag[A-Za-z0-9_-]{50,1000}"));
on("Bearer bearer BEARER", BEARER);
on("Basic basic BASIC", BASIC);
on("SK", rule("twilio_key", "(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![0-9A-Za-z])"));
on(".SG", rule("sendgrid_key", String.raw`SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}(?![A-Za-z0-9_-])`));
on("-key", rule("mailgun_key", "key-[0-9a-f]{32}(?![0-9A-Za-z])"));
on("_dop _doo _dor", DIGITALOCEAN);
on("_shpat _shpss _shpca _shppa", SHOPIFY);
on("dapi", rule("databricks_token", "(?<![A-Za-z0-9_])dapi[a-f0-9]{32}(?:-[0-9])?(?![0-9A-Za-z])"));
on("-sq0atp -sq0csp", SQUARE);
on("EAAA", rule("square_token", "(?<![A-Za-z0-9+/=_-])EAAA[0-9A-Za-z_-]{60}(?![0-9A-Za-z+/=_-])"));
on(
  ".dp",
  rule(
    "doppler_token",
    String.raw`dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])`,
  ),
);
on(".hvs .hvb .hvr", VAULT);
on("_lin", rule("linear_key", "lin_(?:api|oauth)_[A-Za-z0-9]{40}(?![A-Za-z0-9])"));
on("_secret", rule("notion_token", "secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])"));
on("_ntn", rule("notion_token", "ntn_[A-Za-z0-9]{40,50}(?![A-Za-z0-9])"));
on("ATATT", rule("atlassian_token", "(?<![A-Za-z0-9])ATATT[A-Za-z0-9_=-]{50,400}(?![A-Za-z0-9_=-])"));
on("-PMAK", rule("postman_key", "PMAK-[0-9a-f]{24}-[0-9a-f]{34}(?![0-9A-Za-z])"));
on("-NRAK -NRII", NEWRELIC);
on("-pul", rule("pulumi_token", "pul-[a-f0-9]{40}(?![0-9A-Za-z])"));
on("-AGE", rule("age_secret_key", "AGE-SECRET-KEY-1[0-9A-Z]{58}(?![0-9A-Z])"));
on("AKIA ASIA ABIA ACCA", AWS_KEY_ID);

// Documented token prefixes of registries, CI services, hosting and AI APIs.
// Each is checked only where its prefix occurs (see ANCHORS).
const ALNUM_KEY = (s: string) => hasDigit(s) && /[A-Za-z]/.test(s);
// PuTTY's `.ppk`: the `Private-Lines: N` lines that follow hold the key.
on(
  "-Private",
  rule(
    "private_key",
    String.raw`Private-Lines:[ \t]*[0-9]{1,4}[ \t]*\r?\n((?:[A-Za-z0-9+/=]{1,128}(?:\r?\n|$)){1,512})`,
  ),
);
on("_dckr", rule("docker_hub_token", "dckr_(?:pat|oat)_[A-Za-z0-9_-]{24,64}(?![A-Za-z0-9_-])"));
on(
  "_sntrys _sntryu",
  rule("sentry_token", "sntrys_eyJ[A-Za-z0-9_=+/-]{40,1000}(?![A-Za-z0-9_=+/-])"),
  rule("sentry_token", "sntryu_[a-f0-9]{64}(?![A-Za-z0-9])"),
);
on("_sb", rule("supabase_key", "sb_secret_[A-Za-z0-9_-]{20,100}(?![A-Za-z0-9_-])"));
on("_sbp", rule("supabase_key", "sbp_[a-f0-9]{40}(?![A-Za-z0-9])"));
on("_sgp", rule("sourcegraph_token", "sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}(?![A-Za-z0-9])"));
on(
  "_vcp _vci _vca _vcr _vck",
  rule("vercel_token", "vc[pikar]_[A-Za-z0-9]{24,80}(?![A-Za-z0-9_])", ALNUM_KEY),
);
on("_nfp _nfc", rule("netlify_token", "nf[pc]_[A-Za-z0-9]{36,48}(?![A-Za-z0-9_])", ALNUM_KEY));
on("_pscale", rule("planetscale_token", "pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}(?![A-Za-z0-9_.=-])"));
on("_rnd", rule("render_key", "rnd_[A-Za-z0-9]{32}(?![A-Za-z0-9_])", ALNUM_KEY));
on("_bkua", rule("buildkite_token", "bkua_[a-f0-9]{40}(?![A-Za-z0-9])"));
on("_CCIPAT _CCIPRJ", rule("circleci_token", "CCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}(?![A-Za-z0-9])"));
on("_squ _sqp _sqa", rule("sonar_token", "sq[upa]_[a-f0-9]{40}(?![A-Za-z0-9])"));
on("_gsk", rule("groq_key", "gsk_[A-Za-z0-9]{48,56}(?![A-Za-z0-9_])", ALNUM_KEY));
on("_r8", rule("replicate_token", "r8_[A-Za-z0-9]{37}(?![A-Za-z0-9_])", ALNUM_KEY));
on("_fw", rule("fireworks_key", "fw_[A-Za-z0-9]{20,40}(?![A-Za-z0-9_])", keyLike));
on("_pcsk", rule("pinecone_key", "pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,80}(?![A-Za-z0-9_])"));
on("_lsv2", rule("langsmith_key", "lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}(?![A-Za-z0-9])"));
on("_tfp", rule("typeform_token", "tfp_[A-Za-z0-9_=.-]{40,60}(?![A-Za-z0-9_=.-])", ALNUM_KEY));
on("_figd", rule("figma_token", "figd_[A-Za-z0-9_-]{38,60}(?![A-Za-z0-9_-])", ALNUM_KEY));
on("_re", rule("resend_key", "re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}(?![A-Za-z0-9_])", ALNUM_KEY));
on("_ops", rule("onepassword_token", "ops_eyJ[A-Za-z0-9_-]{50,2000}(?![A-Za-z0-9_-])"));
on("_pnu", rule("prefect_key", "pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9_])", ALNUM_KEY));
on("_rubygems", rule("rubygems_key", "rubygems_[a-f0-9]{48}(?![A-Za-z0-9])"));
on("_aio", rule("adafruit_key", "aio_[A-Za-z0-9]{28}(?![A-Za-z0-9_])", keyLike));
on("_rdme", rule("readme_key", "rdme_[a-z0-9]{70}(?![A-Za-z0-9])"));
on("_napi", rule("neon_key", "napi_[a-z0-9]{64}(?![A-Za-z0-9])"));
on(
  "_shippo _duffel",
  rule("api_key", "(?:shippo|duffel)_(?:live|test)_[A-Za-z0-9_-]{36,50}(?![A-Za-z0-9_-])"),
);
on("_fm1a _fm1r _fm2", rule("flyio_token", "fm(?:1[ar]|2)_[A-Za-z0-9+/=_-]{40,4096}(?![A-Za-z0-9+/=_-])"));
on(
  "_access",
  rule("braintree_token", String.raw`access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}(?![A-Za-z0-9])`),
);
on("-xai", rule("xai_key", "xai-[A-Za-z0-9]{70,90}(?![A-Za-z0-9_-])", ALNUM_KEY));
on("-pplx", rule("perplexity_key", "pplx-[A-Za-z0-9]{40,56}(?![A-Za-z0-9_-])", ALNUM_KEY));
on("-HRKU", rule("heroku_key", "HRKU-[A-Za-z0-9_-]{40,70}(?![A-Za-z0-9_-])"));
on("-CFPAT", rule("contentful_token", "CFPAT-[A-Za-z0-9_-]{40,50}(?![A-Za-z0-9_-])"));
on(
  "-tskey",
  rule("tailscale_key", "tskey-(?:auth|client|api|scim|webhook)-[A-Za-z0-9_-]{20,120}(?![A-Za-z0-9_-])"),
);
on("-FLWSECK", rule("flutterwave_key", "FLWSECK(?:_TEST)?-[a-f0-9]{32}-X(?![A-Za-z0-9])"));
on(".pat", rule("airtable_token", String.raw`pat[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![A-Za-z0-9])`));
on(
  ".sk",
  rule("mapbox_token", String.raw`sk\.eyJ[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{10,100}(?![A-Za-z0-9_-])`),
);
on(".st", rule("infisical_token", String.raw`st\.[0-9a-f-]{36}\.[0-9a-f]{32}\.[0-9a-f]{32}(?![A-Za-z0-9])`));
on(".sl", rule("dropbox_token", String.raw`sl\.(?:u\.)?[A-Za-z0-9_-]{100,1400}(?![A-Za-z0-9_-])`));
on(".dt0c01", rule("dynatrace_token", String.raw`dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}(?![A-Za-z0-9])`));
on("cio", rule("crates_io_token", "cio[A-Za-z0-9]{32}(?![A-Za-z0-9_])", keyLike));
on(
  "ATBB ATCTT",
  rule("atlassian_token", "(?<![A-Za-z0-9])AT(?:BB|CTT)[A-Za-z0-9_=.-]{28,400}(?![A-Za-z0-9_=-])", ALNUM_KEY),
);
on("AKCp", rule("jfrog_token", "(?<![A-Za-z0-9])AKCp[A-Za-z0-9]{69}(?![A-Za-z0-9])"));
// Azure DevOps PATs carry `AZDO` at a fixed offset: the rule is tried from 52 characters back.
const AZURE_DEVOPS = {
  ...rule("azure_devops_pat", "(?<![A-Za-z0-9])[A-Za-z0-9]{52}AZDO[A-Za-z0-9]{28}(?![A-Za-z0-9])"),
  back: 52,
};
on("AZDO", AZURE_DEVOPS);
const AZURE_AD_SECRET = rule(
  "azure_client_secret",
  "[A-Za-z0-9_.~-]{3}[0-9]Q~[A-Za-z0-9_.~-]{31,34}(?![A-Za-z0-9_.~-])",
  (s) => hasDigit(s.slice(6)) || mixedCase(s.slice(6)),
);
const FCM_KEY = rule(
  "firebase_fcm_key",
  "AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,200}(?![A-Za-z0-9_-])",
);
const DISCORD_WEBHOOK = rule("discord_webhook", "[0-9]{17,20}/([A-Za-z0-9_-]{60,80})(?![A-Za-z0-9_-])");
// PEM private keys, including JSON-escaped ones with literal "\n". A block cut
// off before its END line is redacted through the rest of its base64 body.
on(
  "-----BEGIN",
  rule(
    "private_key",
    String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,65536}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`,
  ),
  rule(
    "private_key",
    String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\[nrt]){0,65536}`,
  ),
);

const JWT = rule(
  "jwt",
  String.raw`eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}(?![A-Za-z0-9_-])`,
);
const TERRAFORM = rule(
  "terraform_token",
  String.raw`(?<![A-Za-z0-9_-])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])`,
);
// Discord bot tokens start with the bot's numeric id in base64; decoding it
// separates them from any other dotted base64url triple.
const DISCORD = rule(
  "discord_token",
  String.raw`[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])`,
  (s) => /^[0-9]{17,20}$/.test(decodeB64(s.slice(0, s.indexOf(".")), true)),
);
const TELEGRAM = rule(
  "telegram_token",
  "(?<![A-Za-z0-9_:-])[0-9]{8,10}:AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])",
);
const AZURE_SAS = rule("azure_sas", "sig=([A-Za-z0-9%+/=]{20,300})");
const AWS_PRESIGNED = rule("aws_presigned_signature", "X-Amz-Signature=([0-9a-f]{64})");
// `mysql -pSECRET`: the password is glued to -p. `-p` alone prompts and is left alone.
const MYSQL_P = rule("password", String.raw`-p(?!assword)['"]?([^\s'"\\-][^\s'"\\]{0,200})`);
const MYSQL_CMD = new RegExp(escapeAware(String.raw`(?<![A-Za-z0-9_])mysql(?:dump|admin|import|sh)?\s`));
const CURL_U = rule(
  "password",
  String.raw`(?:-u|--user)(?:[ \t]+|=)?\\?['"]?[^\s:'"@\\]{1,128}:([^\s'"\\]{1,256})`,
);
const CURL_CMD = new RegExp(escapeAware(String.raw`(?<![A-Za-z0-9_])curl\s`));

function tryRule(r: Rule, text: string, start: number): Span | null {
  const from = start - (r.back ?? 0);
  if (from < 0) return null;
  r.re.lastIndex = from;
  const m = r.re.exec(text);
  if (m === null) return null;
  const idx = m.indices?.[1];
  const s = idx ? idx[0] : from;
  const e = idx ? idx[1] : from + m[0].length;
  const secret = text.slice(s, e);
  if ((r.ok && !r.ok(secret)) || isSampleToken(secret)) return null;
  return { s, e, kind: r.kind, p: 2 };
}

function tryRules(rules: Rule[] | undefined, text: string, start: number): Span | null {
  if (rules === undefined) return null;
  for (const r of rules) {
    const hit = tryRule(r, text, start);
    if (hit !== null) return hit;
  }
  return null;
}

const AUTHORITY_END = charTable("/?#\"'<>\\`");

function urlCredentials(text: string, end: number): Span | null {
  // Authority ends at the first / ? # whitespace or quote; userinfo ends at its LAST '@'
  // so that an unencoded '@' inside a password is still covered.
  const limit = Math.min(text.length, end + 1024);
  let at = -1;
  let i = end;
  let cut = -1;
  for (; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 64) at = i;
    else if (c === 35 || c === 63) {
      // An unencoded `#` or `?` in a password (`user:Xk9#mQ@proxy`) would end the authority early.
      if (cut < 0) cut = i;
    } else if (c <= 32 || (c < 128 && AUTHORITY_END[c] === 1)) break;
  }
  if (at < 0 || text.startsWith("[REDACTED:", end)) return null;
  if (cut >= 0 && cut < at) {
    // Only as a password after a user name that is not a host (`localhost:8080?next=a@b` is not one).
    const colon = text.indexOf(":", end);
    const user = text.slice(end, colon);
    if (
      colon < 0 ||
      colon > cut ||
      /[.]/.test(user) ||
      /^[0-9]+[?#]/.test(text.slice(colon + 1, at)) ||
      user === "localhost"
    ) {
      return null;
    }
  }
  const colon = text.indexOf(":", end);
  if (colon >= 0 && colon < at) {
    const pw = text.slice(colon + 1, at);
    if (isPlaceholder(pw)) return null;
    // Low priority: a provider token used as the password should keep its own kind.
    return { s: colon + 1, e: at, kind: "url_password", p: 1 };
  }
  // Sentry DSNs carry their key as a bare user name.
  const user = text.slice(end, at);
  if (/^[0-9a-f]{32}$/.test(user) && text.slice(at, i).includes("sentry")) {
    return { s: end, e: at, kind: "sentry_dsn", p: 2 };
  }
  return null;
}

/** The text of the line holding `pos`, up to `pos`. */
function lineBefore(text: string, pos: number): string {
  const min = Math.max(0, pos - 500);
  let ls = pos;
  while (ls > min && text.charCodeAt(ls - 1) !== 10) ls--;
  return text.slice(ls, pos);
}

// Words that can END a secret-ish key (see keyKind), matched right before a
// `=` / `:` separator with optional closing quote, bracket and blanks.
const KEY_TAIL =
  "(?:[Pp]ass(?:word|wd|phrase|code)?s?|PASS(?:WORD|WD|PHRASE|CODE)?S?|[Pp]wd|PWD|[Ss]ecrets?|SECRETS?|" +
  "[Tt]oken|TOKEN|[Kk]ey|KEY|[Aa]uth(?:orization)?|AUTH(?:ORIZATION)?|[Cc]ookies?|COOKIES?|" +
  "[Cc]red(?:ential)?s?|CRED(?:ENTIAL)?S?|[Ss]tring|STRING|[Cc]onnstr|CONNSTR|" +
  "(?:[Kk]ey|KEY)[_.]?(?:[Bb]ase|BASE|[Ii][Dd])|[Ll]ogin|LOGIN|[Vv]alue|VALUE)";

type Handler = (text: string, m: RegExpExecArray, cap: string, spans: Span[]) => number;

interface Branch {
  /** Regex source after the anchor character; exactly one capturing group. */
  src: string;
  /** "prefix": the group is the prefix before the anchor; "at": a rule starts at the anchor. */
  handle: Handler | "prefix" | "at";
  /** Key/flag parsing: skipped when scanning object keys. */
  keyed?: boolean;
}

const NOT_WORD = "(?<![A-Za-z0-9_])";

function jwtOrTerraform(text: string, m: RegExpExecArray, cap: string, spans: Span[]): number {
  const dot = m.index;
  let hit: Span | null = null;
  if (cap === "eyJ") {
    // `.eyJ` opens the payload of a JWT; its header starts further back.
    let s = dot;
    const min = Math.max(0, dot - 4100);
    while (s > min && isB64UrlCode(text.charCodeAt(s - 1)) && text.charCodeAt(s - 2) !== 92) s--;
    if (text.startsWith("eyJ", s)) hit = tryRule(JWT, text, s);
  } else if (dot >= 14) {
    hit = tryRule(TERRAFORM, text, dot - 14);
  }
  return push(spans, hit, dot + 1);
}

/**
 * Whether the line holding `at` invokes `cmd` before `at`. The answer is reused
 * for later flags on the same line, so a line of a thousand `-u` stays linear.
 */
function commandBefore(text: string, at: number, cmd: RegExp): boolean {
  if (cmdCache.re === cmd && cmdCache.at <= at) {
    let i = cmdCache.at;
    while (i < at && text.charCodeAt(i) !== 10) i++;
    if (i === at) {
      cmdCache.at = at;
      return cmdCache.found;
    }
  }
  const found = cmd.test(lineBefore(text, at));
  cmdCache.re = cmd;
  cmdCache.at = at;
  cmdCache.found = found;
  return found;
}

// Commands whose `-p VALUE` is a password (elsewhere `-p` is a port or a path).
const PW_CMD = new RegExp(
  escapeAware(
    String.raw`(?<![A-Za-z0-9_-])(?:(?:docker|podman|buildah|nerdctl|oras|skopeo|crane|helm(?: registry)?) login|az login|mongo(?:sh|dump|restore)?|sshpass)\s`,
  ),
);
const REDIS_CMD = new RegExp(escapeAware(String.raw`(?<![A-Za-z0-9_-])redis-cli\s`));

function dashOption(text: string, m: RegExpExecArray, cap: string, spans: Span[]): number {
  const at = m.index;
  const c = cap.charCodeAt(0);
  // fish's `set -gx NAME VALUE`: a shell assignment without `=`.
  if (cap.endsWith("x ") || cap.endsWith("x\t")) {
    if (!/(?:^|[\s;])set[ \t]+$/.test(lineBefore(text, at))) return at + 1;
    const m2 = /^-[gU]?x[ \t]+([A-Za-z_][A-Za-z0-9_]{0,63})(?=[ \t])/.exec(text.slice(at, at + 80));
    const kind = m2 === null ? null : keyKind(m2[1] as string);
    return kind === null || m2 === null ? at + 1 : argumentValue(text, at + m2[0].length, spans, kind);
  }
  if (cap.length > 2 && c !== 45) {
    // A single-dash long option: keytool's `-storepass X`, openssl's `-passout pass:X`.
    const before = spans.length;
    const next = assignment(text, at, at + 1 + cap.length, spans);
    if (spans.length > before) return next;
    if (c !== 112) return at + 1;
  }
  const c1 = cap.charCodeAt(1);
  if ((c === 112 || c === 97 || c === 98) && (c1 === 32 || c1 === 9 || c1 === 61)) {
    // `docker login -u bot -p VALUE`, `redis-cli -a VALUE`, `curl -b "session=...; csrf=..."`.
    const cmd = c === 97 ? REDIS_CMD : c === 98 ? CURL_CMD : PW_CMD;
    if (!commandBefore(text, at, cmd)) return at + 1;
    return argumentValue(text, at + 2, spans, c === 98 ? "cookie" : "password");
  }
  if (text.startsWith("--password-stdin", at)) return pipedPassword(text, at, spans, at + 16);
  // `echo PASSWORD | sudo -S ...` reads the password from stdin.
  if (c === 83)
    return /\bsudo[ \t]+$/.test(lineBefore(text, at)) ? pipedPassword(text, at, spans, at + 2) : at + 1;
  const curl = c === 117 /* u */ || text.startsWith("--user", at);
  if (curl || c === 112 /* p */) {
    const rule = curl ? CURL_U : MYSQL_P;
    const hit = commandBefore(text, at, curl ? CURL_CMD : MYSQL_CMD) ? tryRule(rule, text, at) : null;
    if (hit !== null && !isPlaceholder(text.slice(hit.s, hit.e))) return push(spans, hit, at + 1);
    return at + 1;
  }
  let ke = at + 2;
  const max = Math.min(text.length, at + MAX_KEY);
  while (ke < max && isKeyCode(text.charCodeAt(ke))) ke++;
  return assignment(text, at, ke, spans);
}

function colonUrlOrTelegram(text: string, m: RegExpExecArray, cap: string, spans: Span[]): number {
  const at = m.index;
  if (cap.charCodeAt(0) === 47 /* / */) {
    const hit = urlCredentials(text, at + 3);
    // Resume inside a low-priority span so a provider token there can claim its kind.
    return push(spans, hit, at + 3, hit !== null && hit.p === 1 ? hit.s : undefined);
  }
  let s = at;
  while (s > at - 10 && s > 0 && isDigit(text.charCodeAt(s - 1))) s--;
  return push(spans, tryRule(TELEGRAM, text, s), at + 1);
}

function signatureParam(text: string, m: RegExpExecArray, _cap: string, spans: Span[]): number {
  const at = m.index;
  const hit =
    text.charCodeAt(at - 1) === 103 /* g */
      ? tryRule(AZURE_SAS, text, at - 3)
      : tryRule(AWS_PRESIGNED, text, at - 15);
  return push(spans, hit, at + 1);
}

/** A handler for a rule whose token starts `offset` characters before the anchor. */
function backFrom(r: Rule, offset: number): Handler {
  return (text, m, _cap, spans) => push(spans, tryRule(r, text, m.index - offset), m.index + 1);
}

// A cheap one-character test on the key's last letter runs before the word list.
const KEYED: Branch = {
  src:
    `(?<=[dDeEgGhHlLnNrRsStTyY](?:\\\\{0,7}["'\`])?\\]?[ \\t]{0,8}[=:])` +
    `(?<=${KEY_TAIL}(?:\\\\{0,7}["'\`])?\\]?[ \\t]{0,8}[=:])()`,
  handle: (text, m, _cap, spans) => fromSeparator(text, m.index, spans),
  keyed: true,
};

// Top-level alternatives, one per anchor character. Everything after the
// character only runs where that character occurs.
const ANCHORS: Array<[string, Branch[]]> = [
  [
    "_",
    [
      {
        src:
          `(?<=${NOT_WORD}(gh[pousr]|glc|glsa|whsec|hf|npm|ntn|lin|shp(?:at|ss|ca|pa)|dckr|sntry[su]|sbp?|sgp|vc[pikar]|nf[pc]|` +
          "pscale|rnd|bkua|CCIP(?:AT|RJ)|sq[upa]|gsk|r8|fw|pcsk|lsv2|tfp|figd|re|ops|pnu|rubygems|aio|rdme|napi|shippo|duffel|" +
          "fm(?:1[ar]|2)|access)_)",
        handle: "prefix",
      },
      { src: `(?<=${NOT_WORD}(github)_)(?=pat_)`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}([sr]k)_)(?=live_|test_|[a-f0-9]{48})`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}(api)_)(?=org_)`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}(do[por])_)(?=v1_)`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}(secret)_)(?=[A-Za-z0-9]{43}(?![A-Za-z0-9]))`, handle: "prefix" },
      // `aws configure set aws_secret_access_key V`, `npm config set //host/:_authToken V`.
      {
        src: String.raw`(?<=(access|session|:)_)(?=(?:key|token|authToken|auth|password)[ \t]+[^\s=])`,
        handle: spacedKey,
        keyed: true,
      },
    ],
  ],
  [
    "-",
    [
      {
        src:
          "(?<=(?<![A-Za-z0-9_-])(gl(?:pat|dt|ptt|rt|cbt|imt|oas|ft|soat|agent|ffct|wt)|xox[abposre]|xapp|sk|" +
          "GOCSPX|pypi|PMAK|NR(?:AK|II)|pul|sq0(?:atp|csp)|AGE|xai|pplx|HRKU|CFPAT|tskey|FLWSECK|Private)-)",
        handle: "prefix",
      },
      { src: "(?<=(?<![A-Za-z0-9_-])(key)-)(?=[0-9a-f]{32})", handle: "prefix" },
      { src: "(?=(----BEGIN) )", handle: "at" },
      // Long options (`--token x`), and `-p` / `-u` for the mysql and curl special cases.
      {
        src: String.raw`(?<=(?:^|[\s"']|\\[nrt])-)(?=(-[A-Za-z]|[a-z]{3,30}(?=[ \t=])|p[^\s\\-]|[puab][ \t=]|S[ \t]|[gU]?x[ \t]))`,
        handle: dashOption,
        keyed: true,
      },
    ],
  ],
  [
    "\\.",
    [
      {
        src: String.raw`(?<=(?<![A-Za-z0-9_.-])(ya29|SG|dp|hv[sbr]|xoxe|hooks|sk|st|sl|dt0c01|pat[A-Za-z0-9]{14})\.)`,
        handle: "prefix",
      },
      // `.eyJ` is the second segment of a JWT; `.atlasv1.` the middle of a Terraform token.
      { src: String.raw`(?=(eyJ|atlasv1\.))`, handle: jwtOrTerraform },
      {
        src: String.raw`(?<=(?<![A-Za-z0-9_-])([MNO][A-Za-z0-9_-]{23,27})\.)`,
        handle: (text, m, cap, spans) =>
          push(spans, tryRule(DISCORD, text, m.index - cap.length), m.index + 1),
      },
    ],
  ],
  [
    "[=:]",
    [
      { src: "(?<=(?:[?&]sig|X-Amz-Signature)=)()", handle: signatureParam },
      // After a separator: kubeconfig's `client-key-data: LS0t...` and other base64-wrapped key files,
      // or the port field of a .pgpass line.
      {
        src: String.raw`(?=([ \t]*\\{0,7}["']?(?:LS0tLS1CRUdJTi|ewogICJ|eyJ)[A-Za-z0-9+/]{200}|(?<=:)APA91b[A-Za-z0-9_-]{100}|(?<=:)(?:[0-9]{2,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:[^\s:]))`,
        handle: afterSeparator,
      },
      // URLs only matter when their authority holds an '@'.
      {
        src:
          String.raw`(?<=:)(?=(\/\/[^\s/@"'<>\\` + "`" + "]{0,1024}@|AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])))",
        handle: colonUrlOrTelegram,
      },
      KEYED,
    ],
  ],
  [
    "\\/",
    [
      { src: String.raw`(?<=(?<![A-Za-z0-9_/:.-])(1)\/)(?=\/0)`, handle: "prefix" },
      {
        src: String.raw`(?<=\/api(?:\/v[0-9]{1,2})?\/webhooks\/)(?=([0-9]{17,20})\/)`,
        handle: (text, m, _cap, spans) =>
          push(spans, tryRule(DISCORD_WEBHOOK, text, m.index + 1), m.index + 1),
      },
    ],
  ],
  // Letters that begin a provider token with no punctuation of its own.
  ["A", [{ src: "(?=(KIA|SIA|BIA|CCA|Iza|TATT|TBB|TCTT|KCp|ZDO))", handle: "at" }]],
  // The payload of a base64-wrapped key file: `echo "eyJ0eXBl..." | base64 -d`.
  [
    "J",
    [
      {
        src: "(?<=(?<![A-Za-z0-9+/._-])eyJ)(?=[A-Za-z0-9+/]{200})()",
        handle: (t, m, _c, sp) => encodedKey(t, m, "eyJ", sp),
      },
    ],
  ],
  // `</password>` closes an XML element that holds a secret.
  [
    "<",
    [
      {
        src: String.raw`(?=(\/)(?:[A-Za-z][\w.-]{0,60}:)?[\w.-]{0,60}(?:[Pp]ass(?:word|wd|phrase)?|PASSWORD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Kk]ey|KEY)>)`,
        handle: xmlElement,
        keyed: true,
      },
    ],
  ],
  [
    "~",
    [
      {
        src: "(?=[A-Za-z0-9_.~-]{31})(?<=(?<![A-Za-z0-9_.~-])[A-Za-z0-9_.~-]{3}[0-9]Q~)()",
        handle: backFrom(AZURE_AD_SECRET, 5),
      },
    ],
  ],
  ["S", [{ src: "(?=(K)[0-9a-f]{32})", handle: "at" }]],
  ["E", [{ src: "(?=(AAA))", handle: "at" }]],
  ["d", [{ src: "(?=(api)[a-f0-9]{32})", handle: "at" }]],
  ["[Bb]", [{ src: String.raw`(?=(earer|asic|EARER|ASIC)[ \t])`, handle: "at" }]],
];

const BRANCHES: Branch[] = ANCHORS.flatMap(([, bs]) => bs);
const MASTER = new RegExp(
  escapeAware(ANCHORS.map(([c, bs]) => `${c}(?:${bs.map((b) => b.src).join("|")})`).join("|")),
  "g",
);

function isB64UrlCode(c: number): boolean {
  return isUpper(c) || isLower(c) || isDigit(c) || c === 95 || c === 45;
}

/**
 * The shell word starting at or after `from` (quotes stripped), pushed as a
 * password unless it is a placeholder or the next flag. Returns where to resume.
 */
function argumentValue(text: string, from: number, spans: Span[], kind = "password"): number {
  let p = from;
  const n = text.length;
  while (p < n && isBlank(text.charCodeAt(p))) p++;
  let q = text.charCodeAt(p);
  if (q === 92 && isQuote(text.charCodeAt(p + 1))) q = text.charCodeAt(++p);
  const quoted = q === 34 || q === 39;
  const vs = quoted ? p + 1 : p;
  let ve = vs;
  const limit = Math.min(n, vs + MAX_VALUE);
  while (ve < limit) {
    const ch = text.charCodeAt(ve);
    if (
      quoted
        ? ch === q || ch === 10 || ch === 92
        : ch <= 32 || ch === 34 || ch === 39 || ch === 92 || ch === 59
    )
      break;
    ve++;
  }
  const v = text.slice(vs, ve);
  if (v.length === 0 || text.charCodeAt(vs) === 45 || isPlaceholder(v)) return from;
  spans.push({ s: vs, e: ve, kind, p: 1 });
  return ve;
}

/** A .netrc entry (`machine h login u password SECRET`) starting after the line break at `at`. */
const NETRC_ENTRY =
  /(?:\\n|\n|")?[ \t]*(?:machine[ \t]+[^\s\\]+|default)(?:(?:\s|\\n)+(?:login|account|port)[ \t]+[^\s\\]+)*(?:\s|\\n)+password[ \t]+/y;

const NETRC_START = /(?:^|\n|\\n|")[ \t]*(?:machine|default)[ \t]/g;

function netrcEntries(text: string, spans: Span[]): void {
  NETRC_START.lastIndex = 0;
  for (let m = NETRC_START.exec(text); m !== null; m = NETRC_START.exec(text)) {
    NETRC_ENTRY.lastIndex = m.index;
    if (NETRC_ENTRY.test(text))
      NETRC_START.lastIndex = Math.max(argumentValue(text, NETRC_ENTRY.lastIndex, spans), m.index + 1);
  }
}

/**
 * `aws configure set aws_secret_access_key SECRET`, `npm config set //host/:_authToken SECRET`,
 * `rclone config create s3 s3 secret_access_key SECRET`: a key, a blank, the value. `at` is an
 * underscore inside the key.
 */
function spacedKey(text: string, m: RegExpExecArray, _cap: string, spans: Span[]): number {
  const at = m.index;
  let ks = at;
  while (ks > 0 && ks > at - 64 && /[A-Za-z0-9_]/.test(text[ks - 1] as string)) ks--;
  let ke = at;
  while (ke < text.length && /[A-Za-z0-9_]/.test(text[ke] as string)) ke++;
  const kind = keyKind(text.slice(ks, ke));
  if (kind === null || !/\bconfig(?:ure)?[ \t]/.test(lineBefore(text, ks))) return at + 1;
  return Math.max(argumentValue(text, ke, spans, kind), at + 1);
}

const MAX_XML_VALUE = 1024;

/** `<password>SECRET</password>` (Maven settings.xml and other XML config); `at` is the closing tag. */
function xmlElement(text: string, m: RegExpExecArray, _cap: string, spans: Span[]): number {
  const at = m.index;
  const gt = text.indexOf(">", at);
  const tag = text.slice(at + 2, gt);
  const kind = keyKind(tag.slice(tag.lastIndexOf(":") + 1));
  if (kind === null) return at + 1;
  // The opening tag is looked for in a bounded window: a text of a thousand closing tags stays linear.
  const from = Math.max(0, at - MAX_XML_VALUE);
  const rel = text.slice(from, at).lastIndexOf(`<${tag}>`);
  if (rel < 0) return at + 1;
  const open = from + rel;
  const vs = open + tag.length + 2;
  const v = text.slice(vs, at);
  if (vs >= at || v.includes("\n") || v.includes("<") || isPlaceholder(v.trim())) return at + 1;
  spans.push({ s: vs, e: at, kind, p: 1 });
  return gt;
}

// `{"key": "token", "value": ...}` (Postman), `<add key="ClearTextPassword" value="..." />` (NuGet),
// `- name: API_TOKEN` + `value: ...` (Kubernetes env): the secret's name sits in a sibling field.
const NAMED_PAIR =
  /(?:^|[\s{,"'])(?:key|name)\\{0,7}["']?[ \t]*[:=][ \t]*\\{0,7}["']([A-Za-z0-9_.:/-]{1,80})\\{0,7}["'][^\n:=]{0,40}?[\s,{]\\{0,7}["']?value\\{0,7}["']?[ \t]*$|(?:^|\s)name:[ \t]*["']?([A-Za-z0-9_.-]{1,80})["']?[ \t]*\r?\n[ \t]*value[ \t]*$/;

// `echo SECRET | docker login -u bot --password-stdin`: the secret is the echoed word.
const PIPED_SECRET =
  /(?:^|[\s;&("'`])(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?(["']?)([^\s'"|\\$]{4,512})\1[ \t]*\|[^|\n]*$/d;

function pipedPassword(text: string, ks: number, spans: Span[], miss: number): number {
  const line = lineBefore(text, ks);
  const m = PIPED_SECRET.exec(line);
  const g = m?.indices?.[2];
  if (m === null || g === undefined || isPlaceholder(m[2] as string)) return miss;
  const base = ks - line.length;
  spans.push({ s: base + g[0], e: base + g[1], kind: "password", p: 1 });
  return miss;
}

/** A `value` key at [ks, ke) whose sibling `key` / `name` field names a secret. */
function namedValue(text: string, ks: number, ke: number, spans: Span[]): number {
  let e = ke;
  while (e < text.length && e < ke + 16 && (text.charCodeAt(e) === 92 || isQuote(text.charCodeAt(e)))) e++;
  const pm = NAMED_PAIR.exec(text.slice(Math.max(0, ks - 220), e));
  const name = pm?.[1] ?? pm?.[2];
  const kind = name === undefined ? null : keyKind(name.replace(/^.*[:/]/, ""));
  if (kind === null) return ke;
  return assignment(text, ks, ke, spans, kind);
}

// host:port:database:user:password, the whole line (or an echo of it).
const PGPASS_LINE =
  /[ \t]*(?:echo[ \t]+["']?)?[A-Za-z0-9_.*[\]-]{1,253}:(?:[0-9]{2,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:((?:\\:|[^\s:"'])+)(?=["']|[ \t]*(?:\r?\n|$|>))/dy;

function pgpassLine(text: string, m: RegExpExecArray, _cap: string, spans: Span[]): number {
  const at = m.index;
  let ls = at;
  while (ls > 0 && ls > at - 300 && text.charCodeAt(ls - 1) !== 10) ls--;
  PGPASS_LINE.lastIndex = ls;
  const pm = PGPASS_LINE.exec(text);
  const g = pm?.indices?.[1];
  if (pm === null || g === undefined || text.indexOf(":", ls) !== at) return at + 1;
  const v = text.slice(g[0], g[1]);
  if (v.length < 6 || isPlaceholder(v)) return at + 1;
  spans.push({ s: g[0], e: g[1], kind: "password", p: 1 });
  return g[1];
}

function afterSeparator(text: string, m: RegExpExecArray, cap: string, spans: Span[]): number {
  const c = cap.charCodeAt(0);
  if (isDigit(c) || c === 42) return pgpassLine(text, m, cap, spans);
  if (cap.startsWith("APA91b")) return push(spans, tryRule(FCM_KEY, text, m.index - 11), m.index + 1);
  const prefix = /LS0t|ewog|eyJ/.exec(cap)?.[0] ?? "";
  return encodedKey(text, m, prefix, spans);
}

function isB64Code(c: number): boolean {
  return isUpper(c) || isLower(c) || isDigit(c) || c === 43 || c === 47;
}

/**
 * A base64 run that decodes to a private key (kubeconfig `client-key-data`) or
 * to a service-account key file (`GOOGLE_CREDENTIALS=ewog...`).
 */
function encodedKey(text: string, m: RegExpExecArray, cap: string, spans: Span[]): number {
  // From a separator (`client-key-data: LS0t...`) the run starts at the first occurrence of its prefix.
  const at = text.indexOf(cap, Math.max(0, m.index - 2));
  let e = at;
  const limit = Math.min(text.length, at + 65536);
  while (e < limit && isB64Code(text.charCodeAt(e))) e++;
  while (e < limit && text.charCodeAt(e) === 61) e++;
  const head = decodeB64(text.slice(at, Math.min(e, at + 4096)).replace(/=+$/, ""), false);
  const pem = head.startsWith("-----BEGIN ") && /PRIVATE KEY/.test(head.slice(0, 60));
  if (!pem && !/"private_key"|"client_secret"|"refresh_token"/.test(head)) return at + 1;
  spans.push({ s: at, e, kind: pem ? "private_key" : "service_account_key", p: 2 });
  return e;
}

// ---------------------------------------------------------------------------
// Split secrets: a token cut into pieces that only a reader joins, such as
// `"ghp_abc" + "def"`, implicit concatenation, JSON arrays of parts, stream
// deltas, wrapped terminal lines and shell variables joined later.
//
// Joining is only attempted where a provider prefix was found and its token
// either failed its rule (too short) or ended right at a seam. Each attempt
// reads a bounded window after the prefix, so the scan stays linear.
// ---------------------------------------------------------------------------

const MAX_PIECES = 12;
const MAX_JOINED = 1200;
// Closing quote, an optional concatenation operator (also across a line break), opening quote.
const CONCAT_SEAM =
  /\\{0,3}["'`][ \t]*(?:[+.&,]|\|\||<<)?[ \t]*(?:\\?\r?\n[ \t]*(?:(?:[+.&]|\|\|)[ \t]*)?)?\\{0,3}["'`]/y;
// A wrapped terminal line: the break, then indentation or a box-drawing border.
const WRAP_SEAM = /[ \t]*(?:\\\r?\n|\r?\n|\\n)[ \t│┃|>]*/y;
const DELTA_KEY = /"([A-Za-z_]{1,24})"[ \t]*:[ \t]*"$/;

function isPieceCode(c: number): boolean {
  return (
    isUpper(c) ||
    isLower(c) ||
    isDigit(c) ||
    c === 95 ||
    c === 45 ||
    c === 46 ||
    c === 43 ||
    c === 47 ||
    c === 61 ||
    c === 126
  );
}

function pieceEnd(text: string, from: number): number {
  let e = from;
  const limit = Math.min(text.length, from + MAX_JOINED);
  while (e < limit && isPieceCode(text.charCodeAt(e))) e++;
  return e;
}

/**
 * Where the next piece starts after the seam at `pos`, or -1. `key` is the JSON key of the first
 * piece. A line break is a seam only before a piece that looks generated: prose goes on after one.
 */
function nextPiece(text: string, pos: number, key: string | undefined): number {
  CONCAT_SEAM.lastIndex = pos;
  if (CONCAT_SEAM.test(text)) return CONCAT_SEAM.lastIndex;
  if (key !== undefined && text.charCodeAt(pos) === 34) {
    // A stream delta: the next event's value under the same key.
    const i = text.indexOf(`"${key}":"`, pos);
    if (i > 0 && i - pos < 400) return i + key.length + 4;
  }
  WRAP_SEAM.lastIndex = pos;
  if (WRAP_SEAM.test(text) && WRAP_SEAM.lastIndex > pos) {
    const ns = WRAP_SEAM.lastIndex;
    if (looksGenerated(text.slice(ns, pieceEnd(text, ns)))) return ns;
  }
  return -1;
}

function looksGenerated(piece: string): boolean {
  if (piece.length < 6) return false;
  return (
    keyLike(piece) || (hasDigit(piece) && /[A-Za-z]/.test(piece)) || (piece.length >= 8 && mixedCase(piece))
  );
}

interface Piece {
  s: number;
  e: number;
}

/**
 * Joins the pieces that start at `start` and retries `rules` on the joined text.
 * Pushes one span per piece the token covers; returns where the scan resumes, or -1.
 */
function joinPieces(
  rules: Rule[] | undefined,
  text: string,
  start: number,
  spans: Span[],
  first?: Span,
): number {
  if (rules === undefined) return -1;
  const e0 = pieceEnd(text, start);
  if (first !== undefined && first.e !== e0) return -1;
  // Only a quote, a line break or a line-continuation backslash can start a seam.
  const c = text.charCodeAt(e0);
  if (!(isQuote(c) || c === 92 || c === 10 || c === 13 || c === 32 || c === 9)) return -1;
  const key = DELTA_KEY.exec(text.slice(Math.max(0, start - 40), start))?.[1];
  const pieces: Piece[] = [{ s: start, e: e0 }];
  let joined = text.slice(start, e0);
  let pos = e0;
  while (pieces.length < MAX_PIECES && joined.length < MAX_JOINED) {
    const ns = nextPiece(text, pos, key);
    if (ns < 0) break;
    const ne = pieceEnd(text, ns);
    // After a token that is whole by itself, only a generated-looking piece can continue it.
    if (ne === ns || (first !== undefined && !looksGenerated(text.slice(ns, ne)))) break;
    pieces.push({ s: ns, e: ne });
    joined += text.slice(ns, ne);
    pos = ne;
  }
  if (pieces.length < 2) return -1;
  for (const r of rules) {
    const hit = tryRule(r, joined, 0);
    if (hit === null || hit.e <= (pieces[0] as Piece).e - start) continue;
    // Map the joined span back onto the pieces it covers.
    let off = 0;
    let end = -1;
    for (const pc of pieces) {
      const len = pc.e - pc.s;
      const s = Math.max(hit.s, off);
      const e = Math.min(hit.e, off + len);
      if (s < e) {
        spans.push({ s: pc.s + s - off, e: pc.s + e - off, kind: r.kind, p: 2 });
        end = pc.s + e - off;
      }
      off += len;
    }
    return end;
  }
  return -1;
}

/** `P1=ghp_abc; P2=def; TOKEN="$P1$P2"`: the variable holding a prefix is later joined with another. */
function joinShellVars(rules: Rule[] | undefined, text: string, start: number, spans: Span[]): number {
  if (rules === undefined) return -1;
  const name = /(?:^|[\s;])([A-Za-z_][A-Za-z0-9_]{0,40})=["']?$/.exec(
    text.slice(Math.max(0, start - 48), start),
  )?.[1];
  if (name === undefined) return -1;
  const e0 = pieceEnd(text, start);
  const window = text.slice(e0, e0 + 600);
  // `$A$B`, `${A}${B}`: the variable is read right before another one.
  let r = window.indexOf(`$${name}$`);
  if (r < 0) r = window.indexOf(`\${${name}}$`);
  if (r < 0) return -1;
  const other = /^\$\{?([A-Za-z_][A-Za-z0-9_]{0,40})/.exec(window.slice(window.indexOf("$", r + 1)))?.[1];
  if (other === undefined) return -1;
  let d = window.indexOf(`${other}=`);
  while (d > 0 && !/[\s;]/.test(window[d - 1] as string)) d = window.indexOf(`${other}=`, d + 1);
  if (d < 0) return -1;
  let s2 = e0 + d + other.length + 1;
  if (isQuote(text.charCodeAt(s2))) s2++;
  const e2 = pieceEnd(text, s2);
  const joined = text.slice(start, e0) + text.slice(s2, e2);
  for (const r of rules) {
    const hit = tryRule(r, joined, 0);
    if (hit === null || hit.e <= e0 - start) continue;
    spans.push({ s: start, e: e0, kind: r.kind, p: 2 }, { s: s2, e: e2, kind: r.kind, p: 2 });
    return e0;
  }
  return -1;
}

/** A provider prefix at `start`: its rule, or failing that the pieces it was split into. */
function prefixed(
  rules: Rule[] | undefined,
  text: string,
  start: number,
  spans: Span[],
  miss: number,
): number {
  const hit = tryRules(rules, text, start);
  if (hit !== null) {
    // A whole-looking token may still be the first part of a longer one split at a seam.
    const joined =
      hit.e < text.length && !isPieceCode(text.charCodeAt(hit.e))
        ? joinPieces(rules, text, start, spans, hit)
        : -1;
    if (joined >= 0) return joined;
    spans.push(hit);
    return hit.e;
  }
  const joined = joinPieces(rules, text, start, spans);
  if (joined >= 0) return joined;
  const shell = joinShellVars(rules, text, start, spans);
  return shell >= 0 ? shell : miss;
}

// ---------------------------------------------------------------------------
// Kubernetes Secrets: every value under `data:` / `stringData:` is a secret,
// whatever its key is called (`stripe-key`, `tls.key`, `config.json`).
// ---------------------------------------------------------------------------

const K8S_SECRET = /\bkind\\{0,3}["']?[ \t]*:[ \t]*\\{0,3}["']?Secret\b/;
const K8S_DATA_YAML = /^([ \t]*)(?:data|stringData):[ \t]*\r?$/gm;
const K8S_DATA_JSON = /"(?:data|stringData)"[ \t]*:[ \t]*\{/g;

function k8sSecretSpans(text: string, spans: Span[]): void {
  if (!K8S_SECRET.test(text)) return;
  K8S_DATA_YAML.lastIndex = 0;
  for (let dm = K8S_DATA_YAML.exec(text); dm !== null; dm = K8S_DATA_YAML.exec(text)) {
    const indent = (dm[1] as string).length;
    let pos = dm.index + dm[0].length + 1;
    while (pos < text.length) {
      let le = text.indexOf("\n", pos);
      if (le < 0) le = text.length;
      const line = text.slice(pos, le);
      const lm = /^([ \t]*)[A-Za-z0-9_.-]+:[ \t]*["']?([^\s"'|>][^\s"']*)/.exec(line);
      if (lm === null || (lm[1] as string).length <= indent) break;
      const v = lm[2] as string;
      if (!isPlaceholder(v)) {
        const vs = pos + lm[0].length - v.length;
        spans.push({ s: vs, e: vs + v.length, kind: "kubernetes_secret", p: 1 });
      }
      pos = le + 1;
    }
  }
  K8S_DATA_JSON.lastIndex = 0;
  for (let dm = K8S_DATA_JSON.exec(text); dm !== null; dm = K8S_DATA_JSON.exec(text)) {
    const end = text.indexOf("}", dm.index);
    const body = text.slice(dm.index + dm[0].length, end < 0 ? text.length : end);
    const base = dm.index + dm[0].length;
    for (const vm of body.matchAll(/"[^"]{1,253}"[ \t]*:[ \t]*"([^"]{1,65536})"/g)) {
      const v = vm[1] as string;
      if (isPlaceholder(v)) continue;
      const vs = base + (vm.index as number) + vm[0].length - v.length - 1;
      spans.push({ s: vs, e: vs + v.length, kind: "kubernetes_secret", p: 1 });
    }
  }
}

function push(spans: Span[], hit: Span | null, miss: number, resume?: number): number {
  if (hit === null) return miss;
  spans.push(hit);
  return resume ?? hit.e;
}

// ---------------------------------------------------------------------------
// Key-based text rules: `KEY=value`, `key: value`, `"key": "value"`, `--key value`
// ---------------------------------------------------------------------------

const MAX_KEY = 64;
const MAX_VALUE = 4096;
const SEP_EQ = 1;
const SEP_COLON = 2;
const SEP_FLAG = 3;
const LINE_PREFIX = /^[ \t]*(?:(?:export|declare(?: -[a-zA-Z]+)?|readonly|local|set|ENV|ARG|-)[ \t]+)?$/;
const AUTH_SCHEME =
  /^(?:Bearer|Basic|Token|Bot|Digest|Negotiate|NTLM|OAuth|ApiKey|Key|SSWS|AWS4-HMAC-SHA256|Splunk|GenieKey|DeepL-Auth-Key|Klaviyo-API-Key)[ \t]+/i;

// Where an unquoted value in running code or a query string ends.
const VALUE_STOP = charTable("\"'`,;&)]}<>");
// What may follow a complete value on its line: end of line, a comment, or a closing delimiter.
const VALUE_TAIL = charTable("\n\r#,;}])\\/");

/** Whether `text[i]` is the letter of a `\n` / `\r` / `\t` escape in JSON-encoded text. */
function escapedLetterAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c === 110 || c === 114 || c === 116) && text.charCodeAt(i - 1) === 92;
}

function isKeyCode(c: number): boolean {
  return isUpper(c) || isLower(c) || isDigit(c) || c === 95 || c === 45 || c === 46;
}
function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}
function isQuote(c: number): boolean {
  return c === 34 || c === 39 || c === 96;
}

/** Whether only whitespace or a shell/Dockerfile/YAML-list prefix precedes `pos` on its line. */
function atLineStart(text: string, pos: number): boolean {
  const min = Math.max(0, pos - 40);
  let i = pos;
  while (i > min) {
    const c = text.charCodeAt(i - 1);
    if (c === 10 || c === 13) break;
    // A JSON-escaped newline counts as a line break.
    if (c === 110 && i >= 2 && text.charCodeAt(i - 2) === 92) break;
    i--;
  }
  if (i === min && min > 0) return false;
  return LINE_PREFIX.test(text.slice(i, pos));
}

/** A secret-ish word ends right before the `=` / `:` at `sp`: find the whole key, then parse. */
function fromSeparator(text: string, sp: number, spans: Span[], kindOverride?: string): number {
  let ke = sp;
  while (ke > 0 && isBlank(text.charCodeAt(ke - 1))) ke--;
  if (text.charCodeAt(ke - 1) === 93 /* ] */) ke--;
  if (isQuote(text.charCodeAt(ke - 1))) {
    ke--;
    while (text.charCodeAt(ke - 1) === 92) ke--;
  }
  let ks = ke;
  const min = Math.max(0, ke - MAX_KEY);
  // Stop at an escaped letter: in `\nDB_PASSWORD=` the key starts after the `\n`.
  while (ks > min && isKeyCode(text.charCodeAt(ks - 1)) && text.charCodeAt(ks - 2) !== 92) ks--;
  // A "key" longer than any real name is a base64 run or similar.
  if (ks === ke || (ks === min && ks > 0 && isKeyCode(text.charCodeAt(ks - 1)))) return sp + 1;
  return Math.max(assignment(text, ks, ke, spans, kindOverride), sp + 1);
}

const PHP_ASSIGN = /^[ \t]*=[^=~>]/;
const WRAPPER =
  /^(?:String::from|String::new|SecretString::(?:new|from)|Secret::new|SecretStr|SecretString|SecureString|Some|String|str|Secret)\([ \t]*(?=["'])/;
const ENV_KEY_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_KEY$/;
const NOT_SECRET_KEY_NAME =
  /(?:PUBLIC|PUBLISHABLE|PRIMARY|SORT|PARTITION|CACHE|FOREIGN|IDEMPOTENCY|OBJECT|S3|HOT|SHORTCUT|SSH_PUB|GPG|PGP|SITE|MAP)_KEY$/;
const WEAK_KEY = "weak:secret_key";

/**
 * A kind that the surroundings give a key that is not secret-ish by itself:
 * `?key=` in a query string (Google Maps and others), `gh secret set NAME --body VALUE`.
 */
function contextKind(text: string, ks: number, key: string, before: number): string | null {
  if (key === "key" && (before === 63 || before === 38)) return "api_key";
  // `STRIPE_KEY=...`, `MAPS_KEY=...`: an environment variable named for a key holds one,
  // when the value looks generated (checked once the value is known).
  if (ENV_KEY_NAME.test(key) && !NOT_SECRET_KEY_NAME.test(key)) return WEAK_KEY;
  if (key === "--body" || key === "body") {
    if (
      /\bsecret set [A-Za-z0-9_-]+[ \t]+(?:--[a-z-]+(?:[ =][^\s-]\S*)?[ \t]+)*--$/.test(
        lineBefore(text, ks + 2),
      )
    )
      return "secret";
  }
  return null;
}

/** One `<key><sep><value>` site under inspection. */
interface Site {
  text: string;
  ks: number;
  key: string;
  kind: string;
  sep: number;
  /** The quote (with any escaping backslashes) that opened right before the key, if any. */
  q0: string;
  /** The key's own quotes closed after it: `"password": ...`. */
  keyQuoted: boolean;
  spaceBefore: boolean;
  spaceAfter: boolean;
  /** Start of the value. */
  p: number;
}

/**
 * Parses `<key><sep><value>` for the key at [ks, ke). Pushes the value span when
 * the key is secret-ish and the value a literal; returns where scanning resumes.
 */
function assignment(text: string, ks: number, ke: number, spans: Span[], kindOverride?: string): number {
  const n = text.length;
  const before = ks > 0 ? text.charCodeAt(ks - 1) : -1;
  // `$KEY` and `${KEY...}` read a variable in a shell; `$key = '...'` assigns one in PHP, Perl and PowerShell.
  if (before === 123 && ks > 1 && text.charCodeAt(ks - 2) === 36) return ke;
  if (before === 36 && !PHP_ASSIGN.test(text.slice(ke, ke + 4))) return ke;

  let dashes = 0;
  while (dashes < 2 && text.charCodeAt(ks + dashes) === 45) dashes++;
  const flag =
    dashes > 0 &&
    (before === -1 || isBlank(before) || before === 10 || isQuote(before) || escapedLetterAt(text, ks - 1));

  // The quote before the key, with the backslashes of however many JSON encodings wrap it.
  let q0 = "";
  if (isQuote(before)) {
    let qs = ks - 1;
    while (qs > 0 && ks - qs < 16 && text.charCodeAt(qs - 1) === 92) qs--;
    q0 = text.slice(qs, ks);
  }
  let p = ke;
  let keyQuoted = false;
  if (q0 && text.startsWith(q0, p)) {
    p += q0.length;
    keyQuoted = true;
    // os.environ["API_KEY"] = ...
    if (text.charCodeAt(p) === 93) p++;
  }
  const p0 = p;
  while (p < n && isBlank(text.charCodeAt(p))) p++;
  const spaceBefore = p > p0;
  let sep: number;
  const c = text.charCodeAt(p);
  const c2 = text.charCodeAt(p + 1);
  if (c === 61) {
    if (c2 === 61) return ke; // comparison
    sep = SEP_EQ;
    p += c2 === 62 ? 2 : 1;
  } else if (c === 58) {
    if (c2 === 58) return ke; // scope operator
    sep = c2 === 61 ? SEP_EQ : SEP_COLON;
    p += c2 === 61 ? 2 : 1;
  } else if (flag && spaceBefore && !keyQuoted) {
    // `--with-token        Read token from stdin`: help text aligns a description column.
    if (p - p0 >= 2) return ke;
    sep = SEP_FLAG;
  } else {
    return ke;
  }
  if (flag && sep === SEP_EQ && !spaceBefore) sep = SEP_FLAG;

  const key = text.slice(ks + dashes, ke);
  const kind =
    kindOverride ??
    (key === "AccountKey" ? "azure_storage_key" : (keyKind(key) ?? contextKind(text, ks, key, before)));
  if (kind === null) {
    if (key === "value" || key === "VALUE") return namedValue(text, ks, ke, spans);
    return ke;
  }

  const p1 = p;
  while (p < n && isBlank(text.charCodeAt(p))) p++;
  if (p >= n) return ke;
  // `'password:', password`: the string that held the key closed right after the separator.
  if (q0 && !keyQuoted && text.startsWith(q0, p)) return ke;

  // `<your token>`: a placeholder, also when it holds spaces.
  if (text.charCodeAt(p) === 60 && /^<[^<>\n]{1,80}>/.test(text.slice(p, p + 82))) return ke;
  // `String::from("..")`, `SecretStr("..")`, `Some("..")`: a literal in a wrapper is still the literal.
  const wrapped = WRAPPER.exec(text.slice(p, p + 40));
  if (wrapped !== null) p += wrapped[0].length;
  const site: Site = { text, ks, key, kind, sep, q0, keyQuoted, spaceBefore, spaceAfter: p > p1, p };
  let bs = p;
  while (bs < n && bs - p < 16 && text.charCodeAt(bs) === 92) bs++;
  const quote = text.charCodeAt(bs);
  const quoted = isQuote(quote);
  const range = quoted ? quotedValue(site, bs) : unquotedValue(site);
  if (range === null) return ke;
  let [vs, ve] = range;

  if (kind === "authorization") {
    const m = AUTH_SCHEME.exec(text.slice(vs, Math.min(ve, vs + 40)));
    if (m) vs += m[0].length;
  }
  // openssl's `-passout pass:SECRET`; `env:VAR` and `file:path` only say where the secret is.
  if (sep === SEP_FLAG || sep === SEP_EQ) {
    if (text.startsWith("pass:", vs)) vs += 5;
    else if (/^(?:env|file|fd):/.test(text.slice(vs, vs + 5))) return ke;
  }
  const value = text.slice(vs, ve);
  if (!isLiteral(site, value, quoted ? quote : -1, ve)) return ke;
  if (kind === WEAK_KEY && !(value.length >= 16 && looksGenerated(value))) return ke;
  // `-passin val           Private key password source`: a help text's option column.
  if (sep === SEP_FLAG && /^[ \t]{2,}[A-Z][a-z]/.test(text.slice(ve, ve + 40))) return ke;
  if (kind === "cookie" && !cookieHoldsSecret(value)) return ke;
  spans.push({ s: vs, e: ve, kind: kind === WEAK_KEY ? "secret_key" : kind, p: 1 });
  // Resume inside the value so a provider token there can claim a better kind, but
  // never parse the value itself for assignments again: that would be quadratic.
  keyedEnd = ve;
  return vs;
}

// Set-Cookie attributes, which carry no secret.
const COOKIE_ATTRS =
  /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned|version|comment)$/i;

/**
 * `Set-Cookie: theme=dark; Path=/` holds no secret: a cookie header is redacted (whole, so
 * nothing of it leaks) only when one of its values looks generated, or it is not `name=value`.
 */
function cookieHoldsSecret(value: string): boolean {
  if (!value.includes("=")) return true;
  for (const part of value.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (!COOKIE_ATTRS.test(name) && (v.length >= 12 || hasDigit(v)) && !isPlaceholder(v)) return true;
  }
  return false;
}

/** The inside of a quoted value whose (possibly escaped) opening quote is at `qAt`. */
function quotedValue(site: Site, qAt: number): [number, number] | null {
  const { text, p } = site;
  const n = text.length;
  const limit = Math.min(n, p + MAX_VALUE);
  const vs = qAt + 1;
  if (qAt > p) {
    // `\"...\"` in JSON-encoded text closes with the same escaped quote.
    const close = text.substring(vs, limit).indexOf(text.slice(p, vs));
    return [vs, close < 0 ? limit : vs + close];
  }
  const q = text.charCodeAt(qAt);
  let i = vs;
  while (i < limit) {
    const ch = text.charCodeAt(i);
    if (ch === 92) i += 2;
    else if (ch === q || ch === 10) break;
    else i++;
  }
  // A "string" that never closes on its line was the END of another string
  // (`print("token=" + repr(x))`). One cut off by the end of the text may be real.
  if (text.charCodeAt(i) === 10) return null;
  return [vs, Math.min(i, limit)];
}

/** The extent of an unquoted value, or null when it reads as code, a type or prose. */
function unquotedValue(site: Site): [number, number] | null {
  const { text, p, sep, kind, key, keyQuoted, spaceBefore, spaceAfter } = site;
  const n = text.length;
  if (sep === SEP_FLAG && text.charCodeAt(p) === 45) return null; // next flag, not a value
  // `authenticity_token=&commit=...`: an empty value in a query string.
  if (text.charCodeAt(p) === 38) return null;
  // Django's generated keys hold ( ) = & $ #: the run up to a blank or quote is the key.
  if (text.startsWith("django-insecure-", p)) {
    let e = p;
    while (e < n && !/[\s"'`\\]/.test(text[e] as string)) e++;
    return [p, e];
  }
  const lineStart = atLineStart(text, site.ks);
  const tight = sep === SEP_EQ && !spaceBefore && !spaceAfter;
  // HTTP header lines carry spaces and `;` in their value; a bare `auth:` is usually code.
  const restOfLine =
    sep === SEP_COLON &&
    spaceAfter &&
    (kind === "cookie" || (kind === "authorization" && !/auth$/i.test(key)));
  const wholeRun = restOfLine || (lineStart && (tight || sep === SEP_COLON));
  const q0c = site.q0 && !keyQuoted ? site.q0.charCodeAt(site.q0.length - 1) : -1;
  const limit = Math.min(n, p + MAX_VALUE);
  const vs = p;
  let i = p;
  for (; i < limit; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 || ch === 13 || ch === q0c) break;
    if (ch === 92) {
      const nx = text.charCodeAt(i + 1);
      if (nx === 110 || nx === 114 || nx === 116 || nx === 34 || nx === 39) break;
      continue;
    }
    if (restOfLine) {
      // ) ] } close the code around the header, a quote the string that holds it.
      if (ch === 41 || ch === 93 || ch === 125 || ch === 34 || ch === 39) break;
      continue;
    }
    if (ch === 32 || ch === 9) break;
    if (wholeRun) continue;
    if (ch < 128 && VALUE_STOP[ch] === 1) break;
  }
  let ve = i;
  // A long run is examined once; anchors inside it would re-scan the same text for each one.
  if (ve - vs >= 512) keyedEnd = ve;
  while (ve > vs && isBlank(text.charCodeAt(ve - 1))) ve--;
  const last = text.charCodeAt(ve - 1);
  // `KEY=value` on its own line is a .env/shell literal, unless it ends like a
  // keyword argument in a call split over lines (`credentials=None,`).
  const envLine = tight && lineStart && last !== 44 && last !== 41;
  // The `,` / `;` that end a line of code or YAML flow are not part of the value.
  while (ve > vs && (text.charCodeAt(ve - 1) === 44 || text.charCodeAt(ve - 1) === 59)) ve--;
  const v = text.slice(vs, ve);
  if (v.length === 0 || CODE_KEYWORDS.has(v)) return null;
  // `key:value` with no space is a namespace or URN ("auth:login", "secret:mocks"), not YAML or a header.
  if (sep === SEP_COLON && !spaceAfter && !keyQuoted) return null;
  // Small numbers in code are enum members and constants (`CommaToken = 28`); a numeric
  // secret is only believed in a config line (`PASSWORD=123456`, `pin: 1234`) or JSON.
  if (HEX_NUMBER.test(v) || DOTTED_NUMBER.test(v)) return null;
  if (DECIMAL.test(v) && (v.length < 4 || (!keyQuoted && !(lineStart && (tight || sep === SEP_COLON))))) {
    return null;
  }
  if (restOfLine && AUTH_SCHEME.test(v)) return [vs, ve];
  if (restOfLine) {
    const first = v.slice(0, v.search(/\s|$/));
    if (CODE_KEYWORDS.has(first) || (isUpper(first.charCodeAt(0)) && IDENT.test(first) && !hasDigit(first))) {
      return null;
    }
  }
  if (envLine || sep === SEP_FLAG) return [vs, ve];
  if (/[([{]/.test(v) || (DOTTED.test(v) && !dottedToken(v)) || v.includes("=>") || GENERIC_TYPE.test(v)) {
    return null;
  }
  // Long runs mixing letters and digits are generated secrets, whatever their shape.
  if (IDENT.test(v) && !(v.length >= 16 && hasDigit(v) && /[A-Za-z]/.test(v))) {
    // `token: accessToken`, `api_key=api_key`: a variable, not a literal.
    if (HUMP_OR_SNAKE.test(v) && SECRET_WORD.test(v)) return null;
    if (v.toLowerCase() === key.toLowerCase()) return null;
    // `token: UUID`, `password: SecretStr`: a type annotation on a field.
    if (sep === SEP_COLON && isUpper(v.charCodeAt(0)) && (!hasDigit(v) || v.length <= 3)) return null;
    // `credentials: kEnumerableProperty,`: a property in an object literal or a statement.
    if (last === 44 || last === 59) return null;
    // `token = element`: an assignment from a variable; a literal password has a digit.
    if (sep === SEP_EQ && !tight && !hasDigit(v)) return null;
    // `{ password: pw }` inline is code; a quote opened before the key and not closed after it
    // holds a header line instead: `-H "X-Api-Key: v"`.
    if (!lineStart && !tight && q0c < 0) return null;
  }
  if (!tight) {
    // More words after the value: prose ("`token`: the API token") or a type expression.
    let r = ve;
    while (r < n && isBlank(text.charCodeAt(r))) r++;
    const rc = text.charCodeAt(r);
    if (r < n && rc !== q0c && !(rc < 128 && VALUE_TAIL[rc] === 1)) return null;
  }
  return [vs, ve];
}

/**
 * `token: ca37f5.e47ff958888f821f` (a kubeadm bootstrap token) is dotted like `config.db.password`,
 * but its segments mix letters and digits the way generated material does.
 */
function dottedToken(v: string): boolean {
  return v.length >= 16 && v.split(".").some((seg) => seg.length >= 6 && hasDigit(seg) && /[a-z]/i.test(seg));
}

/** Checks shared by quoted and unquoted values. `quote` is the quote character, or -1. */
function isLiteral(site: Site, value: string, quote: number, ve: number): boolean {
  const { text, key, sep } = site;
  if (isPlaceholder(value) || DOTTED_NUMBER.test(value) || namesItself(key, value)) return false;
  // `Bearer null`, `"env.API_KEY"`: a keyword or a property path, not a literal secret.
  if (CODE_KEYWORDS.has(value) || QUOTED_ENUMS.has(value) || (DOTTED.test(value) && !dottedToken(value)))
    return false;
  if (quote >= 0) {
    // Backticks run a command in a shell and interpolate in JS; neither with spaces or `${` is a literal.
    if (quote === 96 && (/\s/.test(value) || value.includes("${"))) return false;
    // `type Creds = "include" | "omit"`: a type union.
    let r = ve + 1;
    while (r < text.length && isBlank(text.charCodeAt(r))) r++;
    if (text.charCodeAt(r) === 124 /* | */ || QUOTED_ENUMS.has(value)) return false;
    // "}" or "?." is punctuation in a lexer, not a credential.
    if (!/[A-Za-z0-9]/.test(value)) return false;
  } else if (sep === SEP_FLAG) {
    // `--privkey rsakey.pem`, `--token-file ./t`: a file or host name, not the secret itself.
    if (CODE_KEYWORDS.has(value) || DOTTED.test(value) || /^(?:\.{0,2}\/|~\/)/.test(value)) return false;
    // `--auth` is as often a switch followed by the next argument as an option with a value.
    if (site.spaceBefore && /(?:^|[_.-])auth$/i.test(key)) return false;
  }
  // $PWD and friends hold the working directory, not a password.
  return !(/pwd$/i.test(key) && /^[/~]/.test(value));
}

/**
 * `"js.cookie": "js-cookie"`, `USE_CREDENTIALS = 'use-credentials'`, `auth: auth-and-writes`:
 * a value that spells the key's own word as one of its parts is a name, not a secret.
 */
function namesItself(key: string, value: string): boolean {
  if (value.length > 64) return false;
  const word = splitWords(key).at(-1);
  if (word === undefined) return false;
  const v = value.toLowerCase();
  if (v === key.toLowerCase()) return true;
  for (const part of v.split(/[-_.:/ ]/)) {
    if (part === word || part === `${word}s` || `${part}s` === word) return true;
  }
  return false;
}

// Literal values that secret-ish keys take in APIs: fetch's `credentials`, SMTP auth modes.
const QUOTED_ENUMS = new Set([
  "include",
  "omit",
  "same-origin",
  "none",
  "true",
  "false",
  "null",
  "undefined",
  "nil",
]);

// ---------------------------------------------------------------------------
// Whole-string omission: environment dumps and process tables
// ---------------------------------------------------------------------------

const ENV_LINE = /(?:export |declare -[a-zA-Z]+ |set )?[A-Z_][A-Za-z0-9_]*=/y;
const PS_COLUMN = /^[A-Z%][A-Z0-9%_+:-]*$/;
const PS_COMMAND = new Set(["COMMAND", "CMD", "COMM", "ARGS"]);

function isEnvironmentDump(text: string): boolean {
  // Cheap reject first: a dump shows its NAME=value lines from the start (after a header or two).
  let seen = 0;
  let good = 0;
  for (let from = 0; from < text.length && seen < 10; ) {
    let nl = text.indexOf("\n", from);
    if (nl < 0) nl = text.length;
    if (nl - from > 1 || (nl - from === 1 && text.charCodeAt(from) !== 13)) {
      seen++;
      ENV_LINE.lastIndex = from;
      if (ENV_LINE.test(text)) good++;
    }
    from = nl + 1;
  }
  if (good < seen - 3 || good < 3) return false;
  const total = nonEmptyLines(text);
  if (total < 5) return false;
  const n = text.length;
  let from = 0;
  const allowedBad = total * 0.2;
  let bad = 0;
  good = 0;
  while (from <= n) {
    let nl = text.indexOf("\n", from);
    if (nl < 0) nl = n;
    if (nl - from > 1 || (nl - from === 1 && text.charCodeAt(from) !== 13)) {
      ENV_LINE.lastIndex = from;
      if (ENV_LINE.test(text)) good++;
      else if (++bad > allowedBad) return false;
    }
    from = nl + 1;
  }
  return good >= 5;
}

function nonEmptyLines(text: string): number {
  let total = 0;
  let from = 0;
  const n = text.length;
  while (from <= n) {
    let nl = text.indexOf("\n", from);
    if (nl < 0) nl = n;
    if (nl - from > 1 || (nl - from === 1 && text.charCodeAt(from) !== 13)) total++;
    from = nl + 1;
  }
  return total;
}

/**
 * A `ps`/`top` header followed by process rows that make up at least half of
 * the text. Two rows quoted inside a long document are an example, not a dump.
 */
function isProcessTable(text: string): boolean {
  let from = 0;
  for (;;) {
    const i = text.indexOf("PID", from);
    if (i < 0) return false;
    const ls = text.lastIndexOf("\n", i) + 1;
    let le = text.indexOf("\n", i);
    if (le < 0) le = text.length;
    from = le;
    if (le - ls > 400) continue;
    const cols = text.slice(ls, le).trim().split(/\s+/);
    const pidAt = cols.indexOf("PID");
    if (pidAt < 0 || cols.length < 2 || !cols.some((c) => PS_COMMAND.has(c))) continue;
    if (!cols.every((c) => PS_COLUMN.test(c))) continue;
    let rows = 0;
    let pos = le + 1;
    while (pos < text.length) {
      let end = text.indexOf("\n", pos);
      if (end < 0) end = text.length;
      const fields = text
        .slice(pos, Math.min(end, pos + 4096))
        .trim()
        .split(/\s+/);
      if (fields.length < cols.length - 1 || !DECIMAL.test(fields[pidAt] ?? "")) break;
      rows++;
      pos = end + 1;
    }
    if (rows > 0 && (rows + 1) * 2 >= nonEmptyLines(text)) return true;
  }
}

function omission(text: string): string | null {
  const nl = text.indexOf("\n");
  if (nl < 0) return null;
  if (text.includes("PID") && isProcessTable(text)) return "process-table";
  if (text.indexOf("=") >= 0 && isEnvironmentDump(text)) return "environment";
  return null;
}

// ---------------------------------------------------------------------------
// Scanning
// ---------------------------------------------------------------------------

const SCRATCH: Span[] = [];
/** End of the last value redacted by key; key/flag anchors before it are already covered. */
let keyedEnd = 0;
/** Per-scan memo for commandBefore. */
const cmdCache: { re: RegExp | null; at: number; found: boolean } = { re: null, at: 0, found: false };

function scan(text: string, withKeys: boolean): Span[] | null {
  const re = MASTER;
  const spans = SCRATCH;
  spans.length = 0;
  re.lastIndex = 0;
  keyedEnd = 0;
  cmdCache.re = null;
  for (;;) {
    const m = re.exec(text);
    if (m === null) break;
    const at = m.index;
    let g = 1;
    while (m[g] === undefined) g++;
    const branch = BRANCHES[g - 1] as Branch;
    const cap = m[g] as string;
    let next: number;
    if (branch.handle === "prefix" || branch.handle === "at") {
      const start = branch.handle === "prefix" ? at - cap.length : at;
      // Airtable's `pat<14 chars>.<64 hex>` is the one prefix that is not a fixed string.
      const rules = BY_PREFIX.get(text[at] + cap) ?? BY_PREFIX.get(text[at] + cap.slice(0, 3));
      next = prefixed(rules, text, start, spans, at + 1);
    } else if (branch.keyed === true && (!withKeys || at < keyedEnd)) {
      next = at + 1;
    } else {
      next = branch.handle(text, m, cap, spans);
    }
    re.lastIndex = next > at ? next : at + 1;
  }
  // One indexOf (several GB/s) keeps the Secret parser off every other text.
  if (withKeys && text.includes("Secret")) k8sSecretSpans(text, spans);
  // A .netrc entry starts a line with a word too common to anchor the master regex on
  // (a newline anchor costs a quarter of the throughput); one indexOf gates the search:
  // "login" is in nearly every entry and skips faster than "machine" (0.2 vs 0.6 ms/MB).
  if (withKeys && text.includes("login")) netrcEntries(text, spans);
  return spans.length > 0 ? spans.slice() : null;
}

/** Sorted, non-overlapping regions: overlapping spans merge, since redacting their union can only hide more. */
function mergeSpans(spans: Span[]): Span[] {
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

function applySpans(text: string, spans: Span[], kinds: string[]): string {
  let out = "";
  let pos = 0;
  for (const r of mergeSpans(spans)) {
    out += text.slice(pos, r.s) + `[REDACTED:${r.kind}]`;
    kinds.push(r.kind);
    pos = r.e;
  }
  return out + text.slice(pos);
}

// ---------------------------------------------------------------------------
// Project rules: extra patterns and allow-listed literals from
// `.tapedeck/redaction.json` (loaded and validated by ./redact/rules-file.ts)
// ---------------------------------------------------------------------------

export interface UserPattern {
  /** Reported as the redaction kind: `[REDACTED:<name>]`. */
  name: string;
  /** A global regex; when it has a group 1, only that group is the secret. */
  re: RegExp;
}

export interface RedactionRules {
  patterns: UserPattern[];
  /** Literal values that are never redacted (a test fixture, a public id). */
  allow: ReadonlySet<string>;
}

// Go and .NET encoders write `"` as `\u0022` (and `=`, `&`, `<`, `>` alike); PHP writes `/` as `\/`.
// Such text is scanned a second time through a decoded view, mapped back onto the original.
const ESCAPED_PUNCT = /\\u00(?:22|27|3[dDaAcCeE]|26)|\\\//g;

function decodedViewSpans(text: string): Span[] | null {
  if (!text.includes("\\u00") && !text.includes(":\\/\\/")) return null;
  const map: number[] = [];
  let view = "";
  let pos = 0;
  ESCAPED_PUNCT.lastIndex = 0;
  for (let m = ESCAPED_PUNCT.exec(text); m !== null; m = ESCAPED_PUNCT.exec(text)) {
    for (let i = pos; i < m.index; i++) map.push(i);
    view += text.slice(pos, m.index);
    map.push(m.index);
    view += m[0] === "\\/" ? "/" : String.fromCharCode(Number.parseInt(m[0].slice(2), 16));
    pos = m.index + m[0].length;
  }
  if (pos === 0) return null;
  for (let i = pos; i < text.length; i++) map.push(i);
  map.push(text.length);
  view += text.slice(pos);
  const spans = scan(view, true);
  if (spans === null) return null;
  return spans.map((sp) => ({ ...sp, s: map[sp.s] as number, e: map[sp.e] as number }));
}

function allSpans(text: string, extra: Span[] | undefined, rules: RedactionRules | undefined): Span[] | null {
  let spans = scan(text, true);
  const decoded = decodedViewSpans(text);
  if (decoded !== null) spans = spans === null ? decoded : spans.concat(decoded);
  if (extra !== undefined) spans = spans === null ? extra : spans.concat(extra);
  if (rules === undefined) return spans;
  for (const up of rules.patterns) {
    const re = up.re;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const g = m.indices?.[1];
      const s = g ? g[0] : m.index;
      const e = g ? g[1] : m.index + m[0].length;
      if (e > s) {
        spans ??= [];
        spans.push({ s, e, kind: up.name, p: 3 });
      }
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  if (spans !== null && rules.allow.size > 0) {
    spans = spans.filter((sp) => !rules.allow.has(text.slice(sp.s, sp.e)));
    if (spans.length === 0) spans = null;
  }
  return spans;
}

/** Where redaction fires in `text`: kinds and UTF-8 byte ranges, never the matched text. */
export interface Explanation {
  omitted?: string;
  bytes: number;
  hits: Array<{ kind: string; offset: number; length: number }>;
}

export function explainText(text: string, rules?: RedactionRules): Explanation {
  const bytes = Buffer.byteLength(text);
  const omit = text.length < 6 ? null : omission(text);
  if (omit !== null) return { omitted: omit, bytes, hits: [] };
  const spans = text.length < 6 ? null : allSpans(text, undefined, rules);
  const hits: Explanation["hits"] = [];
  let pos = 0;
  let byte = 0;
  for (const r of spans === null ? [] : mergeSpans(spans)) {
    byte += Buffer.byteLength(text.slice(pos, r.s));
    const length = Buffer.byteLength(text.slice(r.s, r.e));
    hits.push({ kind: r.kind, offset: byte, length });
    byte += length;
    pos = r.e;
  }
  return { bytes, hits };
}

export function redactText(text: string, rules?: RedactionRules): { text: string; kinds: string[] } {
  return redactTextWith(text, undefined, rules);
}

function redactTextWith(
  text: string,
  extra: Span[] | undefined,
  rules: RedactionRules | undefined,
): { text: string; kinds: string[] } {
  if (text.length < 6 && extra === undefined && rules === undefined) return { text, kinds: [] };
  const omit = omission(text);
  if (omit !== null) return { text: `[OMITTED:${omit}]`, kinds: [`omitted:${omit}`] };
  const spans = allSpans(text, extra, rules);
  if (spans === null) return { text, kinds: [] };
  const kinds: string[] = [];
  return { text: applySpans(text, spans, kinds), kinds };
}

// Arrays of short strings are where split secrets hide in structured payloads
// (`["ghp_abc", "def..."]`, argv lists, content parts). Longer arrays are prose or data.
const MAX_JOIN_PART = 1024;
const MAX_JOIN_TOTAL = 65536;

/**
 * Scans the strings of an array joined end to end, and returns for each element the spans
 * of secrets that only exist across elements. One extra scan of the joined text: linear.
 */
function acrossElements(arr: unknown[]): Map<number, Span[]> | null {
  let total = 0;
  let strings = 0;
  for (const v of arr) {
    if (typeof v !== "string") continue;
    if (v.length > MAX_JOIN_PART) return null;
    total += v.length;
    strings++;
  }
  if (strings < 2 || total > MAX_JOIN_TOTAL) return null;
  const starts: number[] = [];
  let joined = "";
  for (const v of arr) {
    starts.push(joined.length);
    if (typeof v === "string") joined += v;
  }
  const spans = scan(joined, true);
  if (spans === null) return null;
  const out = new Map<number, Span[]>();
  for (const sp of spans) {
    // Only spans that cross an element boundary are new; the others each element finds itself.
    let i = 0;
    while (i + 1 < starts.length && (starts[i + 1] as number) <= sp.s) i++;
    if (sp.e <= (starts[i + 1] ?? Number.POSITIVE_INFINITY)) continue;
    for (let j = i; j < arr.length && (starts[j] as number) < sp.e; j++) {
      const v = arr[j];
      if (typeof v !== "string" || v.length === 0) continue;
      const base = starts[j] as number;
      const s0 = Math.max(sp.s, base) - base;
      const e0 = Math.min(sp.e, base + v.length) - base;
      if (s0 >= e0) continue;
      // A token swallows whatever token characters follow it; a neighbour that does not look
      // generated (`"ok"`, `"--verbose"`) is where the secret really ended.
      if (j > i && !looksGenerated(v.slice(s0, e0))) break;
      const list = out.get(j) ?? [];
      list.push({ s: s0, e: e0, kind: sp.kind, p: sp.p });
      out.set(j, list);
    }
  }
  return out.size > 0 ? out : null;
}

/** Keys get the value patterns only: a key never holds `KEY=value` syntax worth parsing. */
function redactKeyText(key: string, kinds: string[]): string {
  if (key.length < 16) return key;
  const spans = scan(key, false);
  return spans === null ? key : applySpans(key, spans, kinds);
}

// ---------------------------------------------------------------------------
// Structured values
// ---------------------------------------------------------------------------

const IDENT_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string): string {
  return IDENT_KEY.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

interface Frame {
  src: unknown;
  /** Spans of a secret split across this string and its neighbours in an array. */
  extra?: Span[];
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  path: string;
  /** Kinds found in the object key itself; the path is then already a redaction. */
  keyKinds?: string[];
  /** The whole value is replaced, because its key is secret-ish. */
  mask?: string;
  maskKind?: string;
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** What a secret-keyed value becomes, or undefined when it is kept (booleans, null, placeholders). */
function redactKeyedValue(kind: string, key: string, v: unknown): string | undefined {
  if (v === null || v === undefined || typeof v === "boolean") return undefined;
  if (typeof v === "string") {
    if (isPlaceholder(v)) return undefined;
    if (/pwd$/i.test(key) && /^[/~]/.test(v)) return undefined;
  }
  return `[REDACTED:${kind}]`;
}

export function redactValue<T>(value: T, basePath = "payload", rules?: RedactionRules): RedactResult<T> {
  const redactions: string[] = [];
  const kinds: string[] = [];
  const omitted: string[] = [];
  const root: unknown[] = [undefined];
  // Shared references (and cycles) map to one copy, which also bounds the work.
  const copies = new Map<object, unknown>();
  // An explicit stack instead of recursion: hook payloads are untrusted and may nest arbitrarily
  // deep. Children are pushed in reverse so that paths are reported in document order.
  const stack: Frame[] = [{ src: value, parent: root, key: 0, path: basePath }];
  const pending: Frame[] = [];
  const keyKinds: string[] = [];

  while (stack.length > 0) {
    const f = stack.pop() as Frame;
    if (f.keyKinds !== undefined) {
      redactions.push(f.path);
      for (const k of f.keyKinds) kinds.push(k);
    }
    let src = f.src;
    let out: unknown = src;
    if (f.mask !== undefined) {
      out = f.mask;
      if (f.keyKinds === undefined) redactions.push(f.path);
      kinds.push(f.maskKind as string);
      src = undefined;
    }
    if (
      src !== null &&
      typeof src === "object" &&
      typeof (src as { toJSON?: unknown }).toJSON === "function"
    ) {
      // What the archive serializes is toJSON's result (Date -> string), so redact that.
      src = (src as { toJSON: (k: string) => unknown }).toJSON(String(f.key));
      out = src;
    }
    if (typeof src === "string") {
      const r = redactTextWith(src, f.extra, rules);
      if (r.text !== src) {
        out = r.text;
        if (r.kinds[0]?.startsWith("omitted:")) {
          omitted.push(f.path);
        } else {
          if (f.keyKinds === undefined) redactions.push(f.path);
          for (const k of r.kinds) kinds.push(k);
        }
      }
    } else if (src !== null && typeof src === "object") {
      const seen = copies.get(src);
      if (seen !== undefined) {
        out = seen;
      } else if (Array.isArray(src)) {
        const arr: unknown[] = new Array(src.length);
        copies.set(src, arr);
        out = arr;
        const across = acrossElements(src);
        for (let i = src.length - 1; i >= 0; i--) {
          const child: Frame = { src: src[i], parent: arr, key: i, path: `${f.path}[${i}]` };
          const extra = across?.get(i);
          if (extra !== undefined) child.extra = extra;
          stack.push(child);
        }
      } else {
        const obj: Record<string, unknown> = {};
        copies.set(src, obj);
        out = obj;
        const rec = src as Record<string, unknown>;
        pending.length = 0;
        for (const k of Object.keys(rec)) {
          const v = rec[k];
          keyKinds.length = 0;
          let nk = redactKeyText(k, keyKinds);
          if (nk !== k) {
            // Two keys redacted to the same marker must not overwrite each other.
            let n = 2;
            const base = nk;
            while (Object.hasOwn(obj, nk)) nk = `${base}#${n++}`;
          }
          const child: Frame = { src: v, parent: obj, key: nk, path: childPath(f.path, nk) };
          if (keyKinds.length > 0) child.keyKinds = keyKinds.slice();
          const kind = keyKind(k);
          // A bare `auth` key is as often a config section ({type: "oauth"}) as a credential:
          // walk objects under it, redact only scalars.
          const section = typeof v === "object" && v !== null && splitWords(k).at(-1) === "auth";
          if (kind !== null && !section && !(typeof v === "string" && rules?.allow.has(v))) {
            const mask = redactKeyedValue(kind, k, v);
            if (mask !== undefined) {
              child.mask = mask;
              child.maskKind = kind;
            }
          }
          // Reserve the slot now so key order survives the depth-first walk.
          setOwn(obj, nk, undefined);
          pending.push(child);
        }
        for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i] as Frame);
      }
    }
    if (Array.isArray(f.parent)) f.parent[f.key as number] = out;
    else setOwn(f.parent, f.key as string, out);
  }
  return { value: root[0] as T, redactions, kinds, omitted };
}
