// A seeded corpus of realistic agent traffic for scoring redaction.
//
// Positives: a credential of a named kind, embedded in the kind of text an
// agent sees (hook payloads, tool output, transcripts, code, config files, CLI
// lines). Each case lists the secret strings exactly as they appear in its
// text; a public prefix (`ghp_`, `sk-proj-`) may survive redaction.
// Look-alikes: text that must survive byte for byte (hashes, ids, placeholders,
// masked values, help text, public keys...). Real tool output samples live in
// test/fixtures/lookalikes/; the rest is generated here.
//
// Written from the providers' documented token formats, not from the rules in
// packages/redact/src: the point is to measure those rules, not to echo them.
// Fake secrets are assembled at run time (prefixes split in the source), so the
// repository holds nothing a secret scanner would flag.
//
// Usage: npx tsx packages/redact/scripts/corpus.ts [--seed N] > corpus.jsonl
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface PositiveCase {
  id: string;
  kind: string;
  text: string;
  /** Secret strings as they appear in `text`. */
  secrets: string[];
  /** Public prefixes that may stay (e.g. "ghp_"). */
  prefixes?: string[];
}

export interface LookAlikeCase {
  id: string;
  category: string;
  text: string;
}

export interface Corpus {
  seed: number;
  positives: PositiveCase[];
  lookalikes: LookAlikeCase[];
}

export const DEFAULT_SEED = 20261201;
const P = (...parts: string[]) => parts.join("");

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}_-`;

class Rand {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  str(alphabet: string, n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  /** Random, but mixing upper, lower and digits, as generated keys do. */
  mixed(n: number): string {
    const s = this.str(UPPER, 1) + this.str(LOWER, 1) + this.str(DIGITS, 1) + this.str(ALNUM, n - 3);
    return [...s].sort(() => this.next() - 0.5).join("");
  }
  hex(n: number): string {
    return this.str(HEX, n);
  }
  uuid(): string {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${this.pick(["8", "9", "a", "b"])}${this.hex(3)}-${this.hex(12)}`;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  b64(n: number): string {
    return this.bytes(n).toString("base64");
  }
  b64url(n: number): string {
    return this.bytes(n).toString("base64url");
  }
  /** A human-chosen-looking password: words, digits and a symbol. */
  password(): string {
    const w = this.pick(["Sunset", "Tiger", "Maple", "Rocket", "Harbor", "Violet", "Quartz", "Falcon"]);
    const w2 = this.pick(["river", "stone", "cloud", "ember", "delta", "orbit", "piano", "zebra"]);
    if (this.chance(0.5))
      return `${w}${this.pick(["!", "#", "%", "_", "-", "*"])}${w2}${this.str(DIGITS, 3)}`;
    return this.mixed(14 + this.int(10));
  }
  user(): string {
    return this.pick(["deploy", "admin", "ci-bot", "jdoe", "alice", "svc_build", "root", "app"]);
  }
  host(): string {
    return this.pick(["db.internal", "10.0.3.14", "pg-prod.example.com", "localhost", "cache-1.svc"]);
  }
}

const jwtSeg = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
function jwt(r: Rand, payload: object = { sub: r.uuid(), iat: 1764000000 + r.int(1e6) }): string {
  return `${jwtSeg({ alg: r.pick(["HS256", "RS256", "ES256"]), typ: "JWT" })}.${jwtSeg(payload)}.${r.b64url(32)}`;
}

function pemBody(r: Rand, bytes: number): string[] {
  const b = r.b64(bytes);
  const lines: string[] = [];
  for (let i = 0; i < b.length; i += 64) lines.push(b.slice(i, i + 64));
  return lines;
}

// ---------------------------------------------------------------------------
// Credential kinds
//
// `token` kinds are self-identifying (a documented prefix or shape) and are
// embedded in any context, prose included. `named` kinds are only a secret
// because of the name they stand under, so they get keyed contexts only.
// `native` kinds build their own whole document (a .netrc, a kubeconfig).
// ---------------------------------------------------------------------------

interface TokenKind {
  kind: string;
  type: "token";
  env: string;
  make: (r: Rand) => string;
  prefix?: string;
}
interface NamedKind {
  kind: string;
  type: "named";
  env: string;
  make: (r: Rand) => string;
}
interface NativeKind {
  kind: string;
  type: "native";
  make: (r: Rand) => { text: string; secrets: string[]; prefixes?: string[] };
}
const tok = (kind: string, env: string, prefix: string, make: (r: Rand) => string): TokenKind => ({
  kind,
  type: "token",
  env,
  prefix,
  make: (r) => prefix + make(r),
});
const named = (kind: string, env: string, make: (r: Rand) => string): NamedKind => ({
  kind,
  type: "named",
  env,
  make,
});
const native = (kind: string, make: NativeKind["make"]): NativeKind => ({ kind, type: "native", make });

