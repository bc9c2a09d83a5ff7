// Value patterns: the master regex over every string, and the handlers its branches call.
//
// Speed comes from the shape of the master regex. A big alternation of
// provider prefixes makes irregexp try every prefix at every position
// (~25 MB/s). Instead each top-level alternative starts with one anchor
// character (`_ - . = : /` or a few letters); only where that character
// occurs do its branches look back for the provider prefix before it, or
// ahead for the rest. A hit only says "a rule may start here"; the rule's own
// sticky regex then decides.
import { awsKeyId } from "./aws.ts";
import { callComma } from "./calls.ts";
import { charTable, decodeB64, isB64Code, isB64UrlCode, isDigit } from "./chars.ts";
import { dashOption, spacedKey } from "./command-line.ts";
import { dotenvValue } from "./dotenv.ts";
import { fromSeparator } from "./key-rules.ts";
import { keyKind } from "./keys.ts";
import { isPlaceholder } from "./placeholders.ts";
import { generatedKey, minioAlias, oracleLogin, redisAuth, slashPassword } from "./positional.ts";
import { colonLabel } from "./prose.ts";
import {
  AWS_PRESIGNED,
  AZURE_AD_SECRET,
  AZURE_SAS,
  DISCORD,
  DISCORD_WEBHOOK,
  FCM_KEY,
  JWT,
  TELEGRAM,
  TERRAFORM,
} from "./provider-rules.ts";
import { escapeAware, push, type Rule, type Span, tryRule } from "./rule.ts";

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
    // `postgres:postgres@localhost`, `guest:guest@rabbit`: a quick-start's default, not a secret.
    if (isPlaceholder(pw) || pw === text.slice(end, colon)) return null;
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

// Words that can END a secret-ish key (see keyKind), matched right before a
// `=` / `:` separator with optional closing quote, bracket and blanks.
const KEY_TAIL =
  "(?:[Pp]ass(?:word|wd|phrase|code)?s?|PASS(?:WORD|WD|PHRASE|CODE)?S?|[Pp]wd|PWD|[Ss]ecrets?|SECRETS?|" +
  "[Tt]oken|TOKEN|[Kk]ey|KEY|[Aa]uth(?:orization)?|AUTH(?:ORIZATION)?|[Cc]ookies?|COOKIES?|" +
  "[Cc]red(?:ential)?s?|CRED(?:ENTIAL)?S?|[Ss]tring|STRING|[Cc]onnstr|CONNSTR|" +
  "(?:[Kk]ey|KEY)[_.]?(?:[Bb]ase|BASE|[Ii][Dd])|[Ll]ogin|LOGIN|[Vv]alue|VALUE|[Pp]sk|PSK|[Bb]earer|BEARER|secret_id|[Ee]ncrypt|[Ss]alt|SALT)";

type Handler = (text: string, m: RegExpExecArray, cap: string, spans: Span[]) => number;

