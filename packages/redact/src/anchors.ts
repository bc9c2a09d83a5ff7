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
import { decodeB64, isB64Code, isB64UrlCode } from "./chars.ts";
import { dashOption, spacedKey } from "./command-line.ts";
import { fromSeparator } from "./key-rules.ts";
import { keyKind } from "./keys.ts";
import { placeholderFor } from "./placeholders.ts";
import { minioAlias, redisAuth } from "./positional.ts";
import { AZURE_AD_SECRET, DISCORD, DISCORD_WEBHOOK, JWT, TERRAFORM } from "./provider-rules.ts";
import { escapeAware, push, type Rule, type Span, tryRule } from "./rule.ts";

export type Handler = (text: string, at: number, cap: string, spans: Span[]) => number;

export interface Branch {
  /** Regex source after the anchor character; exactly one capturing group. */
  src: string;
  /** "prefix": the group is the prefix before the anchor; "at": a rule starts at the anchor. */
  handle: Handler | "prefix" | "at";
  /** Key/flag parsing: skipped when scanning object keys. */
  keyed?: boolean;
}

const NOT_WORD = "(?<![A-Za-z0-9_])";

function jwtOrTerraform(text: string, at: number, cap: string, spans: Span[]): number {
  const dot = at;
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

/** A handler for a rule whose token starts `offset` characters before the anchor. */
function backFrom(r: Rule, offset: number): Handler {
  return (text, at, _cap, spans) => push(spans, tryRule(r, text, at - offset), at + 1);
}

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
        handle: (text, at, cap, spans) =>
          fromSeparator(text, text.indexOf(":", at + cap.length), spans, "api_key"),
      },
      // A key's armour: BEGIN starts its rule, END closes a body whose BEGIN may be elsewhere (./key-tails.ts).
      { src: "(?=(----(?:BEGIN|END)) )", handle: "at" },
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
        handle: (text, at, cap, spans) => push(spans, tryRule(DISCORD, text, at - cap.length), at + 1),
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
        handle: (text, at, _cap, spans) => push(spans, tryRule(DISCORD_WEBHOOK, text, at + 1), at + 1),
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
        // Docker's `{"auths":` is shorter than a key file: its own prefix lets it through sooner.
        src: "(?<=(?<![A-Za-z0-9+/._-])eyJ)(?=[A-Za-z0-9+/]{200}|hdXRocyI6[A-Za-z0-9+/]{40})()",
        handle: (t, at, _c, sp) => encodedKey(t, at, "eyJ", sp),
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
function xmlElement(text: string, at: number, _cap: string, spans: Span[]): number {
  const gt = text.indexOf(">", at);
  const tag = text.slice(at + 2, gt);
  let kind = keyKind(tag.slice(tag.lastIndexOf(":") + 1));
  if (kind === null && tag !== "value" && tag !== "Value") return at + 1;
  // The opening tag is looked for in a bounded window: a text of a thousand closing tags stays linear.
  // It may carry attributes (FileZilla's `<Pass encoding="base64">`).
  const from = Math.max(0, at - MAX_XML_VALUE);
  const rel = text.slice(from, at).lastIndexOf(`<${tag}`);
  if (rel < 0) return at + 1;
  const open = from + rel;
  const openEnd = openTagEnd(text, open + tag.length + 1, at);
  if (openEnd < 0) return at + 1;
  // Hadoop's and Java's `<property><name>fs.s3a.secret.key</name><value>...</value>`, .NET's
  // `<setting name="Password" serializeAs="String"><value>...</value>`.
  if (kind === null) {
    const before = text.slice(Math.max(0, open - 300), open);
    const name =
      /<name>[ \t]*([^<>\s]{1,120})[ \t]*<\/name>\s*$/.exec(before) ??
      /<[A-Za-z][\w.:-]*\s[^<>]*?\b(?:name|key)=\\{0,3}["']([^"'<>\\]{1,120})\\{0,3}["'][^<>]*>\s*$/.exec(
        before,
      );
    kind = name === null ? null : keyKind(name[1] as string);
    if (kind === null) return at + 1;
  }
  const vs = openEnd;
  const v = text.slice(vs, at);
  if (vs >= at || v.includes("\n") || v.includes("<") || placeholderFor(kind, v.trim())) return at + 1;
  spans.push({ s: vs, e: at, kind, p: 1 });
  return gt;
}

/** Past the `>` of an opening tag whose name ends at `p` (attributes between), or -1 (another tag, `/>`). */
function openTagEnd(text: string, p: number, limit: number): number {
  const c = text.charCodeAt(p);
  if (c === 62) return p + 1;
  if (c !== 32 && c !== 9 && c !== 10) return -1;
  const gt = text.indexOf(">", p);
  if (gt < 0 || gt >= limit || text.charCodeAt(gt - 1) === 47 || text.slice(p, gt).includes("<")) return -1;
  return gt + 1;
}

/**
 * A base64 run that decodes to a private key (kubeconfig `client-key-data`) or
 * to a service-account key file (`GOOGLE_CREDENTIALS=ewog...`).
 */
export function encodedKey(text: string, at: number, cap: string, spans: Span[]): number {
  // From a separator (`client-key-data: LS0t...`) the run starts at the first occurrence of its prefix.
  const start = text.indexOf(cap, Math.max(0, at - 2));
  let e = start;
  const limit = Math.min(text.length, start + 65536);
  while (e < limit && isB64Code(text.charCodeAt(e))) e++;
  while (e < limit && text.charCodeAt(e) === 61) e++;
  const head = decodeB64(text.slice(start, Math.min(e, start + 4096)).replace(/=+$/, ""), false);
  const pem = head.startsWith("-----BEGIN ") && /PRIVATE KEY/.test(head.slice(0, 60));
  const docker = !pem && /^\{\s*"auths"\s*:/.test(head);
  if (!pem && !docker && !/"private_key"|"client_secret"|"refresh_token"/.test(head)) return start + 1;
  spans.push({
    s: start,
    e,
    kind: pem ? "private_key" : docker ? "docker_config" : "service_account_key",
    p: 2,
  });
  return e;
}