const TOKEN_KINDS: TokenKind[] = [
  tok("github_pat", "GITHUB_TOKEN", P("gh", "p_"), (r) => r.mixed(36)),
  tok("github_oauth", "GH_TOKEN", P("gh", "o_"), (r) => r.mixed(36)),
  tok("github_user_to_server", "GITHUB_TOKEN", P("gh", "u_"), (r) => r.mixed(36)),
  tok("github_app_installation", "GITHUB_TOKEN", P("gh", "s_"), (r) => r.mixed(36)),
  tok("github_refresh", "GITHUB_REFRESH_TOKEN", P("gh", "r_"), (r) => r.mixed(76)),
  tok("github_fine_grained", "GITHUB_PAT", P("github", "_pat_"), (r) => `${r.mixed(22)}_${r.mixed(59)}`),
  tok("gitlab_pat", "GITLAB_TOKEN", P("gl", "pat-"), (r) => r.str(B64URL, 20)),
  tok("gitlab_runner", "CI_RUNNER_TOKEN", P("gl", "rt-"), (r) => r.str(B64URL, 20)),
  tok("gitlab_deploy", "GITLAB_DEPLOY_TOKEN", P("gl", "dt-"), (r) => r.str(B64URL, 20)),
  tok("gitlab_trigger", "TRIGGER_TOKEN", P("gl", "ptt-"), (r) => r.hex(40)),
  tok(
    "slack_bot",
    "SLACK_BOT_TOKEN",
    P("xo", "xb-"),
    (r) => `${r.str(DIGITS, 12)}-${r.str(DIGITS, 13)}-${r.mixed(24)}`,
  ),
  tok(
    "slack_user",
    "SLACK_TOKEN",
    P("xo", "xp-"),
    (r) => `${r.str(DIGITS, 12)}-${r.str(DIGITS, 12)}-${r.str(DIGITS, 13)}-${r.hex(32)}`,
  ),
  tok(
    "slack_app",
    "SLACK_APP_TOKEN",
    P("xa", "pp-"),
    (r) => `1-A${r.str(UPPER + DIGITS, 10)}-${r.str(DIGITS, 13)}-${r.hex(64)}`,
  ),
  tok("stripe_live", "STRIPE_SECRET_KEY", P("sk", "_live_"), (r) => r.mixed(99)),
  tok("stripe_test", "STRIPE_SECRET_KEY", P("sk", "_test_"), (r) => r.mixed(24)),
  tok("stripe_restricted", "STRIPE_API_KEY", P("rk", "_live_"), (r) => r.mixed(99)),
  tok("stripe_webhook", "STRIPE_WEBHOOK_SECRET", P("wh", "sec_"), (r) => r.mixed(32)),
  tok(
    "openai_project",
    "OPENAI_API_KEY",
    P("sk", "-proj-"),
    (r) => `${r.str(B64URL, 74)}T3BlbkFJ${r.str(B64URL, 74)}`,
  ),
  tok("openai_legacy", "OPENAI_API_KEY", P("sk", "-"), (r) => `${r.mixed(20)}T3BlbkFJ${r.mixed(20)}`),
  tok(
    "openai_service_account",
    "OPENAI_API_KEY",
    P("sk", "-svcacct-"),
    (r) => `${r.str(B64URL, 74)}T3BlbkFJ${r.str(B64URL, 74)}`,
  ),
  tok("anthropic_api", "ANTHROPIC_API_KEY", P("sk", "-ant-api03-"), (r) => `${r.str(B64URL, 93)}AA`),
  tok("anthropic_admin", "ANTHROPIC_ADMIN_KEY", P("sk", "-ant-admin01-"), (r) => `${r.str(B64URL, 93)}AA`),
  tok("google_api_key", "GOOGLE_API_KEY", P("AI", "za"), (r) => r.str(B64URL, 35)),
  tok("google_oauth_secret", "GOOGLE_CLIENT_SECRET", P("GOC", "SPX-"), (r) => r.str(B64URL, 28)),
  tok("google_access_token", "GOOGLE_OAUTH_ACCESS_TOKEN", P("ya", "29."), (r) => `a0${r.str(B64URL, 150)}`),
  tok("google_refresh_token", "GOOGLE_REFRESH_TOKEN", P("1/", "/0"), (r) => `g${r.str(B64URL, 100)}`),
  tok("aws_access_key_id", "AWS_ACCESS_KEY_ID", P("AK", "IA"), (r) => r.str(UPPER + "234567", 16)),
  tok("aws_temp_key_id", "AWS_ACCESS_KEY_ID", P("AS", "IA"), (r) => r.str(UPPER + "234567", 16)),
  tok("huggingface", "HF_TOKEN", P("h", "f_"), (r) => r.mixed(34)),
  tok("npm_token", "NPM_TOKEN", P("np", "m_"), (r) => r.mixed(36)),
  tok("pypi_token", "PYPI_TOKEN", P("py", "pi-"), (r) => `AgEIcHlwaS5vcmc${r.str(B64URL, 150)}`),
  tok("rubygems", "GEM_HOST_API_KEY", P("ruby", "gems_"), (r) => r.hex(48)),
  tok("crates_io", "CARGO_REGISTRY_TOKEN", P("ci", "o"), (r) => r.mixed(32)),
  tok("docker_hub_pat", "DOCKER_TOKEN", P("dckr", "_pat_"), (r) => r.str(B64URL, 27)),
  tok("docker_hub_oat", "DOCKERHUB_TOKEN", P("dckr", "_oat_"), (r) => r.str(B64URL, 32)),
  tok("heroku_api_key", "HEROKU_API_KEY", P("HR", "KU-"), (r) => `AA${r.str(B64URL, 58)}`),
  tok("doppler_personal", "DOPPLER_TOKEN", P("dp", ".pt."), (r) => r.mixed(43)),
  tok("doppler_service", "DOPPLER_TOKEN", P("dp", ".st."), (r) => `dev.${r.mixed(40)}`),
  tok("doppler_service_account", "DOPPLER_TOKEN", P("dp", ".sa."), (r) => r.mixed(43)),
  tok("doppler_cli", "DOPPLER_TOKEN", P("dp", ".ct."), (r) => r.mixed(43)),
  tok("sentry_org_token", "SENTRY_AUTH_TOKEN", P("sntr", "ys_"), (r) => `eyJpYXQiO${r.str(B64URL, 120)}`),
  tok("sentry_user_token", "SENTRY_AUTH_TOKEN", P("sntr", "yu_"), (r) => r.hex(64)),
  tok("supabase_secret", "SUPABASE_SECRET_KEY", P("sb", "_secret_"), (r) => r.str(B64URL, 32)),
  tok("sendgrid", "SENDGRID_API_KEY", P("S", "G."), (r) => `${r.str(B64URL, 22)}.${r.str(B64URL, 43)}`),
  tok("mailgun", "MAILGUN_API_KEY", P("ke", "y-"), (r) => r.hex(32)),
  tok("shopify_access", "SHOPIFY_ACCESS_TOKEN", P("sh", "pat_"), (r) => r.hex(32)),
  tok("shopify_shared_secret", "SHOPIFY_API_SECRET", P("sh", "pss_"), (r) => r.hex(32)),
  tok("digitalocean_pat", "DIGITALOCEAN_TOKEN", P("do", "p_v1_"), (r) => r.hex(64)),
  tok("digitalocean_oauth", "DO_TOKEN", P("do", "o_v1_"), (r) => r.hex(64)),
  tok("databricks", "DATABRICKS_TOKEN", P("da", "pi"), (r) => r.hex(32)),
  tok("vault_service", "VAULT_TOKEN", P("hv", "s."), (r) => r.str(B64URL, 90)),
  tok("vault_batch", "VAULT_TOKEN", P("hv", "b."), (r) => r.str(B64URL, 120)),
  tok("terraform_cloud", "TFE_TOKEN", "", (r) => `${r.mixed(14)}.atlas${"v1"}.${r.str(ALNUM, 67)}`),
  tok("linear", "LINEAR_API_KEY", P("lin", "_api_"), (r) => r.mixed(40)),
  tok("notion", "NOTION_TOKEN", P("nt", "n_"), (r) => r.mixed(46)),
  tok(
    "atlassian",
    "JIRA_API_TOKEN",
    P("ATA", "TT3x"),
    (r) => `FfGF0${r.str(B64URL, 180)}=${r.hex(8).toUpperCase()}`,
  ),
  tok("postman", "POSTMAN_API_KEY", P("PM", "AK-"), (r) => `${r.hex(24)}-${r.hex(34)}`),
  tok("newrelic_user", "NEW_RELIC_API_KEY", P("NR", "AK-"), (r) => r.str(UPPER + DIGITS, 27)),
  tok("newrelic_license", "NEW_RELIC_LICENSE_KEY", "", (r) => `${r.hex(36)}NRAL`),
  tok("pulumi", "PULUMI_ACCESS_TOKEN", P("pu", "l-"), (r) => r.hex(40)),
  tok("age_secret", "SOPS_AGE_KEY", P("AGE-SECRET", "-KEY-1"), (r) => r.str(UPPER + DIGITS, 58)),
  tok("grafana_service_account", "GRAFANA_TOKEN", P("gl", "sa_"), (r) => `${r.mixed(32)}_${r.hex(8)}`),
  tok("grafana_cloud", "GRAFANA_CLOUD_TOKEN", P("gl", "c_"), (r) => r.b64(60).replace(/=+$/, "")),
  tok("sourcegraph", "SRC_ACCESS_TOKEN", P("sg", "p_"), (r) => `${r.hex(16)}_${r.hex(40)}`),
  tok("sourcegraph_legacy", "SRC_ACCESS_TOKEN", P("sg", "p_"), (r) => r.hex(40)),
  tok("vercel", "VERCEL_TOKEN", P("vc", "p_"), (r) => r.mixed(56)),
  tok("netlify", "NETLIFY_AUTH_TOKEN", P("nf", "p_"), (r) => r.mixed(40)),
  tok("flyio", "FLY_API_TOKEN", P("Fly", "V1 fm2_"), (r) => r.str(B64, 200)),
  tok("planetscale_token", "PLANETSCALE_SERVICE_TOKEN", P("pscale", "_tkn_"), (r) => r.str(B64URL, 43)),
  tok("planetscale_password", "DATABASE_PASSWORD", P("pscale", "_pw_"), (r) => r.str(B64URL, 43)),
  tok("render", "RENDER_API_KEY", P("rn", "d_"), (r) => r.mixed(32)),
  tok("buildkite", "BUILDKITE_API_TOKEN", P("bk", "ua_"), (r) => r.hex(40)),
  tok("circleci_pat", "CIRCLE_TOKEN", P("CCI", "PAT_"), (r) => `${r.mixed(22)}_${r.hex(40)}`),
  tok("sonarqube", "SONAR_TOKEN", P("sq", "u_"), (r) => r.hex(40)),
  tok("sonarcloud_project", "SONAR_TOKEN", P("sq", "p_"), (r) => r.hex(40)),
  tok("openrouter", "OPENROUTER_API_KEY", P("sk", "-or-v1-"), (r) => r.hex(64)),
  tok("groq", "GROQ_API_KEY", P("gs", "k_"), (r) => r.mixed(52)),
  tok("replicate", "REPLICATE_API_TOKEN", P("r", "8_"), (r) => r.mixed(37)),
  tok("perplexity", "PERPLEXITY_API_KEY", P("pp", "lx-"), (r) => r.mixed(48)),
  tok("xai", "XAI_API_KEY", P("xa", "i-"), (r) => r.mixed(80)),
  tok("fireworks", "FIREWORKS_API_KEY", P("f", "w_"), (r) => r.mixed(24)),
  tok("pinecone", "PINECONE_API_KEY", P("pc", "sk_"), (r) => `${r.str(ALNUM, 6)}_${r.mixed(60)}`),
  tok("langsmith", "LANGSMITH_API_KEY", P("lsv2", "_pt_"), (r) => `${r.hex(32)}_${r.hex(10)}`),
  tok("elevenlabs", "ELEVENLABS_API_KEY", P("s", "k_"), (r) => r.hex(48)),
  tok(
    "mapbox_secret",
    "MAPBOX_SECRET_TOKEN",
    P("s", "k.eyJ"),
    (r) => `1IjoiY${r.str(B64URL, 50)}.${r.str(B64URL, 22)}`,
  ),
  tok("square_access", "SQUARE_ACCESS_TOKEN", P("EA", "AA"), (r) => r.str(B64URL, 60)),
  tok("square_oauth_secret", "SQUARE_APPLICATION_SECRET", P("sq0", "csp-"), (r) => r.str(B64URL, 43)),
  tok(
    "braintree",
    "BRAINTREE_ACCESS_TOKEN",
    P("access_", "token$production$"),
    (r) => `${r.str(LOWER + DIGITS, 16)}$${r.hex(32)}`,
  ),
  tok("contentful", "CONTENTFUL_MANAGEMENT_TOKEN", P("CFP", "AT-"), (r) => r.str(B64URL, 43)),
  tok("typeform", "TYPEFORM_TOKEN", P("tf", "p_"), (r) => r.mixed(44)),
  tok("airtable", "AIRTABLE_API_KEY", P("p", "at"), (r) => `${r.mixed(14)}.${r.hex(64)}`),
  tok("figma", "FIGMA_TOKEN", P("fig", "d_"), (r) => r.str(B64URL, 40)),
  tok("resend", "RESEND_API_KEY", P("r", "e_"), (r) => `${r.mixed(8)}_${r.mixed(24)}`),
  tok("bitbucket_app_password", "BITBUCKET_APP_PASSWORD", P("AT", "BB"), (r) => r.mixed(32)),
  tok(
    "onepassword_service",
    "OP_SERVICE_ACCOUNT_TOKEN",
    P("op", "s_"),
    (r) => `eyJzaWduSW5BZGRyZXNzIjoi${r.str(B64URL, 300)}`,
  ),
  tok("tailscale", "TS_AUTHKEY", P("tskey", "-auth-"), (r) => `k${r.mixed(16)}-${r.mixed(32)}`),
  tok("prefect", "PREFECT_API_KEY", P("pn", "u_"), (r) => r.mixed(36)),
  tok("infisical", "INFISICAL_TOKEN", P("s", "t."), (r) => `${r.uuid()}.${r.hex(32)}.${r.hex(32)}`),
  tok("dropbox", "DROPBOX_ACCESS_TOKEN", P("s", "l."), (r) => r.str(B64URL, 140)),
  tok(
    "firebase_fcm",
    "FCM_SERVER_KEY",
    P("AAAA", ""),
    (r) => `${r.str(B64URL, 7)}:APA91b${r.str(B64URL, 134)}`,
  ),
  tok("azure_devops", "AZURE_DEVOPS_EXT_PAT", "", (r) => `${r.str(ALNUM, 52)}AZDO${r.str(ALNUM, 28)}`),
  tok(
    "azure_ad_client_secret",
    "AZURE_CLIENT_SECRET",
    "",
    (r) => `${r.str(ALNUM, 3)}8Q~${r.str(`${ALNUM}_.~-`, 34)}`,
  ),
  tok("discord_bot", "DISCORD_TOKEN", "", (r) => {
    const id = Buffer.from(String(100000000000000000n + BigInt(r.int(1e9)) * 1000000n)).toString("base64url");
    return `${id}.${r.str(B64URL, 6)}.${r.str(B64URL, 38)}`;
  }),
  tok("telegram_bot", "TELEGRAM_BOT_TOKEN", "", (r) => `${r.str(DIGITS, 10)}:AA${r.str(B64URL, 33)}`),
  tok("twilio_api_key", "TWILIO_API_KEY", "SK", (r) => r.hex(32)),
  tok("mailchimp", "MAILCHIMP_API_KEY", "", (r) => `${r.hex(32)}-us${1 + r.int(20)}`),
  tok("jwt_generic", "ACCESS_TOKEN", "", (r) => jwt(r)),
  tok("supabase_service_role", "SUPABASE_SERVICE_ROLE_KEY", "", (r) =>
    jwt(r, {
      iss: "supabase",
      ref: r.str(LOWER, 20),
      role: "service_role",
      iat: 1764000000,
      exp: 2079576000,
    }),
  ),
];

