// Placeholders and code: values that sit where a secret would, but are not one

export const SECRET_WORD = /pass|pwd|secret|token|key|auth|cred|cookie/i;
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
export function isPlaceholder(v: string): boolean {
  if (v.length === 0) return true;
  const c = v.charCodeAt(0);
  // `$(cmd)` and `${VAR...}` substitute at run time, even when the scan cut them short.
  if (c === 36 /* $ */) return v.startsWith("$(") || v.startsWith("${") || VAR_REF.test(v);
  if (c === 60 /* < */) return v.charCodeAt(v.length - 1) === 62;
  if (c === 91 /* [ */ && (v.startsWith("[REDACTED:") || v.startsWith("[OMITTED:"))) return true;
  if (c === 123 /* { */ && v.startsWith("{{") && v.endsWith("}}")) return true;
  // `Bearer {token}`, also when the scan stopped before its closing brace.
  if (c === 123 && /^\{[A-Za-z_][A-Za-z0-9_.]{0,40}\}?$/.test(v)) return true;
  // `%DB_PASSWORD%` (cmd.exe), `%env(DB_PASSWORD)%` (Symfony).
  if (
    c === 37 /* % */ &&
    v.length > 2 &&
    v.endsWith("%") &&
    /^%(?:[A-Za-z_][A-Za-z0-9_]*|env\([^()]{1,120}\))%$/.test(v)
  )
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
// Literal credential words used as sample values (`user:password@localhost`, `client-secret=bar`), and the
// metavars of help texts (`--password arg`), and the default passwords that images and quick-starts document (`POSTGRES_PASSWORD=postgres`, MinIO's
// `minioadmin`, RabbitMQ's `guest`, the postgres image's `mysecretpassword`).
const SAMPLE_WORDS = new Set(
  "password passwd pass pwd secret token apikey api_key api-key key foo bar baz qux topsecret mysecret mypassword test sample postgres root admin guest minioadmin mysecretpassword demo default letmein supersecret password123 secret123 admin123 arg args val value text phrase passphrase pw".split(
    " ",
  ),
);
// Words of the instructions a sample value spells out: `change-this-in-production`,
// `replace-with-a-long-random-string`, `generate-with-bin-rails-secret`. Two of them and no digit make
// a placeholder; a diceware passphrase (`correct-horse-battery-staple`) has none.
const META_WORDS = new Set(
  "change replace generate insert enter put set fill use your my this that with here goes in for a an the long random strong secure unique production prod dev development local example sample default real not value string secret key token password pass phrase api".split(
    " ",
  ),
);

function spellsInstructions(v: string): boolean {
  if (v.length > 80 || /[0-9]/.test(v)) return false;
  const words = v.toLowerCase().split(/[-_ ]+/);
  if (words.length < 3) return false;
  let meta = 0;
  for (const w of words) if (META_WORDS.has(w)) meta++;
  return meta >= 2 && meta * 2 >= words.length;
}
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
    spellsInstructions(v) ||
    MASK_RUN.test(v) ||
    SAMPLE_WORDS.has(v.toLowerCase()) ||
    BRACKET_MARKER.test(v) ||
    VERSION_RANGE.test(v) ||
    PATH_LIKE.test(v) ||
    FILE_WORD.test(v)
  );
}

// What marks a value as standing in for a password, not being one: an instruction (`changeme`,
// `REPLACE_ME`, `your-password-here`, `<password>`), a marker (`[REDACTED]`, `(hidden)`) or a mask.
const PASSWORD_STAND_IN =
  /replace[-_ ]?me|change[-_ ]?(?:me|it)|placeholder|fixme|redacted|removed|^(?:todo|tbd|n\/a)$|(?:^|[-_ ])your[-_ ]?[a-z]|[-_ ]here$|^insert[-_ ]|^<[^<>]{1,80}>$/i;