export interface Branch {
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
    `(?<=[dDeEgGhHkKlLnNrRsStTyY](?:\\\\{0,7}["'\`])?\\]?[ \\t]{0,8}[=:])` +
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
          "fm(?:1[ar]|2)|access|add|change|authenticate)_)",
        handle: "prefix",
      },
      { src: `(?<=${NOT_WORD}(github)_)(?=pat_)`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}([sr]k)_)(?=live_|test_|[a-f0-9]{48})`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}(api)_)(?=org_)`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}(do[por])_)(?=v1_)`, handle: "prefix" },
      { src: `(?<=${NOT_WORD}(secret)_)(?=[A-Za-z0-9]{43}(?![A-Za-z0-9]))`, handle: "prefix" },
      // `aws configure set aws_secret_access_key V`, `npm config set //host/:_authToken V`, and the
      // `aws configure get aws_secret_access_key` that prints one.
      {
        src: String.raw`(?<=(access|session|:)_)(?=(?:key|token|authToken|auth|password)(?:[ \t]+[^\s=]|[ \t]*(?:$|\r?\n|\\n|")))`,
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
          "GOCSPX|pypi|PMAK|NR(?:AK|II)|pul|sq0(?:atp|csp)|AGE|xai|pplx|HRKU|CFPAT|tskey|FLWSECK|Private|add|http|insecure)-)",
        handle: "prefix",
      },
      { src: "(?<=(?<![A-Za-z0-9_-])(key)-)(?=[0-9a-f]{32})", handle: "prefix" },
      // Honeycomb's `X-Honeycomb-Team: KEY`: a documented header without a secret word.
      {
        src: String.raw`(?<=[Hh]oneycomb-)(?=([Tt]eam|TEAM)\\{0,7}["']?[ \t]*:)`,
        handle: (text, m, cap, spans) =>
          fromSeparator(text, text.indexOf(":", m.index + cap.length), spans, "api_key"),
      },
      { src: "(?=(----BEGIN) )", handle: "at" },
      // Long options (`--token x`), and `-p` / `-u` for the mysql and curl special cases.
      {
        src: String.raw`(?<=(?:^|[\s"']|\\[nrt])-)(?=(-[A-Za-z]|[a-z]{3,30}(?=[ \t=])|p[^\s\\-]|[puabPwkNtUoDd][ \t=]|cb[ \t]|-+[ \t]{2,}-|S[ \t]|[gU]?x[ \t]))`,
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
      // A clause that names a secret, then a colon and a generated token (./prose.ts).
      {
        src: "(?<=[A-Za-z)][ \\t]?:)(?=([ \\t]+[`'\"]?[A-Za-z0-9+/_~-]{16,256}[`'\"]?)(?:[\\s,;.!?)]|$))",
        handle: colonLabel,
        keyed: true,
      },
      // FreeRDP's `/p:PASSWORD`.
      { src: String.raw`(?<=[ \t"']\/p:)()`, handle: slashPassword },
      // A thin JDBC URL's `user/password@host` (./positional.ts).
      {
        src: String.raw`(?<=jdbc:oracle:thin:)(?=([A-Za-z0-9_$#]{1,30}\/(?:"[^"\n]{1,128}"|[^\s@/"']{1,128})@))`,
        handle: oracleLogin,
      },
      // At the start of a line: a .env line's `NAME=` whatever it is called (./dotenv.ts), or a line of
      // 43 base64 characters and its `=` (a 32-byte key that `consul keygen` or `wg genkey` printed).
      // One lookbehind for both: each `=` pays for it once.
      {
        src: String.raw`(?<=(?:^|\n|\\n)((?:[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]{1,63})|[A-Za-z0-9+/]{43})=)`,
        handle: (text, m, cap, spans) =>
          cap.length === 43 && /[a-z+/]/.test(cap)
            ? generatedKey(text, m, cap, spans)
            : dotenvValue(text, m, cap, spans),
        keyed: true,
      },
    ],
  ],
  // A call's first two arguments: a secret's name (or a user) and its value (./calls.ts).
  [
    ",",
    [
      {
        // A name has no blank and is short: a JSON value before a comma fails within a few characters.
        src: String.raw`(?=[ \t]*\\{0,7}["'])(?<=\(([ \t]*\\{0,7}["'][^"'\\\s]{1,64}\\{0,7}["']|[A-Za-z_$][\w$.]{0,40})[ \t]*,)`,
        handle: callComma,
        keyed: true,
      },
    ],
  ],
  [
    "\\/",
    [
      { src: String.raw`(?<=(?<![A-Za-z0-9_/:.-])(1)\/)(?=\/0)`, handle: "prefix" },
      // MinIO's `mc alias set NAME URL KEY SECRET`.
      {
        src: String.raw`(?<=\bmc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+\S{1,64}[ \t]+["']?https?:\/)(?=(\/))`,
        handle: minioAlias,
      },
      {
        src: String.raw`(?<=\/api(?:\/v[0-9]{1,2})?\/webhooks\/)(?=([0-9]{17,20})\/)`,
        handle: (text, m, _cap, spans) =>
          push(spans, tryRule(DISCORD_WEBHOOK, text, m.index + 1), m.index + 1),
      },
    ],
  ],
  // Letters that begin a provider token with no punctuation of its own.
  [
    "A",
    [
      { src: "(?=(KIA|SIA|BIA|CCA))", handle: awsKeyId },
      { src: "(?=(Iza|TATT|TBB|TCTT|KCp|ZDO))", handle: "at" },
      // redis-cli's prompt: `127.0.0.1:6379> AUTH default PASSWORD`.
      { src: String.raw`(?=(UTH)[ \t])(?<=>[ \t]{0,4}A)`, handle: redisAuth },
    ],
  ],
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
        src: String.raw`(?=(\/)(?:[A-Za-z][\w.-]{0,60}:)?[\w.-]{0,60}(?:[Pp]ass(?:word|wd|phrase)?|PASSWORD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Kk]ey|KEY|[Vv]alue)>)`,
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

export const BRANCHES: Branch[] = ANCHORS.flatMap(([, bs]) => bs);
export const MASTER = new RegExp(
  escapeAware(ANCHORS.map(([c, bs]) => `${c}(?:${bs.map((b) => b.src).join("|")})`).join("|")),
  "g",
);

const MAX_XML_VALUE = 1024;

/** `<password>SECRET</password>` (Maven settings.xml and other XML config); `at` is the closing tag. */
function xmlElement(text: string, m: RegExpExecArray, _cap: string, spans: Span[]): number {
  const at = m.index;
  const gt = text.indexOf(">", at);
  const tag = text.slice(at + 2, gt);
  let kind = keyKind(tag.slice(tag.lastIndexOf(":") + 1));
  if (kind === null && tag !== "value" && tag !== "Value") return at + 1;
  // The opening tag is looked for in a bounded window: a text of a thousand closing tags stays linear.
  const from = Math.max(0, at - MAX_XML_VALUE);
  const rel = text.slice(from, at).lastIndexOf(`<${tag}>`);
  if (rel < 0) return at + 1;
  const open = from + rel;
  // Hadoop's and Java's `<property><name>fs.s3a.secret.key</name><value>...</value>`.
  if (kind === null) {
    const name = /<name>[ \t]*([^<>\s]{1,120})[ \t]*<\/name>\s*$/.exec(
      text.slice(Math.max(0, open - 300), open),
    );
    kind = name === null ? null : keyKind(name[1] as string);
    if (kind === null) return at + 1;
  }
  const vs = open + tag.length + 2;
  const v = text.slice(vs, at);
  if (vs >= at || v.includes("\n") || v.includes("<") || isPlaceholder(v.trim())) return at + 1;
  spans.push({ s: vs, e: at, kind, p: 1 });
  return gt;
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