const NAMED_KINDS: NamedKind[] = [
  named("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", (r) => r.str(B64, 40)),
  named("aws_session_token", "AWS_SESSION_TOKEN", (r) => `FwoGZXIvYXdzE${r.str(B64, 300)}`),
  named("heroku_legacy_uuid", "HEROKU_API_KEY", (r) => r.uuid()),
  named("datadog_api_key", "DD_API_KEY", (r) => r.hex(32)),
  named("datadog_app_key", "DD_APP_KEY", (r) => r.hex(40)),
  named("twilio_auth_token", "TWILIO_AUTH_TOKEN", (r) => r.hex(32)),
  named("cloudflare_api_token", "CLOUDFLARE_API_TOKEN", (r) => r.str(B64URL, 40)),
  named("cloudflare_global_key", "CF_API_KEY", (r) => r.hex(37)),
  named("azure_openai_key", "AZURE_OPENAI_API_KEY", (r) => r.hex(32)),
  named("algolia_admin", "ALGOLIA_ADMIN_API_KEY", (r) => r.hex(32)),
  named("mistral", "MISTRAL_API_KEY", (r) => r.mixed(32)),
  named("cohere", "COHERE_API_KEY", (r) => r.mixed(40)),
  named("deepseek", "DEEPSEEK_API_KEY", (r) => P("sk", "-") + r.hex(32)),
  named("together", "TOGETHER_API_KEY", (r) => r.hex(64)),
  named("wandb", "WANDB_API_KEY", (r) => r.hex(40)),
  named("snyk", "SNYK_TOKEN", (r) => r.uuid()),
  named("codecov", "CODECOV_TOKEN", (r) => r.uuid()),
  named("consul", "CONSUL_HTTP_TOKEN", (r) => r.uuid()),
  named("auth0_client_secret", "AUTH0_CLIENT_SECRET", (r) => r.str(B64URL, 64)),
  // Okta API tokens are `00` + 40 characters: no prefix to find them by outside a named field.
  named("okta_api_token", "OKTA_API_TOKEN", (r) => `00${r.str(B64URL, 40)}`),
  named("okta_client_secret", "OKTA_CLIENT_SECRET", (r) => r.str(B64URL, 40)),
  named("slack_signing_secret", "SLACK_SIGNING_SECRET", (r) => r.hex(32)),
  named("discord_client_secret", "DISCORD_CLIENT_SECRET", (r) => r.str(B64URL, 32)),
  named("ngrok", "NGROK_AUTHTOKEN", (r) => `2${r.mixed(26)}_${r.mixed(21)}`),
  named("vercel_legacy", "VERCEL_TOKEN", (r) => r.mixed(24)),
  named("nextauth_secret", "NEXTAUTH_SECRET", (r) => r.b64(32)),
  named("jwt_secret", "JWT_SECRET", (r) => r.hex(64)),
  named("session_secret", "SESSION_SECRET", (r) => r.mixed(48)),
  named("encryption_key", "ENCRYPTION_KEY", (r) => r.b64(32)),
  named("db_password", "DB_PASSWORD", (r) => r.password()),
  named("redis_password", "REDIS_PASSWORD", (r) => r.password()),
  named("smtp_password", "SMTP_PASSWORD", (r) => r.password()),
  named("ldap_bind_password", "LDAP_BIND_PASSWORD", (r) => r.password()),
  named("admin_password", "ADMIN_PASSWORD", (r) => r.password()),
  named("openai_as_generic", "LLM_API_KEY", (r) => r.mixed(40)),
  named("webhook_secret", "WEBHOOK_SECRET", (r) => r.hex(40)),
  named("client_secret", "CLIENT_SECRET", (r) => r.str(B64URL, 40)),
  named("private_token", "PRIVATE_TOKEN", (r) => r.mixed(20)),
  named(
    "django_secret_key",
    "DJANGO_SECRET_KEY",
    (r) => `django-insecure-${r.str(`${LOWER}${DIGITS}!@#$%^&*(-_=+)`, 50)}`,
  ),
  named("rails_secret_key_base", "SECRET_KEY_BASE", (r) => r.hex(128)),
  named("laravel_app_key", "APP_KEY", (r) => `base64:${r.b64(32)}`),
  // Issue 38: under a password's name a default or a common word is a password too.
  named("default_password", "DB_PASSWORD", (r) =>
    r.pick([
      "welcome1",
      "postgres",
      "letmein",
      "tiger",
      "manager",
      "mysecretpassword",
      "P@ssw0rd",
      "minioadmin",
      "toor",
      "qwerty",
    ]),
  ),
];