/**
 * A placeholder under a password's name. People choose passwords, so a word is one: `admin123`,
 * `password`, `postgres`, `example`, `dummy-pass` are each somebody's password, in a default config as in
 * a real one, and a password key keeps none of them (the look-alikes that stay are the syntax that
 * cannot be one: variables, templates, masks, instructions, the name of a variable). Tokens and keys are
 * generated, so under their names a word stays a placeholder (isPlaceholder).
 */
export function isPasswordPlaceholder(v: string): boolean {
  if (v.length === 0) return true;
  const c = v.charCodeAt(0);
  if (c === 36 /* $ */) return v.startsWith("$(") || v.startsWith("${") || VAR_REF.test(v);
  if (c === 60 /* < */) return v.charCodeAt(v.length - 1) === 62;
  if (c === 91 /* [ */ && (v.startsWith("[REDACTED:") || v.startsWith("[OMITTED:"))) return true;
  if (c === 123 /* { */ && (/^\{\{.*\}\}$/.test(v) || /^\{[A-Za-z_][A-Za-z0-9_.]{0,40}\}?$/.test(v)))
    return true;
  if (c === 37 /* % */ && /^%(?:[A-Za-z_][A-Za-z0-9_]*|env\([^()]{1,120}\))%$/.test(v)) return true;
  if (MASKED.test(v) && (v.length >= 3 || ONLY_STARS.test(v))) return true;
  if (ELIDED.test(v) || ((c === 37 || c === 123) && FORMAT_ONLY.test(v))) return true;
  if (v.length > 200) return false;
  if (PASSWORD_STAND_IN.test(v) || spellsInstructions(v) || MASK_RUN.test(v) || BRACKET_MARKER.test(v))
    return true;
  // Where the password is, not what: a path, or a secret manager's reference (`op://vault/item/field`,
  // `vault://…`, `@Microsoft.KeyVault(…)`, `arn:aws:secretsmanager:…`).
  if (PATH_LIKE.test(v) || SECRET_REFERENCE.test(v)) return true;
  return ENV_NAME.test(v) && (SECRET_WORD.test(v) || METAVAR.test(v));
}

const SECRET_REFERENCE =
  /^(?:[a-z][a-z0-9+.-]{1,20}:\/\/[^\s/]+\/\S*|@Microsoft\.KeyVault\(|arn:aws:(?:secretsmanager|ssm):)/i;

/** The placeholder test for a value under a name of `kind`: a password's is the strict one. */
export function placeholderFor(kind: string, v: string): boolean {
  return kind === "password" ? isPasswordPlaceholder(v) : isPlaceholder(v);
}

/** A provider-shaped token that is masked or a documented example (`AKIAIOSFODNN7EXAMPLE`). */
export function isSampleToken(t: string): boolean {
  return MASK_RUN.test(t) || /example/i.test(t);
}

export const CODE_KEYWORDS = new Set(
  "null NULL nil None undefined true false True False TRUE FALSE string String str &str number int i32 i64 u32 u64 bool boolean bytes any unknown object void never optional Optional required await new this self function async lambda yes no on off none inherit read write | > |- >-".split(
    " ",
  ),
);
export const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
export const DECIMAL = /^[0-9][0-9_]*$/;
export const HEX_NUMBER = /^0[xX][0-9a-fA-F]{1,16}$/;
// Versions, OIDs and IP addresses.
export const DOTTED_NUMBER = /^[0-9]+(?:\.[0-9]+)+$/;
export const GENERIC_TYPE = /^[A-Za-z_$][A-Za-z0-9_$.]*<.*>$/;
// `process.env.X`, `this.#list.cookies`, `!req.headers.authorization`
export const DOTTED = /^!?[A-Za-z_$][A-Za-z0-9_$]*(?:\??\.#?[A-Za-z_$][A-Za-z0-9_$]*)+$/;
export const HUMP_OR_SNAKE = /[a-z][A-Z]|_/;
