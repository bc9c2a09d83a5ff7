// Provider token formats: each rule under the prefix the master regex (./anchors.ts) captures next to
// its anchor character, and the few rules a handler there tries at a computed position.
import { decodeB64, hasDigit, keyLike, mixedCase, PRINTABLE } from "./chars.ts";
import { type Rule, rule } from "./rule.ts";

const GITHUB = rule("github_token", "gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])");
const GITLAB = rule("gitlab_token", "gl[a-z]{2,5}-[0-9A-Za-z_-]{20,255}(?![0-9A-Za-z_-])");
const SLACK = rule("slack_token", String.raw`xox(?:[abposr]|e(?:\.xox[bp])?)-[0-9A-Za-z-]{10,250}`, hasDigit);
const STRIPE = rule("stripe_key", "[sr]k_(?:live|test)_[0-9A-Za-z]{10,247}(?![0-9A-Za-z_])");
const DIGITALOCEAN = rule("digitalocean_token", "do[por]_v1_[a-f0-9]{64}(?![0-9A-Za-z])");
const SHOPIFY = rule("shopify_token", "shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![0-9A-Za-z])");
export const AWS_KEY_ID = rule(
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
export const BY_PREFIX = new Map<string, Rule[]>();
function on(keys: string, ...rules: Rule[]): void {
  for (const k of keys.split(" ")) BY_PREFIX.set(k, [...(BY_PREFIX.get(k) ?? []), ...rules]);
}

// One line per token format: a table, whose rows are alike on purpose.
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
// Each is checked only where its prefix occurs (see ANCHORS in ./anchors.ts).
const ALNUM_KEY = (s: string) => hasDigit(s) && /[A-Za-z]/.test(s);
// A line break, real or JSON-escaped (once or more: `\n`, `\\n`, `\r\n`).
const BREAK = String.raw`(?:\r?\n|(?:\\{1,7}r)?\\{1,7}n)`;
// PuTTY's `.ppk`: the `Private-Lines: N` lines that follow hold the key; in a JSON string the last one
// may end at its closing quote.
// Tried by ./key-tails.ts, which also reads the key's tail (`Private-MAC:`) when its head was elsewhere.
export const BREAK_RULES = {
  puttyPrivate: rule(
    "private_key",
    String.raw`Private-Lines:[ \t]*[0-9]{1,4}[ \t]*${BREAK}((?:[A-Za-z0-9+/=]{1,128}(?:${BREAK}|$|(?=\\{0,7}["']))){1,512})`,
  ),
};
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
export const AZURE_AD_SECRET = rule(
  "azure_client_secret",
  "[A-Za-z0-9_.~-]{3}[0-9]Q~[A-Za-z0-9_.~-]{31,34}(?![A-Za-z0-9_.~-])",
  (s) => hasDigit(s.slice(6)) || mixedCase(s.slice(6)),
);
export const FCM_KEY = rule(
  "firebase_fcm_key",
  "AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,200}(?![A-Za-z0-9_-])",
);
export const DISCORD_WEBHOOK = rule(
  "discord_webhook",
  "[0-9]{17,20}/([A-Za-z0-9_-]{60,80})(?![A-Za-z0-9_-])",
);
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
    String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\{1,7}[nrt]){0,65536}`,
  ),
);

export const JWT = rule(
  "jwt",
  String.raw`eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}(?![A-Za-z0-9_-])`,
);
export const TERRAFORM = rule(
  "terraform_token",
  String.raw`(?<![A-Za-z0-9_-])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])`,
);
// Discord bot tokens start with the bot's numeric id in base64; decoding it
// separates them from any other dotted base64url triple.
export const DISCORD = rule(
  "discord_token",
  String.raw`[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])`,
  (s) => /^[0-9]{17,20}$/.test(decodeB64(s.slice(0, s.indexOf(".")), true)),
);
// In the Bot API's URLs the token follows `bot`: `https://api.telegram.org/bot<token>/getMe`.
export const TELEGRAM = rule(
  "telegram_token",
  "(?:(?<![A-Za-z0-9_:-])|(?<=(?<![A-Za-z0-9_-])bot))[0-9]{8,10}:AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])",
);
export const AZURE_SAS = rule("azure_sas", "sig=([A-Za-z0-9%+/=]{20,300})");
export const AWS_PRESIGNED = rule("aws_presigned_signature", "X-Amz-Signature=([0-9a-f]{64})");