const NATIVE_KINDS: NativeKind[] = [
  native("discord_webhook", (r) => {
    const t = r.str(B64URL, 68);
    const url = `https://${r.pick(["discord.com", "discordapp.com", "ptb.discord.com"])}/api/webhooks/${r.str(DIGITS, 19)}/${t}`;
    return {
      text: r.pick([
        `DISCORD_WEBHOOK_URL=${url}`,
        `curl -X POST -H "Content-Type: application/json" -d '{"content":"deploy done"}' ${url}`,
        `{"notify":{"discord":"${url}"}}`,
        `webhook = DiscordWebhook(url="${url}")`,
      ]),
      secrets: [t],
    };
  }),
  native("slack_webhook", (r) => {
    const t = r.mixed(24);
    const url = `https://hooks.slack.com/services/T${r.str(UPPER + DIGITS, 10)}/B${r.str(UPPER + DIGITS, 10)}/${t}`;
    return {
      text: r.pick([`SLACK_WEBHOOK=${url}`, `curl -X POST --data '{"text":"hi"}' ${url}`]),
      secrets: [t],
    };
  }),
  native("netrc", (r) => {
    const pw = r.pick([r.password(), P("gh", "p_") + r.mixed(36), r.hex(40)]);
    const host = r.pick(["api.heroku.com", "github.com", "git.example.com", "nexus.corp.local"]);
    const login = r.pick(["jdoe@example.com", "deploy", "x-access-token"]);
    return {
      text: r.pick([
        `machine ${host}\n  login ${login}\n  password ${pw}\n`,
        `$ cat ~/.netrc\nmachine ${host} login ${login} password ${pw}\nmachine other.example.com login a password ${r.password()}X\n`,
        `default login anonymous password ${pw}`,
      ]),
      secrets: [pw],
    };
  }),
  native("pgpass", (r) => {
    const pw = r.password();
    return {
      text: r.pick([
        `${r.host()}:5432:app:${r.user()}:${pw}\n`,
        `$ cat ~/.pgpass\n# hostname:port:database:username:password\n${r.host()}:5432:*:${r.user()}:${pw}\n`,
        `echo "${r.host()}:5432:orders:postgres:${pw}" >> ~/.pgpass && chmod 600 ~/.pgpass`,
      ]),
      secrets: [pw],
    };
  }),
  native("maven_settings", (r) => {
    const pw = r.password();
    return {
      text: `<settings>\n  <servers>\n    <server>\n      <id>nexus-releases</id>\n      <username>${r.user()}</username>\n      <password>${pw}</password>\n    </server>\n  </servers>\n</settings>`,
      secrets: [pw],
    };
  }),
  native("nuget_config", (r) => {
    const pw = r.pick([r.password(), r.str(LOWER + DIGITS, 52)]);
    return {
      text: `<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSourceCredentials>\n    <MyFeed>\n      <add key="Username" value="${r.user()}" />\n      <add key="ClearTextPassword" value="${pw}" />\n    </MyFeed>\n  </packageSourceCredentials>\n</configuration>`,
      secrets: [pw],
    };
  }),
  native("tomcat_users", (r) => {
    const pw = r.password();
    return {
      text: `<tomcat-users>\n  <role rolename="manager-gui"/>\n  <user username="${r.user()}" password="${pw}" roles="manager-gui,admin-gui"/>\n</tomcat-users>`,
      secrets: [pw],
    };
  }),
  native("xml_connection_string", (r) => {
    const pw = r.password();
    return {
      text: `<connectionStrings>\n  <add name="Default" connectionString="Server=${r.host()};Database=app;User Id=${r.user()};Password=${pw};" providerName="System.Data.SqlClient" />\n</connectionStrings>`,
      secrets: [pw],
    };
  }),
  native("kubeconfig_token", (r) => {
    const t = r.pick([jwt(r), r.str(B64URL, 60), `${r.hex(6)}.${r.hex(16)}`]);
    return {
      text: `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.0.0.1:6443\n  name: prod\nusers:\n- name: admin\n  user:\n    token: ${t}\ncontexts:\n- context: {cluster: prod, user: admin}\n  name: prod\n`,
      secrets: [t],
    };
  }),
  native("kubeconfig_client_key", (r) => {
    const k = Buffer.from(
      `-----BEGIN RSA PRIVATE KEY-----\n${pemBody(r, 600).join("\n")}\n-----END RSA PRIVATE KEY-----\n`,
    ).toString("base64");
    const cert = r.b64(700);
    return {
      text: `users:\n- name: kind-dev\n  user:\n    client-certificate-data: ${cert}\n    client-key-data: ${k}\n`,
      secrets: [k],
    };
  }),
  native("kubeconfig_password", (r) => {
    const pw = r.password();
    return {
      text: `users:\n- name: legacy\n  user:\n    username: admin\n    password: ${pw}\n`,
      secrets: [pw],
    };
  }),
  native("k8s_secret_data", (r) => {
    const pw = Buffer.from(r.password()).toString("base64");
    const tk = Buffer.from(r.mixed(32)).toString("base64");
    return {
      text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-secrets\n  namespace: prod\ntype: Opaque\ndata:\n  ${r.pick(["DB_PASSWORD", "password", "db-pass"])}: ${pw}\n  ${r.pick(["API_TOKEN", "token", "stripe-key", "apiKey"])}: ${tk}\n`,
      secrets: [pw, tk],
    };
  }),
  native("k8s_secret_json", (r) => {
    const pw = Buffer.from(r.password()).toString("base64");
    return {
      text: `$ kubectl get secret db -o json\n{\n    "apiVersion": "v1",\n    "data": {\n        "${r.pick(["password", "POSTGRES_PASSWORD", "root-pw"])}": "${pw}",\n        "username": "cG9zdGdyZXM="\n    },\n    "kind": "Secret"\n}`,
      secrets: [pw],
    };
  }),
  native("docker_config_auth", (r) => {
    const a = Buffer.from(`${r.user()}:${r.password()}`).toString("base64");
    return {
      text: r.pick([
        `{\n\t"auths": {\n\t\t"https://index.docker.io/v1/": {\n\t\t\t"auth": "${a}"\n\t\t}\n\t}\n}`,
        `$ cat ~/.docker/config.json\n{"auths":{"ghcr.io":{"auth":"${a}"}},"credsStore":"desktop"}`,
      ]),
      secrets: [a],
    };
  }),
  native("docker_login_password", (r) => {
    const pw = r.password();
    return { text: `docker login -u ${r.user()} -p ${pw} registry.example.com`, secrets: [pw] };
  }),
  native("azure_storage_connection", (r) => {
    const k = r.b64(64);
    return {
      text: r.pick([
        `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=st${r.str(LOWER, 8)};AccountKey=${k};EndpointSuffix=core.windows.net"`,
        `{"Values":{"AzureWebJobsStorage":"DefaultEndpointsProtocol=https;AccountName=func${r.str(LOWER, 6)};AccountKey=${k};EndpointSuffix=core.windows.net"}}`,
        `conn = BlobServiceClient.from_connection_string("DefaultEndpointsProtocol=https;AccountName=data;AccountKey=${k}")`,
      ]),
      secrets: [k],
    };
  }),
  native("azure_sas", (r) => {
    const sig = encodeURIComponent(r.b64(32));
    return {
      text: `https://st${r.str(LOWER, 6)}.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig=${sig}`,
      secrets: [sig],
    };
  }),
  native("aws_credentials_file", (r) => {
    const id = P("AK", "IA") + r.str(UPPER + "234567", 16);
    const sk = r.str(B64, 40);
    return {
      text: `[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${sk}\nregion = us-east-1\n`,
      secrets: [id, sk],
    };
  }),
  native("aws_configure_set", (r) => {
    const sk = r.str(B64, 40);
    const id = P("AK", "IA") + r.str(UPPER + "234567", 16);
    return {
      text: `aws configure set aws_access_key_id ${id}\naws configure set aws_secret_access_key ${sk}${r.pick(["", " --profile prod"])}`,
      secrets: [id, sk],
    };
  }),
  native("gcp_service_account", (r) => {
    const body = pemBody(r, 1190);
    const keyId = r.hex(40);
    const json = `{\n  "type": "service_account",\n  "project_id": "acme-prod",\n  "private_key_id": "${keyId}",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${body.join("\\n")}\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "ci@acme-prod.iam.gserviceaccount.com",\n  "client_id": "1${r.str(DIGITS, 20)}"\n}`;
    return { text: json, secrets: [keyId, ...body.slice(0, 3)] };
  }),
  native("gcp_service_account_base64", (r) => {
    const body = pemBody(r, 1190);
    const json = JSON.stringify({
      type: "service_account",
      project_id: "acme",
      private_key_id: r.hex(40),
      private_key: `-----BEGIN PRIVATE KEY-----\n${body.join("\n")}\n-----END PRIVATE KEY-----\n`,
      client_email: "deploy@acme.iam.gserviceaccount.com",
    });
    const b = Buffer.from(json).toString("base64");
    return {
      text: r.pick([
        `GOOGLE_CREDENTIALS_B64=${b}`,
        `echo "${b}" | base64 -d > /tmp/sa.json`,
        `  - name: Auth\n    env:\n      GCP_SA_KEY: ${b}\n`,
      ]),
      secrets: [b.slice(200, 400), b.slice(1000, 1200)],
    };
  }),
  native("sentry_dsn", (r) => {
    const k = r.hex(32);
    const dsn = `https://${k}@o${r.str(DIGITS, 6)}.ingest.${r.pick(["", "us."])}sentry.io/${r.str(DIGITS, 7)}`;
    return {
      text: r.pick([
        `SENTRY_DSN=${dsn}`,
        `Sentry.init({ dsn: "${dsn}", tracesSampleRate: 1.0 });`,
        `sentry_sdk.init(dsn="${dsn}")`,
      ]),
      secrets: [k],
    };
  }),
  native("connection_url", (r) => {
    const pw = r.password().replace(/[#%]/g, "x");
    const url = r.pick([
      `postgres://${r.user()}:${pw}@${r.host()}:5432/app`,
      `postgresql://${r.user()}:${pw}@${r.host()}/orders?sslmode=require`,
      `mysql://${r.user()}:${pw}@${r.host()}:3306/shop`,
      `mongodb+srv://${r.user()}:${pw}@cluster0.ab1cd.mongodb.net/test?retryWrites=true`,
      `redis://:${pw}@${r.host()}:6379/0`,
      `amqp://${r.user()}:${pw}@rabbit:5672/vhost`,
      `https://${r.user()}:${pw}@git.example.com/team/repo.git`,
    ]);
    return {
      text: r.pick([
        `DATABASE_URL=${url}`,
        `Error: connect ECONNREFUSED while connecting to ${url}`,
        `engine = create_engine("${url}")`,
        `  url: ${url}`,
      ]),
      secrets: [pw],
    };
  }),
  native("jdbc_password", (r) => {
    const pw = r.password();
    return {
      text: r.pick([
        `spring.datasource.url=jdbc:postgresql://${r.host()}:5432/app?user=app&password=${pw}`,
        `jdbc:sqlserver://${r.host()}:1433;databaseName=app;user=sa;password=${pw};encrypt=true`,
      ]),
      secrets: [pw],
    };
  }),
  native("ado_connection_string", (r) => {
    const pw = r.password();
    return {
      text: `"ConnectionStrings": { "Default": "Server=tcp:${r.host()},1433;Initial Catalog=app;User ID=${r.user()};Password=${pw};Encrypt=True;" }`,
      secrets: [pw],
    };
  }),
  native("git_credentials_store", (r) => {
    const t = P("gh", "p_") + r.mixed(36);
    const pw = r.password().replace(/[#%]/g, "x");
    return {
      text: `$ cat ~/.git-credentials\nhttps://${r.user()}:${t}@github.com\nhttps://bob:${pw}@gitlab.example.com\n`,
      secrets: [t.slice(4), pw],
    };
  }),
  native("npmrc", (r) => {
    const t = r.pick([P("np", "m_") + r.mixed(36), r.uuid(), r.str(B64URL, 40)]);
    return {
      text: r.pick([
        `registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${t}\n`,
        `@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=${t}\nalways-auth=true\n`,
      ]),
      secrets: [t.startsWith("npm_") ? t.slice(4) : t],
    };
  }),
  native("npmrc_auth_password", (r) => {
    const pw = Buffer.from(r.password()).toString("base64");
    const basic = Buffer.from(`${r.user()}:${r.password()}`).toString("base64");
    return {
      text: `//nexus.corp.local/repository/npm/:username=${r.user()}\n//nexus.corp.local/repository/npm/:_password=${pw}\n//artifactory.corp/api/npm/:_auth=${basic}\n`,
      secrets: [pw, basic],
    };
  }),
  native("pypirc", (r) => {
    const t = P("py", "pi-") + `AgEIcHlwaS5vcmc${r.str(B64URL, 150)}`;
    const pw = r.password();
    return {
      text: `[distutils]\nindex-servers =\n    pypi\n    private\n\n[pypi]\nusername = __token__\npassword = ${t}\n\n[private]\nrepository = https://pypi.corp.local/\nusername = ${r.user()}\npassword = ${pw}\n`,
      secrets: [t.slice(5), pw],
    };
  }),
  native("pip_conf", (r) => {
    const pw = r.password().replace(/[#%]/g, "x");
    return {
      text: `[global]\nindex-url = https://${r.user()}:${pw}@pypi.corp.local/simple\ntrusted-host = pypi.corp.local\n`,
      secrets: [pw],
    };
  }),
  native("gem_credentials", (r) => {
    const t = P("ruby", "gems_") + r.hex(48);
    return { text: `---\n:rubygems_api_key: ${t}\n`, secrets: [t.slice(9)] };
  }),
  native("cargo_credentials", (r) => {
    const t = P("ci", "o") + r.mixed(32);
    return { text: `[registry]\ntoken = "${t}"\n`, secrets: [t] };
  }),
  native("yarnrc", (r) => {
    const t = r.str(B64URL, 40);
    return {
      text: `npmRegistries:\n  "https://npm.pkg.github.com":\n    npmAuthToken: ${t}\n`,
      secrets: [t],
    };
  }),
  native("composer_auth", (r) => {
    const t = P("gh", "p_") + r.mixed(36);
    const pw = r.password();
    return {
      text: `{\n    "github-oauth": {\n        "github.com": "${t}"\n    },\n    "http-basic": {\n        "repo.packagist.com": {\n            "username": "token",\n            "password": "${pw}"\n        }\n    }\n}`,
      secrets: [t.slice(4), pw],
    };
  }),
  native("gradle_properties", (r) => {
    const pw = r.password();
    return {
      text: `org.gradle.jvmargs=-Xmx2g\nossrhUsername=${r.user()}\nossrhPassword=${pw}\nsigning.password=${pw}X\n`,
      secrets: [pw],
    };
  }),
  native("terraform_tfvars", (r) => {
    const pw = r.password();
    return {
      text: `region      = "eu-west-1"\ndb_password = "${pw}"\ninstance    = "t3.micro"\n`,
      secrets: [pw],
    };
  }),
  native("wireguard", (r) => {
    const k = r.b64(32);
    return {
      text: `[Interface]\nPrivateKey = ${k}\nAddress = 10.8.0.2/24\n\n[Peer]\nPublicKey = ${r.b64(32)}\nEndpoint = vpn.example.com:51820\n`,
      secrets: [k],
    };
  }),
  native("private_key_pem", (r) => {
    const label = r.pick([
      "RSA PRIVATE KEY",
      "PRIVATE KEY",
      "EC PRIVATE KEY",
      "ENCRYPTED PRIVATE KEY",
      "DSA PRIVATE KEY",
    ]);
    const body = pemBody(r, 600);
    const pem = `-----BEGIN ${label}-----\n${body.join("\n")}\n-----END ${label}-----`;
    return {
      text: r.pick([
        pem,
        `$ cat key.pem\n${pem}\n`,
        `{"file_path":"/srv/key.pem","content":${JSON.stringify(pem)}}`,
      ]),
      secrets: body.slice(0, 4),
    };
  }),
  native("openssh_private_key", (r) => {
    const body = pemBody(r, 300);
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${body.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`;
    return { text: r.pick([key, `cat ~/.ssh/id_ed25519\n${key}`]), secrets: body.slice(0, 3) };
  }),
  native("putty_private_key", (r) => {
    const pub = pemBody(r, 200);
    const priv = pemBody(r, 100);
    return {
      text: `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20260101\nPublic-Lines: ${pub.length}\n${pub.join("\n")}\nPrivate-Lines: ${priv.length}\n${priv.join("\n")}\nPrivate-MAC: ${r.hex(64)}\n`,
      secrets: priv,
    };
  }),
  native("pgp_private_key", (r) => {
    const body = pemBody(r, 500);
    return {
      text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body.join("\n")}\n=${r.str(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----`,
      secrets: body.slice(0, 4),
    };
  }),
  native("curl_basic_user", (r) => {
    const pw = r.password();
    return {
      text: r.pick([
        `curl -u ${r.user()}:${pw} https://api.example.com/v1/items`,
        `curl -s --user "${r.user()}:${pw}" -X GET https://jenkins.local/api/json`,
        `curl -fsSL -u '${r.user()}:${pw}' https://nexus.corp/service/rest/v1/status`,
      ]),
      secrets: [pw],
    };
  }),
  native("basic_auth_header", (r) => {
    const b = Buffer.from(`${r.user()}:${r.password()}`).toString("base64");
    return {
      text: r.pick([
        `curl -H "Authorization: Basic ${b}" https://api.example.com`,
        `{"headers":{"Authorization":"Basic ${b}","Accept":"application/json"}}`,
        `> GET /v1/me HTTP/1.1\n> Host: api.example.com\n> Authorization: Basic ${b}\n`,
      ]),
      secrets: [b],
    };
  }),
  native("bearer_opaque", (r) => {
    const t = r.pick([
      r.hex(40),
      r.hex(64),
      r.str(B64URL, 48),
      `${r.str(B64URL, 20)}.${r.str(B64URL, 30)}`,
      r.mixed(32),
    ]);
    return {
      text: r.pick([
        `curl -H "Authorization: Bearer ${t}" https://api.example.com/v2/users`,
        `{"method":"GET","header":[{"key":"Authorization","value":"Bearer ${t}","type":"text"}],"url":{"raw":"{{baseUrl}}/users"}}`,
        `headers = {"Authorization": f"Bearer ${t}"}`,
        `fetch(url, { headers: { Authorization: "Bearer ${t}" } })`,
        `< HTTP/1.1 401\n> Authorization: Bearer ${t}\n`,
        `http GET api.example.com/me "Authorization:Bearer ${t}"`,
      ]),
      secrets: [t],
    };
  }),
  native("postman_bearer", (r) => {
    const t = r.pick([r.hex(48), r.str(B64URL, 44)]);
    return {
      text: `{"info":{"name":"API"},"auth":{"type":"bearer","bearer":[{"key":"token","value":"${t}","type":"string"}]},"item":[]}`,
      secrets: [t],
    };
  }),
  native("cookie_header", (r) => {
    const s = r.str(B64URL, 40);
    return {
      text: r.pick([
        `curl -b "sessionid=${s}; csrftoken=${r.mixed(32)}" https://app.example.com/`,
        `Cookie: _ga=GA1.2.3; session=${s}; theme=dark`,
        `Set-Cookie: connect.sid=s%3A${s}; Path=/; HttpOnly; Secure`,
        `{"headers":{"cookie":"sid=${s}"}}`,
        `curl -H 'Cookie: auth_session=${s}' https://example.com`,
      ]),
      secrets: [s],
    };
  }),
  native("cli_flag_secret", (r) => {
    const t = r.pick([r.password(), r.mixed(32), r.hex(40)]);
    return {
      text: r.pick([
        `vault login -method=userpass username=admin password=${t}`,
        `mysql -h ${r.host()} -u root -p${t} app`,
        `PGPASSWORD=${t} psql -h ${r.host()} -U app`,
        `sshpass -p '${t}' ssh deploy@${r.host()}`,
        `mycli --password ${t} --host ${r.host()}`,
        `gh auth login --with-token <<< ${P("gh", "p_")}${t}`,
        `terraform apply -var "db_password=${t}"`,
        `helm install app ./chart --set auth.password=${t}`,
        `docker run -e POSTGRES_PASSWORD=${t} postgres:16`,
        `az login --service-principal -u http://app -p ${t} --tenant contoso.onmicrosoft.com`,
        `keytool -importkeystore -srckeystore a.p12 -storepass ${t} -keypass ${t}`,
        `openssl pkcs12 -export -in c.pem -passout pass:${t} -out c.p12`,
        `npx wrangler secret put API_KEY --token ${t}`,
        `python manage.py createsuperuser --password=${t}`,
        `rclone config create s3 s3 access_key_id AKIAXXX secret_access_key ${t}`,
        `redis-cli -a ${t} -h ${r.host()} ping`,
        `mongosh "mongodb://${r.host()}" -u admin -p '${t}'`,
        `kubectl create secret generic db --from-literal=password=${t}`,
        `java -jar app.jar --spring.datasource.password=${t}`,
        `ansible-playbook site.yml -e "ansible_become_pass=${t}"`,
        `wget --user=${r.user()} --password=${t} https://files.example.com/a.tgz`,
        `git clone https://oauth2:${t}@gitlab.com/group/proj.git`,
      ]),
      secrets: [t],
    };
  }),
  native("framework_secret", (r) => {
    const k = r.pick([r.str(`${LOWER}${DIGITS}!@#$%^&*(-_=+)`, 50), r.hex(64), r.mixed(40)]);
    return {
      text: r.pick([
        `# settings.py\nDEBUG = False\nSECRET_KEY = '${k}'\nALLOWED_HOSTS = ["*"]`,
        `app = Flask(__name__)\napp.secret_key = "${k}"`,
        `app.config["SECRET_KEY"] = "${k}"`,
        `production:\n  secret_key_base: ${r.hex(128)}${k.slice(0, 0)}`,
        `Rails.application.config.secret_key_base = "${k}"`,
        `app.use(session({ secret: "${k}", resave: false }))`,
      ]),
      secrets: [k],
    };
  }),
  native("rails_secret_key_base", (r) => {
    const k = r.hex(128);
    return {
      text: r.pick([`production:\n  secret_key_base: ${k}\n`, `SECRET_KEY_BASE=${k} bin/rails s`]),
      secrets: [k],
    };
  }),
  native("json_escaped_secret", (r) => {
    const pw = r.password();
    const inner = `{"password":"${pw}","user":"${r.user()}"}`;
    return {
      text: r.pick([
        JSON.stringify({ tool_response: { stdout: inner } }),
        JSON.stringify(JSON.stringify({ config: JSON.parse(inner) })),
        `{"body":"{\\u0022api_key\\u0022:\\u0022${pw}\\u0022}"}`,
        `$data = "{\\"db_password\\":\\"${pw}\\"}";`,
        `log.Printf("config: %s", "{\\"secret\\":\\"${pw}\\"}")`,
        `{"msg":"{\\"token\\":\\"${pw}\\",\\"url\\":\\"https:\\/\\/api.example.com\\"}"}`,
      ]),
      secrets: [pw],
    };
  }),
  native("nested_json", (r) => {
    const t = r.mixed(32);
    return {
      text: JSON.stringify(
        r.pick([
          { service: { db: { credentials: { user: "app", password: t } } } },
          { providers: [{ name: "openai", config: { apiKey: t } }] },
          { mcpServers: { github: { command: "npx", env: { GITHUB_PERSONAL_ACCESS_TOKEN: t } } } },
          { auth: { oauth: { client_id: "abc", client_secret: t } } },
        ]),
        null,
        r.pick([0, 2]),
      ),
      secrets: [t],
    };
  }),
  native("yaml_secret_field", (r) => {
    const t = r.mixed(28);
    return {
      text: r.pick([
        `database:\n  host: ${r.host()}\n  password: ${t}\n`,
        `spring:\n  datasource:\n    password: "${t}"\n`,
        `env:\n  - name: API_TOKEN\n    value: ${t}\n`,
        `services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${t}\n`,
        `smtp:\n  auth_password: '${t}'\n`,
      ]),
      secrets: [t],
    };
  }),
  native("env_file", (r) => {
    const t = r.pick([r.mixed(30), r.password(), r.hex(32)]);
    const name = r.pick(["DB_PASSWORD", "STRIPE_SECRET", "API_KEY", "AUTH_TOKEN", "MAILER_PASS", "SECRET"]);
    return {
      text: r.pick([
        `NODE_ENV=production\nPORT=3000\n${name}=${t}\n`,
        `# .env.local\n${name}="${t}"\n`,
        `export ${name}='${t}'`,
        `${name}=${t} npm run start`,
      ]),
      secrets: [t],
    };
  }),
  native("url_password_query", (r) => {
    const t = r.mixed(32);
    return {
      text: r.pick([
        `GET https://api.example.com/v1/data?access_token=${t}&page=2`,
        `wss://stream.example.com/socket?token=${t}`,
        `https://maps.example.com/api/js?key=${t}&callback=init`,
        `https://hooks.example.com/notify?api_key=${t}`,
      ]),
      secrets: [t],
    };
  }),
  native("split_concat_code", (r) => {
    const t = P("gh", "p_") + r.mixed(36);
    const a = t.slice(0, 20);
    const b = t.slice(20);
    return {
      text: r.pick([
        `const token = "${a}" + "${b}";`,
        `TOKEN = ("${a}"\n         "${b}")`,
        `token := "${a}" +\n\t"${b}"`,
        `String t = "${a}"\n    + "${b}";`,
        `$token = '${a}' . '${b}';`,
      ]),
      secrets: [t],
      prefixes: ["ghp_"],
    };
  }),
  native("split_array_parts", (r) => {
    const t = P("sk", "-ant-api03-") + `${r.str(B64URL, 93)}AA`;
    const parts = [t.slice(0, 30), t.slice(30, 70), t.slice(70)];
    return {
      text: r.pick([
        JSON.stringify({ parts }),
        `key = "".join(${JSON.stringify(parts)})`,
        `const k = [${parts.map((p) => `'${p}'`).join(", ")}].join("");`,
      ]),
      secrets: [t],
      prefixes: ["sk-ant-api03-"],
    };
  }),
  native("split_stream_deltas", (r) => {
    const t = P("sk", "-proj-") + `${r.str(B64URL, 74)}T3BlbkFJ${r.str(B64URL, 74)}`;
    const cuts = [0, 12, 50, 95, 130, t.length];
    const lines: string[] = [];
    const anthropic = r.chance(0.5);
    for (let i = 0; i + 1 < cuts.length; i++) {
      const d = t.slice(cuts[i], cuts[i + 1]);
      lines.push(
        anthropic
          ? `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(d)}}}\n`
          : `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(d)}}}]}\n`,
      );
    }
    return { text: lines.join("\n"), secrets: [t], prefixes: ["sk-proj-"] };
  }),
  native("split_wrapped_line", (r) => {
    const t = P("gl", "pat-") + r.str(B64URL, 20);
    const k = P("AI", "za") + r.str(B64URL, 35);
    const w = r.pick([t, k]);
    const cut = 10 + r.int(8);
    const lead = "x".repeat(0);
    return {
      text: r.pick([
        `${lead}│ token: ${w.slice(0, cut)}\n│ ${w.slice(cut)} │`,
        `Your new key:\n  ${w.slice(0, cut)}\n  ${w.slice(cut)}\n`,
        `export GOOGLE_API_KEY=${w.slice(0, cut)}\\\n${w.slice(cut)}`,
      ]),
      secrets: [w],
      prefixes: [w.startsWith("glpat") ? "glpat-" : "AIza"],
    };
  }),
  native("split_shell_vars", (r) => {
    const t = P("gh", "p_") + r.mixed(36);
    const a = t.slice(0, 18);
    const b = t.slice(18);
    return {
      text: r.pick([
        `P1=${a}\nP2=${b}\nexport GITHUB_TOKEN="$P1$P2"\n`,
        `A='${a}'; B='${b}'; curl -H "Authorization: token \${A}\${B}" https://api.github.com/user`,
      ]),
      secrets: [t],
      prefixes: ["ghp_"],
    };
  }),
  native("hook_payload_secret", (r) => {
    const t = r.pick([
      P("gh", "p_") + r.mixed(36),
      P("sk", "-ant-api03-") + `${r.str(B64URL, 93)}AA`,
      r.password(),
    ]);
    const cmd = r.pick([
      `export API_TOKEN=${t} && ./deploy.sh`,
      `curl -H 'X-Api-Key: ${t}' https://api.example.com`,
      `echo ${t} | docker login ghcr.io -u bot --password-stdin`,
    ]);
    return {
      text: JSON.stringify({
        session_id: r.uuid(),
        transcript_path: `/home/dev/.claude/projects/-home-dev-app/${r.uuid()}.jsonl`,
        cwd: "/home/dev/app",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: cmd, description: "Deploy" },
        tool_use_id: `toolu_01${r.mixed(22)}`,
      }),
      secrets: [t.startsWith("ghp_") ? t.slice(4) : t.startsWith("sk-ant") ? t.slice(13) : t],
    };
  }),
  native("transcript_secret", (r) => {
    const t = r.pick([
      P("gh", "p_") + r.mixed(36),
      P("xo", "xb-") + `${r.str(DIGITS, 12)}-${r.str(DIGITS, 13)}-${r.mixed(24)}`,
    ]);
    const rec = {
      parentUuid: r.uuid(),
      type: "user",
      message: {
        role: "user",
        content: [
          {
            tool_use_id: `toolu_01${r.mixed(22)}`,
            type: "tool_result",
            content: `$ cat .env\nNODE_ENV=dev\nTOKEN=${t}\n`,
          },
        ],
      },
      uuid: r.uuid(),
      timestamp: "2026-11-30T10:00:00.000Z",
    };
    return { text: JSON.stringify(rec), secrets: [t.slice(5)] };
  }),
  native("github_actions_literal", (r) => {
    const t = r.mixed(32);
    return {
      text: `jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      NPM_TOKEN: ${t}\n    steps:\n      - run: npm publish\n`,
      secrets: [t],
    };
  }),
  native("env_secret_in_ci_json", (r) => {
    const t = r.mixed(32);
    return {
      text: `{"name":"ci","env":{"SONAR_LOGIN":"${t}","NODE_VERSION":"20"}}`,
      secrets: [t],
    };
  }),
  native("private_key_json_escaped_in_transcript", (r) => {
    const body = pemBody(r, 400);
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body.join("\n")}\n-----END RSA PRIVATE KEY-----`;
    const rec = { type: "tool_result", content: JSON.stringify({ stdout: pem }) };
    return { text: JSON.stringify(rec), secrets: body.slice(0, 3) };
  }),
  // Issue 38: a password hash cracks to its password; its salt and hash go, its algorithm stays.
  native("password_hash", (r) => {
    const crypt = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const bcrypt = r.str(crypt, 53);
    const sha = `${r.str(crypt, 16)}$${r.str(crypt, 86)}`;
    const apr = `${r.str(crypt, 8)}$${r.str(crypt, 22)}`;
    const user = r.pick(["deploy", "alice", "svc_app"]);
    return r.pick([
      {
        text: `INSERT INTO users (id, name, password) VALUES (7, '${user}', '$2y$10$${bcrypt}');`,
        secrets: [bcrypt],
      },
      { text: `${user}:$6$${sha}:19700:0:99999:7:::`, secrets: [sha] },
      { text: `${user}:$apr1$${apr}`, secrets: [apr] },
      { text: `password_hash = "$2b$12$${bcrypt}"`, secrets: [bcrypt] },
    ]);
  }),
];

// ---------------------------------------------------------------------------
// Contexts a self-identifying token or a named value is embedded in
// ---------------------------------------------------------------------------

type Ctx = (r: Rand, name: string, v: string) => string;

const lower = (name: string) => name.toLowerCase();
const camel = (name: string) => lower(name).replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const KEYED_CONTEXTS: Ctx[] = [
  (_r, n, v) => `${n}=${v}`,
  (_r, n, v) => `export ${n}="${v}"`,
  (_r, n, v) => `{"${n}": "${v}"}`,
  (r, n, v) => `${lower(n)}: ${v}${r.pick(["", "\n"])}`,
  (_r, n, v) => `  ${lower(n)} = "${v}"`,
  (_r, n, v) => `${camel(n)}: "${v}",`,
  (_r, n, v) => `os.environ["${n}"] = "${v}"`,
  (_r, n, v) => `process.env.${n} = "${v}";`,
  (_r, n, v) => `ENV ${n}=${v}`,
  (_r, n, v) => `docker run -e ${n}=${v} app:latest`,
  (_r, n, v) => `$env:${n} = "${v}"`,
  (_r, n, v) => `set ${n}=${v}`,
  (_r, n, v) => `      - ${n}=${v}`,
  (_r, n, v) => `[default]\n${lower(n)} = ${v}`,
  (r, n, v) =>
    JSON.stringify({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "cat .env" },
      tool_response: {
        stdout: `NODE_ENV=production\n${n}=${v}\nLOG_LEVEL=info\n`,
        stderr: "",
        interrupted: false,
      },
      session_id: r.uuid(),
    }),
  (r, n, v) =>
    JSON.stringify({
      type: "assistant",
      message: { content: [{ type: "text", text: `Set \`${n}=${v}\` in your shell.` }] },
      uuid: r.uuid(),
    }),
  (_r, n, v) => `const ${camel(n)} = "${v}";`,
  (_r, n, v) => `${lower(n)} := "${v}"`,
  (_r, n, v) => `let ${lower(n)} = "${v}";`,
  (_r, n, v) => `private static final String ${n} = "${v}";`,
  (_r, n, v) => `$${lower(n)} = '${v}';`,
  (_r, n, v) => `${n.toLowerCase()}="${v}" # from vault`,
  (_r, n, v) => `gh secret set ${n} --body "${v}"`,
  (_r, n, v) => `  "${camel(n)}": "${v}"`,
  (_r, n, v) => `${lower(n)} = '${v}'`,
  (_r, n, v) => `<add ${camel(n)}="${v}" />`,
  (_r, n, v) => `cfg = {'${lower(n)}': '${v}', 'debug': True}`,
  (_r, n, v) => `cfg := Config{\n\t${camel(n)}: "${v}",\n}`,
  (_r, n, v) => `let ${lower(n)} = String::from("${v}");`,
  (_r, n, v) => `set -gx ${n} ${v}`,
  (_r, n, v) => `- name: ${n}\n  value: "${v}"`,
  (_r, n, v) => `level=info msg="connected" ${lower(n)}=${v} latency=3ms`,
  (_r, n, v) => `curl -d '{"${lower(n)}":"${v}"}' https://api.example.com/v1/login`,
];

const TOKEN_ONLY_CONTEXTS: Ctx[] = [
  (_r, _n, v) => v,
  (_r, _n, v) => `Here is my key ${v} can you check why it fails?`,
  (_r, _n, v) => `Error: 401 Unauthorized (token ${v.slice(0, v.length)} rejected)`,
  (_r, _n, v) => `\`\`\`\n${v}\n\`\`\``,
  (_r, _n, v) => `curl -H "Authorization: Bearer ${v}" https://api.example.com/v1/me`,
  (_r, _n, v) => `client = Client(api_key="${v}")`,
  (_r, _n, v) => `new Client({ auth: '${v}' })`,
  (r, _n, v) => JSON.stringify({ role: "user", content: `please rotate ${v} asap`, id: r.uuid() }),
  (_r, _n, v) => `- ${v}`,
  (_r, _n, v) => `<value>${v}</value>`,
  (_r, _n, v) => `"${v}",`,
  (_r, _n, v) => `mytool --api-key ${v} --verbose`,
];

// ---------------------------------------------------------------------------
// Look-alikes: must survive byte for byte
// ---------------------------------------------------------------------------

type LookGen = (r: Rand) => string;

const FIXTURE_DIR = join(fileURLToPath(new URL("../test/fixtures/lookalikes/", import.meta.url)));

const LOOKALIKES: Record<string, LookGen[]> = {
  git_sha: [
    (r) =>
      `commit ${r.hex(40)}\nAuthor: Dev <dev@example.com>\nDate:   Mon Nov 30 10:00:00 2026 +0000\n\n    fix: handle token refresh\n`,
    (r) =>
      `${r.hex(7)} feat: add secret rotation\n${r.hex(7)} chore: bump deps\n${r.hex(7)} fix(auth): token expiry`,
    (r) =>
      `{"sha":"${r.hex(40)}","node_id":"C_kwDO${r.mixed(20)}","commit":{"message":"Update password reset flow"}}`,
    (r) => `HEAD is now at ${r.hex(7)} Merge pull request #${r.int(9999)} from org/fix-key`,
  ],
  uuid: [
    (r) => `{"session_id":"${r.uuid()}","request_id":"${r.uuid()}","trace_id":"${r.hex(32)}"}`,
    (r) => `id: ${r.uuid()}\nparentUuid: ${r.uuid()}`,
    (r) => `x-request-id: ${r.uuid()}\ncf-ray: ${r.hex(16)}-FRA`,
  ],
  lockfile_integrity: [
    (r) =>
      `    "node_modules/${r.pick(["jsonwebtoken", "keytar", "passport"])}": {\n      "version": "9.0.2",\n      "resolved": "https://registry.npmjs.org/jsonwebtoken/-/jsonwebtoken-9.0.2.tgz",\n      "integrity": "sha512-${r.b64(64)}",\n      "dev": true\n    }`,
    (r) =>
      `"@aws-sdk/credential-providers@^3.0.0":\n  version "3.600.0"\n  resolved "https://registry.yarnpkg.com/x.tgz#${r.hex(40)}"\n  integrity sha512-${r.b64(64)}`,
  ],
  image_digest: [
    (r) => `FROM node:20-alpine@sha256:${r.hex(64)}`,
    (r) => `image: ghcr.io/org/app@sha256:${r.hex(64)}\nimagePullPolicy: IfNotPresent`,
    (r) => `Digest: sha256:${r.hex(64)}\nStatus: Downloaded newer image for postgres:16`,
  ],
  go_sum: [
    (r) => `golang.org/x/oauth2 v0.21.0 h1:${r.b64(32)}\ngolang.org/x/oauth2 v0.21.0/go.mod h1:${r.b64(32)}`,
    (r) => `github.com/golang-jwt/jwt/v5 v5.2.1 h1:${r.b64(32)}`,
  ],
  base64_blob: [
    (r) =>
      `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo${r.b64(1500)}"}}`,
    (r) => `<img src="data:image/jpeg;base64,/9j/4AAQSkZJRg${r.b64(900)}">`,
    (r) => `"content": "${r.b64(600)}", "encoding": "base64"`,
  ],
  public_key_certificate: [
    (r) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${r.b64(32).replace(/=+$/, "")} dev@laptop`,
    (r) => `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ${r.b64(380).replace(/=+$/, "")} ci@build`,
    (r) => `-----BEGIN CERTIFICATE-----\n${pemBody(r, 900).join("\n")}\n-----END CERTIFICATE-----`,
    (r) => `-----BEGIN PUBLIC KEY-----\n${pemBody(r, 294).join("\n")}\n-----END PUBLIC KEY-----`,
    (r) =>
      `github.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAI${r.b64(70).replace(/=+$/, "")}`,
    (r) =>
      `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${pemBody(r, 600).join("\n")}\n-----END PGP PUBLIC KEY BLOCK-----`,
  ],
  code_identifier: [
    () => `const tokenCount = countTokens(prompt);\nif (tokenCount > maxTokens) throw new Error("too long");`,
    () => `def get_api_key(self) -> str:\n    return self._api_key\n`,
    () => `password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())`,
    () => `export function verifyToken(token: string, secret: Secret): Claims {`,
    () => `let secretKeyRef = spec.env.valueFrom.secretKeyRef;`,
    () => `type Credentials = { username: string; password: string };`,
    () => `if err := validateToken(ctx, req.Token); err != nil {`,
    () => `self.auth_token = auth_token\nself.password = kwargs.get("password")`,
    () => `const { apiKey } = config;\nconst headers = { Authorization: \`Bearer \${apiKey}\` };`,
    () => `    token = request.headers.get("Authorization", "").removeprefix("Bearer ")`,
    () => `password = getpass.getpass("Password: ")`,
    () => `secret = os.environ.get("SECRET_KEY")`,
  ],
  token_counter: [
    (r) =>
      `{"usage":{"input_tokens":${r.int(90000)},"cache_creation_input_tokens":${r.int(9000)},"cache_read_input_tokens":${r.int(90000)},"output_tokens":${r.int(4000)}}}`,
    (r) =>
      `"usage": {"prompt_tokens": ${r.int(5000)}, "completion_tokens": ${r.int(900)}, "total_tokens": ${r.int(6000)}}`,
    (r) => `max_tokens: ${r.pick([1024, 4096, 8192])}\ntoken_budget: ${r.int(20000)}`,
    (r) =>
      `{"usageMetadata":{"promptTokenCount":${r.int(9000)},"candidatesTokenCount":${r.int(900)},"thoughtsTokenCount":${r.int(500)}}}`,
  ],
  package_name: [
    () => `npm install @aws-sdk/credential-providers passport-oauth2 jsonwebtoken keytar`,
    () =>
      `"dependencies": { "next-auth": "^4.24.0", "secret-handshake": "1.1.0", "@octokit/auth-token": "5.1.1" }`,
    () => `pip install google-auth oauthlib python-dotenv keyring`,
    () => `require (\n\tgithub.com/golang-jwt/jwt/v5 v5.2.1\n\tgolang.org/x/oauth2 v0.21.0\n)`,
  ],
  path: [
    () => `ls -la ~/.ssh/id_rsa ~/.aws/credentials ~/.config/gh/hosts.yml`,
    () => `/home/dev/app/src/auth/token-store.ts:42:7 - error TS2345`,
    () => `Reading secrets from /etc/secrets/db-password (mounted by kubelet)`,
    () => `C:\\Users\\dev\\AppData\\Roaming\\npm\\node_modules\\@google\\gemini-cli`,
  ],
  prose: [
    () =>
      `The token is sent in the Authorization header; rotate the secret key weekly and never commit passwords.`,
    () => `Use a Bearer token for the API and Basic authentication for the legacy endpoints.`,
    () => `I updated the password reset flow so the token expires after 15 minutes.`,
    () => `Secrets are stored in the vault; the key: value pairs are injected at deploy time.`,
  ],
  already_masked: [
    () => P("gh", "o_") + "************************************",
    () => `{"authorization":"[REDACTED]","content-type":"application/json"}`,
    () => `Authorization: Bearer ***`,
    () => `DB_PASSWORD=********`,
    () => `api_key: sk-...${"a1B2"}`,
    () => `token: "${P("gh", "p_")}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"`,
    () => `"password": "<redacted>"`,
    () => `AWS_SECRET_ACCESS_KEY=****************************************`,
    () => `Logged in with token ${P("gh", "p_")}****...****`,
    () => `{"api_key":"•••••••••••••"}`,
    () => `x-api-key: [REDACTED:api_key]`,
    () => `  password: "***REMOVED***"`,
  ],
  placeholder: [
    () => `export GITHUB_TOKEN=<your token>`,
    () => `OPENAI_API_KEY=your-api-key-here`,
    () => `"client_secret": "REPLACE_ME"`,
    () => `password: changeme`,
    () => `DB_PASSWORD=changeme123`,
    () => `api_key = "$API_KEY"`,
    () => `token: \${{ secrets.NPM_TOKEN }}`,
    () => `const key = process.env.STRIPE_SECRET_KEY;`,
    () => `password = os.environ["DB_PASSWORD"]`,
    () => `SECRET_KEY=xxxxxxxxxxxxxxxx`,
    () => `Authorization: Bearer <token>`,
    () => `curl -H "Authorization: Bearer $TOKEN" https://api.github.com/user`,
    () => `ANTHROPIC_API_KEY=sk-ant-...`,
    () => `password: "{{ vault_db_password }}"`,
    () => `token = "\${var.api_token}"`,
    () => `"apiKey": "YOUR_API_KEY"`,
    () => `export AWS_SECRET_ACCESS_KEY=<secret>`,
    () => `password=%(password)s`,
    () => `STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx`,
    () => `"password": ""`,
    () => `token: null`,
    () => `password: !Ref DbPassword`,
    () => `secret = "TODO"`,
    () => `"token": "your_token_here"`,
    () => `api_key: "<YOUR_API_KEY>"`,
    () => `password = getenv("DB_PASS")`,
    () => `DATABASE_URL=postgres://user:password@localhost:5432/db`,
    () => `AWS_ACCESS_KEY_ID=${P("AK", "IA")}IOSFODNN7EXAMPLE`,
    () => `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`,
    () => `token: "dummy-token-for-tests"`,
    () => `token: "example"`,
    () => `"apiKey": "\${OPENAI_API_KEY}"`,
    () => `curl -H "Authorization: Bearer [your-token]" https://api.example.com`,
    () => `--password {{ db_password }}`,
    () => `"api_key": "(hidden)"`,
    () => `SLACK_BOT_TOKEN=${P("xo", "xb")}-your-token`,
    () => `headers: { Authorization: "Bearer env.API_KEY" }`,
    () => `token: test-token`,
    () => `"secret": "my-secret-key"`,
    () => `"api_key": "undefined"`,
    () => `API_KEY=0000000000000000`,
  ],
  cli_help: [
    () => `  -p, --password[=name]  Password to use when connecting to server.`,
    () =>
      `USAGE\n  gh auth login [flags]\n\nFLAGS\n  -h, --hostname string   The hostname of the GitHub instance\n      --with-token        Read token from standard input\n  -s, --scopes strings    Additional authentication scopes`,
    () =>
      `Options:\n  --token TEXT       API token (or set API_TOKEN)\n  --password TEXT    Password for basic auth\n  --help             Show this message and exit.`,
    () => `  -u, --user <user:password>  Server user and password`,
    () => `      --password-stdin   Take the password from stdin`,
    () => `  --api-key=KEY        the key to use (default: $API_KEY)`,
    () => `  -a, --auth-token <token>   auth token to use`,
    () => `  --secret-key string    Secret key used for signing (env SECRET_KEY)`,
    () => `--token <value>  Personal access token [env: GITHUB_TOKEN=]`,
    () => `  -P, --passphrase=PHRASE   read passphrase from PHRASE`,
  ],
  actions_yaml: [
    () => `permissions:\n  id-token: write\n  contents: read`,
    () =>
      `      - uses: actions/checkout@v4\n        with:\n          token: \${{ secrets.GITHUB_TOKEN }}\n          persist-credentials: false`,
    () => `    secrets: inherit`,
    () => `env:\n  NODE_AUTH_TOKEN: \${{ secrets.NPM_TOKEN }}\n  TOKEN_TYPE: bearer`,
    () =>
      `    steps:\n      - uses: aws-actions/configure-aws-credentials@v4\n        with:\n          role-to-assume: arn:aws:iam::123456789012:role/deploy\n          aws-region: us-east-1`,
    () => `valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password`,
    () => `auth:\n  type: oauth\n  required: true`,
    () => `token_endpoint_auth_method: client_secret_basic`,
  ],
  lookalike_id: [
    (r) => `{"id":"msg_01${r.mixed(22)}","type":"message","model":"claude-sonnet-4"}`,
    (r) => `{"type":"tool_use","id":"toolu_01${r.mixed(22)}","name":"Bash"}`,
    (r) => `{"id":"chatcmpl-${r.mixed(29)}","object":"chat.completion"}`,
    (r) => `{"call_id":"call_${r.mixed(24)}","type":"function_call"}`,
    (r) => `request-id: req_${r.mixed(24)}`,
    (r) => `"signature": "${r.b64(200)}"`,
    (r) => `run_id=${r.str(DIGITS, 11)} job_id=${r.str(DIGITS, 11)}`,
    (r) => `arn:aws:iam::${r.str(DIGITS, 12)}:role/ci-deploy`,
    (r) => `"etag": "W/\\"${r.hex(32)}\\""`,
    (r) => `pi_${r.mixed(24)} cus_${r.mixed(14)} evt_${r.mixed(24)}`,
  ],
  config_reference: [
    () => `password = var.db_password\nsensitive = true`,
    () =>
      `env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password`,
    () => `environment:\n  POSTGRES_PASSWORD: \${POSTGRES_PASSWORD}\n  API_TOKEN: \${API_TOKEN:-}`,
    () => `password: {{ .Values.db.password | quote }}`,
    () => `apiKey: process.env.OPENAI_API_KEY ?? "",`,
    () => `token = os.getenv("GITHUB_TOKEN", "")`,
    () => `let key = std::env::var("API_KEY").expect("API_KEY not set");`,
    () => `secret := os.Getenv("JWT_SECRET")`,
    () => `String password = System.getenv("DB_PASSWORD");`,
    () => `API_KEY=\nSECRET_KEY=\nDATABASE_URL=`,
    () => `# .env.example\nSTRIPE_SECRET_KEY=sk_live_...\nSTRIPE_WEBHOOK_SECRET=whsec_...`,
    () => `"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}`,
    () => `"apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}`,
    () => `; //registry.npmjs.org/:_authToken = (protected)`,
    () => `curl -H "Authorization: Bearer {token}" https://api.example.com`,
    () => `headers: { Authorization: \`token \${process.env.GH_TOKEN}\` }`,
    () => `aws_secret_access_key = {{ aws_secret }}`,
    () => `password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  ${"3".repeat(0)}`,
    () => `client_secret: "\${{ secrets.AZURE_CLIENT_SECRET }}"`,
    () => `"password": null, "token": false, "apiKey": true`,
  ],
  tool_output: [
    (_r) =>
      `$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account dev (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: ${P("gh", "o_")}************************************\n  - Token scopes: 'gist', 'read:org', 'repo'`,
    (r) =>
      `$ aws sts get-caller-identity\n{\n    "UserId": "AIDA${r.str(UPPER + "234567", 17)}",\n    "Account": "${r.str(DIGITS, 12)}",\n    "Arn": "arn:aws:iam::${r.str(DIGITS, 12)}:user/dev"\n}`,
    (_r) =>
      `$ git config --list\nuser.name=Dev\nuser.email=dev@example.com\ncredential.helper=osxkeychain\ncore.editor=vim`,
    (r) =>
      `$ docker ps\nCONTAINER ID   IMAGE         COMMAND                  STATUS\n${r.hex(12)}   postgres:16   "docker-entrypoint.s…"   Up 2 hours`,
    (r) =>
      `$ kubectl get secrets\nNAME                  TYPE                                  DATA   AGE\ndb-credentials        Opaque                                2      3d\ndefault-token-${r.str(LOWER + DIGITS, 5)}   kubernetes.io/service-account-token   3      40d`,
    (r) =>
      `npm warn deprecated inflight@1.0.6: This module is not supported\nadded ${r.int(900)} packages, and audited ${r.int(900)} packages in 3s\nfound 0 vulnerabilities`,
    (_r) =>
      `Traceback (most recent call last):\n  File "/app/auth/token.py", line 42, in refresh_token\n    raise TokenExpiredError("token expired")\nauth.errors.TokenExpiredError: token expired`,
    (r) =>
      `    at verifyToken (/srv/app/node_modules/jsonwebtoken/verify.js:${r.int(200)}:21)\n    at AuthService.validate (/srv/app/dist/auth.js:${r.int(90)}:9)`,
    (r) =>
      `diff --git a/src/auth.ts b/src/auth.ts\nindex ${r.hex(7)}..${r.hex(7)} 100644\n--- a/src/auth.ts\n+++ b/src/auth.ts\n@@ -10,7 +10,7 @@\n-  const token = getToken();\n+  const token = await getToken(scope);`,
    (r) =>
      `$ keytool -list -keystore app.jks\nKeystore type: PKCS12\nYour keystore contains 1 entry\n\nserver, Dec 1, 2026, PrivateKeyEntry,\nCertificate fingerprint (SHA-256): ${Array.from({ length: 32 }, () => r.hex(2).toUpperCase()).join(":")}`,
    (r) =>
      `$ gpg --list-secret-keys\nsec   ed25519 2026-01-01 [SC]\n      ${r.hex(40).toUpperCase()}\nuid           [ultimate] Dev <dev@example.com>`,
    (_r) =>
      `$ ssh-keyscan github.com\ngithub.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl`,
    (r) =>
      `HTTP/1.1 200 OK\ncontent-type: application/json\nx-request-id: ${r.uuid()}\netag: "${r.hex(32)}"\nset-cookie: theme=dark; Path=/`,
    (r) => `PING 10.0.0.1: 56 data bytes\n64 bytes from 10.0.0.1: icmp_seq=0 ttl=64 time=0.${r.int(999)} ms`,
    (r) =>
      `eth0: flags=4163<UP,BROADCAST,RUNNING>  mtu 1500\n        ether ${Array.from({ length: 6 }, () => r.hex(2)).join(":")}  txqueuelen 1000\n        inet6 fe80::${r.hex(4)}:${r.hex(4)}:${r.hex(4)}:${r.hex(4)}  prefixlen 64`,
    (r) =>
      `2026-11-30 10:00:00.123 INFO  [main] c.e.Auth - token refreshed for user=${r.int(9999)} in ${r.int(99)}ms`,
    (r) =>
      `{"level":"info","msg":"request","status":200,"duration_ms":${r.int(999)},"token_count":${r.int(9999)},"trace":"${r.hex(32)}"}`,
    (r) => `sha256sum dist/app.tar.gz\n${r.hex(64)}  dist/app.tar.gz`,
    (r) => `Successfully built ${r.hex(12)}\nSuccessfully tagged app:latest`,
    (r) => `.btn-primary { color: #${r.hex(6)}; background: #${r.hex(6)}; }`,
  ],
  markdown_docs: [
    () =>
      `## Setup\n\n1. Create a token at https://github.com/settings/tokens\n2. Run \`export GITHUB_TOKEN=<token>\`\n3. Start the server with \`npm start\``,
    () => `Set \`OPENAI_API_KEY\` in your environment. The key looks like \`sk-...\` and is shown once.`,
    () =>
      `| Variable | Description |\n|---|---|\n| \`API_KEY\` | Your API key |\n| \`DB_PASSWORD\` | The database password |`,
    () =>
      `> **Note**: never commit your \`.env\` file; use \`.env.example\` with placeholder values such as \`your-secret-here\`.`,
    () =>
      `To authenticate, pass \`--token\` or set \`TAPEDECK_TOKEN\`. Tokens start with \`td_\` followed by 32 characters.`,
    () =>
      `The \`Authorization\` header must be \`Bearer <access_token>\`; refresh tokens are exchanged at \`/oauth/token\`.`,
  ],
  // Everyday code, commands and messages that name secrets without holding one.
  everyday_code_and_cli: [
    () => `"scripts": { "test": "vitest run", "build": "tsc -p .", "lint": "biome check ." }`,
    () => `export const API_KEY_HEADER = "x-api-key";`,
    () => `const TOKEN_PATTERN = /ghp_[A-Za-z0-9]{36}/;`,
    () => `if (password.length < 8) return "Password must be at least 8 characters";`,
    () => `SELECT id, password_hash, created_at FROM users WHERE email = $1`,
    () => `password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))`,
    () => `CREATE USER app WITH PASSWORD 'app';`,
    () => `docker run -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres`,
    () => `ssh -i ~/.ssh/id_ed25519 -p 2222 deploy@host`,
    () => `git log --author="dev" --since=2.weeks -p src/auth.ts`,
    () => `kubectl port-forward svc/api 8080:80 -n prod`,
    () => `mysql -h db -u app -p app_db < schema.sql`,
    () => `curl -s -o /dev/null -w "%{http_code}" https://api.example.com/health`,
    () => `npm publish --access public --tag next`,
    () => `token_type: "Bearer"\nexpires_in: 3600\nscope: "read write"`,
    () => `{"access_token_expires_in": 3600, "refresh_token_ttl": 86400}`,
    () => `ERROR: relation "api_keys" does not exist at character 15`,
    () => `Updated secret "db-credentials" in namespace "prod"`,
    () => `Created token "ci-deploy" with scopes repo, workflow (expires 2027-01-01)`,
    () => `const { data: session } = useSession(); if (!session?.accessToken) redirect("/login");`,
    () =>
      `https://accounts.google.com/o/oauth2/v2/auth?client_id=123.apps.googleusercontent.com&redirect_uri=http://localhost:3000/callback&response_type=code&scope=openid`,
    () => `https://github.com/login/oauth/authorize?client_id=Iv1.abc123def4567890&state=xyz`,
    () => `WARNING: The password is stored in plain text in ~/.docker/config.json`,
    () => `authenticity_token=${"A".repeat(0)}&commit=Sign+in`,
    () => `<input type="password" name="password" placeholder="Password" required />`,
    () => `<meta name="csrf-token" content="{{ csrf_token() }}">`,
    () => `export PATH="$HOME/.local/bin:$PATH"`,
    () => `user@host:~/project$ ls -la`,
    () =>
      `[remote "origin"]\n\turl = git@github.com:org/repo.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*`,
    () => `ssh://git@gitlab.com:2222/group/project.git`,
    () => `Server: nginx/1.25.3\nDate: Mon, 30 Nov 2026 10:00:00 GMT`,
    () => `"model": "claude-sonnet-4-5-20250929", "max_tokens": 8192, "stream": true`,
    () => `tokens: { input: 1234, output: 567, cached: 0 }`,
    () => `const secretManager = new SecretManagerServiceClient();`,
    () => `resource "aws_secretsmanager_secret" "db" {\n  name = "prod/db/password"\n}`,
    () => `passwordless sudo configured for deploy`,
    () => `--password-file=/run/secrets/db_password`,
    () => `export NODE_OPTIONS=--max-old-space-size=4096`,
    () => `AUTH_TRUST_HOST=true\nAUTH_URL=http://localhost:3000`,
    () => `"integrity": "sha1-${"a".repeat(0)}q3hJ0Vf7Jv1QyFvq8Wn4H3vGz4k="`,
    () => `password: "\${DB_PASSWORD:?must be set}"`,
    () =>
      `- uses: docker/login-action@v3\n  with:\n    username: \${{ github.actor }}\n    password: \${{ secrets.GITHUB_TOKEN }}`,
    () => `keyboard shortcut: Ctrl+K then key: Enter`,
    () => `The API key must be sent in the X-API-Key header (see docs).`,
    () => `Bearer authentication failed: token expired at 2026-11-30T10:00:00Z`,
    () => `pass: true\nfail: false\nskip: 3`,
    () => `secret: false`,
    () => `private_key_path = "~/.ssh/deploy_key"`,
    () => `"credentials": "include"`,
    () => `auth: { type: "bearer" }`,
    () => `cookie: { secure: true, httpOnly: true, sameSite: "lax" }`,
    () => `session_secret_rotation_days: 30`,
    () => `sk-learn is not the package name; use scikit-learn`,
    () => `grep -rn "ghp_" . --include=*.ts`,
    () => `echo $GITHUB_TOKEN | gh auth login --with-token`,
    () => `echo "$DOCKER_PASSWORD" | docker login -u "$DOCKER_USERNAME" --password-stdin`,
    () => `printf '%s' "$TOKEN" | base64`,
    () => `aws configure set region us-east-1`,
    () => `npm config set registry https://registry.npmjs.org/`,
    () => `git config --global credential.helper store`,
    () => `machine learning models need training data`,
    () => `the default login shell is bash`,
  ],
  large_payload: [
    (r) => {
      const lines: string[] = [];
      for (let i = 0; i < 400; i++)
        lines.push(
          `${r.hex(7)} ${r.pick(["src/a.ts", "src/b.ts", "README.md"])} | ${r.int(40)} ${"+".repeat(r.int(20))}`,
        );
      return lines.join("\n");
    },
  ],
};

function fixtureLookalikes(): LookAlikeCase[] {
  let names: string[] = [];
  try {
    names = readdirSync(FIXTURE_DIR).filter((n) => n.endsWith(".txt"));
  } catch {
    return [];
  }
  const out: LookAlikeCase[] = [];
  for (const name of names.sort()) {
    const category = name.replace(/\.[^.]*\.txt$|\.txt$/, "").replace(/-\d+$/, "");
    const text = readFileSync(join(FIXTURE_DIR, name), "utf8");
    // One case per blank-line-separated block: each is one piece of real tool output.
    text.split(/\n={3,}\n/).forEach((block, i) => {
      if (block.trim()) out.push({ id: `fx-${name}-${i}`, category, text: block });
    });
  }
  return out;
}

// ---------------------------------------------------------------------------

// Fixed texts: one copy each; the others draw fresh random material per copy.
const ONCE = new Set([
  "placeholder",
  "already_masked",
  "cli_help",
  "config_reference",
  "markdown_docs",
  "everyday_code_and_cli",
]);

export function buildRedactionCorpus(seed = DEFAULT_SEED): Corpus {
  const r = new Rand(seed);
  const positives: PositiveCase[] = [];
  let n = 0;
  const add = (kind: string, text: string, secrets: string[], prefixes?: string[]) => {
    positives.push({ id: `p${n++}`, kind, text, secrets, ...(prefixes ? { prefixes } : {}) });
  };
  for (const k of TOKEN_KINDS) {
    for (let i = 0; i < 6; i++) {
      const v = k.make(r);
      const ctx = i < 3 ? r.pick(TOKEN_ONLY_CONTEXTS) : r.pick(KEYED_CONTEXTS);
      add(k.kind, ctx(r, k.env, v), [v], k.prefix ? [k.prefix] : undefined);
    }
  }
  for (const k of NAMED_KINDS) {
    for (let i = 0; i < 5; i++) {
      const v = k.make(r);
      add(k.kind, r.pick(KEYED_CONTEXTS)(r, k.env, v), [v]);
    }
  }
  for (const k of NATIVE_KINDS) {
    for (let i = 0; i < 6; i++) {
      const c = k.make(r);
      add(k.kind, c.text, c.secrets, c.prefixes);
    }
  }
  const lookalikes: LookAlikeCase[] = [];
  let m = 0;
  for (const [category, gens] of Object.entries(LOOKALIKES)) {
    for (const g of gens) {
      const reps = ONCE.has(category) ? 1 : 2;
      for (let i = 0; i < reps; i++) lookalikes.push({ id: `l${m++}`, category, text: g(r) });
    }
  }
  lookalikes.push(...fixtureLookalikes());
  return { seed, positives, lookalikes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--seed");
  const seed = at > 0 ? Number(process.argv[at + 1]) : DEFAULT_SEED;
  const c = buildRedactionCorpus(seed);
  for (const p of c.positives) process.stdout.write(`${JSON.stringify({ ...p, type: "positive" })}\n`);
  for (const l of c.lookalikes) process.stdout.write(`${JSON.stringify({ ...l, type: "lookalike" })}\n`);
}
