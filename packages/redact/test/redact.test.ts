import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isSecretKey, REDACTION_POLICY, redactText, redactValue } from "../src/index.ts";
import { randomString, seededRandom } from "./random.ts";

// Fake secrets are assembled at test time from a seeded generator, so the
// repository holds nothing a secret scanner would flag and every run sees the
// same random-looking (not "AAAA") material.
const rnd = seededRandom(0x5eed);
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64URL = `${ALNUM}_-`;
const B64 = `${ALNUM}+/`;

const gen = (alphabet: string, n: number) => randomString(rnd, alphabet, n);
/** Random but guaranteed to mix upper, lower and digits, as real keys do. */
function mixed(n: number): string {
  return gen(UPPER, 1) + gen(LOWER, 1) + gen(DIGITS, 1) + gen(ALNUM, n - 3);
}
function b64(bytes: number): string {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buf[i] = Math.floor(rnd() * 256);
  return buf.toString("base64");
}
function b64url(s: string): string {
  return Buffer.from(s).toString("base64url");
}
function uuid(): string {
  return `${gen(HEX, 8)}-${gen(HEX, 4)}-4${gen(HEX, 3)}-a${gen(HEX, 3)}-${gen(HEX, 12)}`;
}
const J = (a: string, b: string) => a + b; // keeps prefixes like "gh"+"p_" out of the source

function pem(label: string, lines = 6): string {
  const body: string[] = [];
  for (let i = 0; i < lines; i++) body.push(gen(B64, 64));
  return `-----BEGIN ${label}-----\n${body.join("\n")}\n${gen(B64, 20)}==\n-----END ${label}-----`;
}

function jwt(): string {
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = b64url(JSON.stringify({ sub: uuid(), iat: 1716000000, scope: "repo read:org" }));
  return `${header}.${payload}.${gen(B64URL, 43)}`;
}

interface Sample {
  name: string;
  kind: string;
  /** The text as an agent would see it. */
  raw: string;
  /** The same text after redaction. */
  redacted: string;
  /** A fragment of the secret that must not survive. */
  secret: string;
  /** "line": a config/header/code line that needs its own line; "header": also valid inside curl -H. */
  shape?: "line" | "header";
}

function token(name: string, kind: string, secret: string): Sample {
  return { name, kind, raw: secret, redacted: `[REDACTED:${kind}]`, secret };
}
/** `before` and `after` stay; `secret` in between is replaced. */
function framed(name: string, kind: string, before: string, secret: string, after = ""): Sample {
  return {
    name,
    kind,
    raw: before + secret + after,
    redacted: `${before}[REDACTED:${kind}]${after}`,
    secret,
  };
}
function line(s: Sample): Sample {
  return { ...s, shape: "line" };
}
function header(s: Sample): Sample {
  return { ...s, shape: "header" };
}

const discordId = b64url(String(100000000000000000n + BigInt(Math.floor(rnd() * 1e15)))).replace(/=+$/, "");

const SAMPLES: Sample[] = [
  token("AWS access key id", "aws_access_key_id", J("AK", "IA") + gen(UPPER + "234567", 16)),
  token("AWS temporary key id", "aws_access_key_id", J("AS", "IA") + gen(UPPER + DIGITS, 16)),
  line(
    framed("AWS secret key (labelled)", "aws_secret_access_key", "aws_secret_access_key = ", gen(B64, 40)),
  ),
  line(framed("AWS secret key (env)", "aws_secret_access_key", "AWS_SECRET_ACCESS_KEY=", gen(B64, 40))),
  token("GitHub classic PAT", "github_token", J("gh", "p_") + mixed(36)),
  token("GitHub OAuth token", "github_token", J("gh", "o_") + mixed(36)),
  token("GitHub user-to-server", "github_token", J("gh", "u_") + mixed(36)),
  token("GitHub server-to-server", "github_token", J("gh", "s_") + mixed(36)),
  token("GitHub refresh", "github_token", J("gh", "r_") + mixed(36)),
  token("GitHub fine-grained PAT", "github_token", `${J("github", "_pat_")}${mixed(22)}_${mixed(59)}`),
  token("GitLab PAT", "gitlab_token", J("gl", "pat-") + gen(B64URL, 20)),
  token("GitLab deploy token", "gitlab_token", J("gl", "dt-") + gen(B64URL, 20)),
  token("GitLab runner token", "gitlab_token", J("gl", "rt-") + gen(B64URL, 28)),
  token(
    "Slack bot token",
    "slack_token",
    `${J("xo", "xb-")}${gen(DIGITS, 12)}-${gen(DIGITS, 13)}-${gen(ALNUM, 24)}`,
  ),
  token(
    "Slack user token",
    "slack_token",
    `${J("xo", "xp-")}${gen(DIGITS, 12)}-${gen(DIGITS, 12)}-${gen(DIGITS, 13)}-${gen(HEX, 32)}`,
  ),
  token(
    "Slack app token",
    "slack_token",
    `${J("xa", "pp-")}1-A${gen(UPPER + DIGITS, 10)}-${gen(DIGITS, 13)}-${gen(HEX, 64)}`,
  ),
  framed(
    "Slack webhook",
    "slack_webhook",
    "https://hooks.slack.com/services/",
    `T${gen(UPPER + DIGITS, 8)}/B${gen(UPPER + DIGITS, 10)}/${gen(ALNUM, 24)}`,
  ),
  token("Stripe live secret", "stripe_key", J("sk", "_live_") + mixed(24)),
  token("Stripe restricted", "stripe_key", J("rk", "_live_") + mixed(24)),
  token("Stripe test secret", "stripe_key", J("sk", "_test_") + mixed(24)),
  token("Stripe webhook secret", "stripe_key", J("wh", "sec_") + mixed(32)),
  token("OpenAI legacy key", "openai_key", `${J("s", "k-")}${mixed(20)}T3BlbkFJ${mixed(20)}`),
  token("OpenAI project key", "openai_key", `${J("sk", "-proj-")}${mixed(60)}_${gen(B64URL, 40)}`),
  token("OpenAI service account", "openai_key", `${J("sk", "-svcacct-")}${mixed(64)}`),
  token("Anthropic key", "anthropic_key", `${J("sk", "-ant-")}api03-${gen(B64URL, 93)}AA`),
  token("Google API key", "google_api_key", J("AI", "za") + gen(B64URL, 35)),
  token("Google OAuth client secret", "google_oauth_secret", J("GOC", "SPX-") + gen(B64URL, 28)),
  token("Google access token", "google_oauth_token", J("ya", "29.") + gen(B64URL, 120)),
  token("Google refresh token", "google_oauth_token", J("1/", "/0") + gen(B64URL, 60)),
  token("Hugging Face token", "huggingface_token", J("h", "f_") + gen(UPPER, 3) + gen(LOWER + UPPER, 31)),
  token("npm token", "npm_token", J("np", "m_") + mixed(36)),
  token("PyPI token", "pypi_token", `${J("py", "pi-")}AgEIcHlwaS5vcmc${gen(B64URL, 70)}`),
  token("JWT", "jwt", jwt()),
  token("Twilio API key", "twilio_key", J("S", "K") + gen(HEX, 32)),
  token("SendGrid key", "sendgrid_key", `${J("S", "G.")}${gen(B64URL, 22)}.${gen(B64URL, 43)}`),
  token("Mailgun key", "mailgun_key", J("ke", "y-") + gen(HEX, 32)),
  token("DigitalOcean PAT", "digitalocean_token", J("do", "p_v1_") + gen(HEX, 64)),
  token("Shopify access token", "shopify_token", J("shp", "at_") + gen(HEX, 32)),
  token("Shopify shared secret", "shopify_token", J("shp", "ss_") + gen(HEX, 32)),
  token("Databricks token", "databricks_token", J("da", "pi") + gen(HEX, 32)),
  token("Discord bot token", "discord_token", `${discordId}.${gen(B64URL, 6)}.${gen(B64URL, 38)}`),
  token("Telegram bot token", "telegram_token", `${gen(DIGITS, 9)}:${J("A", "A")}${gen(B64URL, 33)}`),
  token("Square access token", "square_token", J("sq0", "atp-") + gen(B64URL, 22)),
  token("Square OAuth secret", "square_token", J("sq0", "csp-") + gen(B64URL, 43)),
  token("Square production token", "square_token", J("EA", "AA") + gen(B64URL, 60)),
  token("Doppler token", "doppler_token", J("dp", ".pt.") + gen(ALNUM, 43)),
  token("Vault token", "vault_token", J("hv", "s.") + gen(B64URL, 90)),
  token("Linear API key", "linear_key", J("lin", "_api_") + gen(ALNUM, 40)),
  token("Notion integration secret", "notion_token", J("sec", "ret_") + gen(ALNUM, 43)),
  token("Notion token", "notion_token", J("nt", "n_") + gen(DIGITS, 11) + gen(ALNUM, 35)),
  token(
    "Atlassian API token",
    "atlassian_token",
    `${J("ATA", "TT")}3xFfGF0${gen(B64URL, 170)}=${gen(HEX, 8)}`,
  ),
  token("Postman key", "postman_key", `${J("PM", "AK-")}${gen(HEX, 24)}-${gen(HEX, 34)}`),
  token("Grafana cloud token", "grafana_token", J("gl", "c_") + gen(ALNUM, 60) + "=="),
  token("Grafana service account", "grafana_token", `${J("gl", "sa_")}${gen(ALNUM, 32)}_${gen(HEX, 8)}`),
  token("New Relic user key", "newrelic_key", J("NR", "AK-") + gen(UPPER + DIGITS, 27)),
  token("Pulumi token", "pulumi_token", J("pu", "l-") + gen(HEX, 40)),
  token(
    "Terraform Cloud token",
    "terraform_token",
    `${gen(ALNUM, 14)}.${J("atlas", "v1")}.${gen(B64URL, 67)}`,
  ),
  token("age secret key", "age_secret_key", J("AGE-SECRET", "-KEY-1") + gen(UPPER + DIGITS, 58)),
  token("PEM RSA private key", "private_key", pem("RSA PRIVATE KEY")),
  token("PEM PKCS8 private key", "private_key", pem("PRIVATE KEY")),
  token("PEM EC private key", "private_key", pem("EC PRIVATE KEY", 3)),
  token("PEM DSA private key", "private_key", pem("DSA PRIVATE KEY")),
  token("PEM encrypted private key", "private_key", pem("ENCRYPTED PRIVATE KEY")),
  token("OpenSSH private key", "private_key", pem("OPENSSH PRIVATE KEY", 7)),
  token("PGP private key block", "private_key", pem("PGP PRIVATE KEY BLOCK", 10)),
  header(framed("Authorization Bearer header", "authorization", "Authorization: Bearer ", gen(B64URL, 40))),
  header(framed("lowercase authorization header", "authorization", "authorization: bearer ", mixed(32))),
  header(framed("Authorization Basic header", "authorization", "Authorization: Basic ", b64(18))),
  header(framed("Authorization raw token", "authorization", "Authorization: ", mixed(40))),
  header(framed("proxy-authorization header", "authorization", "Proxy-Authorization: Basic ", b64(21))),
  framed("Bearer in a log", "bearer", "sending request with Bearer ", `${gen(ALNUM, 12)}.${gen(ALNUM, 20)}`),
  framed(
    "Basic credential in a log",
    "basic_auth",
    "retrying Basic ",
    Buffer.from(`deploy:${mixed(12)}`).toString("base64"),
  ),
  header(framed("x-api-key header", "api_key", "x-api-key: ", mixed(40))),
  header(framed("Cookie header", "cookie", "Cookie: ", `session=${gen(HEX, 32)}; theme=dark`)),
  header(framed("Set-Cookie header", "cookie", "Set-Cookie: ", `sid=${gen(ALNUM, 24)}; Path=/; HttpOnly`)),
  framed(
    "postgres URL password",
    "url_password",
    "postgres://app_user:",
    gen(ALNUM, 18),
    "@db.internal:5432/app",
  ),
  framed("mysql URL password", "url_password", "mysql://root:", `p@ss${gen(ALNUM, 8)}`, "@127.0.0.1/db"),
  framed("redis URL with empty user", "url_password", "redis://:", gen(ALNUM, 24), "@cache:6379/0"),
  framed(
    "mongodb+srv URL",
    "url_password",
    "mongodb+srv://admin:",
    gen(ALNUM, 16),
    "@cluster0.abcde.mongodb.net/",
  ),
  framed(
    "https basic credentials",
    "url_password",
    "https://deploy:",
    gen(ALNUM, 20),
    "@git.example.com/org/repo.git",
  ),
  framed(
    "Sentry DSN",
    "sentry_dsn",
    "https://",
    gen(HEX, 32),
    `@o${gen(DIGITS, 6)}.ingest.sentry.io/${gen(DIGITS, 7)}`,
  ),
  line(framed(".env secret key", "secret_key", "SECRET_KEY=", mixed(50))),
  line(framed(".env quoted token", "token", 'export API_TOKEN="', mixed(32), '"')),
  line(
    framed(
      ".env single-quoted password",
      "password",
      "DB_PASSWORD='",
      `${gen(ALNUM, 10)} ${gen(ALNUM, 4)}!`,
      "'",
    ),
  ),
  line(framed("YAML password", "password", "  DB_PASSWORD: ", `${gen(ALNUM, 12)}#${gen(DIGITS, 3)}`)),
  line(framed("YAML client secret", "secret", "client_secret: ", gen(B64URL, 40))),
  line(framed("Dockerfile ENV", "token", "ENV NPM_TOKEN=", gen(ALNUM, 36))),
  line(framed("JSON password", "password", '{"user": "svc", "password": "', `${gen(ALNUM, 14)}!`, '"}')),
  line(framed("compact JSON api key", "api_key", '{"api_key":"', mixed(32), '"}')),
  line(framed("escaped JSON api key", "api_key", String.raw`{\"apiKey\":\"`, mixed(32), String.raw`\"}`)),
  line(framed("Python dict", "secret", "config = {'client_secret': '", mixed(30), "'}")),
  line(framed("assignment in code", "password", 'db_password = "', `${gen(ALNUM, 16)}`, '"')),
  line(framed("Go short assignment", "token", 'authToken := "', mixed(30), '"')),
  line(framed("os.environ assignment", "api_key", 'os.environ["SERVICE_API_KEY"] = "', mixed(30), '"')),
  framed(
    "CLI --password value",
    "password",
    "psql --username app --password ",
    `${gen(ALNUM, 12)}`,
    " --host db",
  ),
  framed("CLI --password=value", "password", "tool login --password=", gen(ALNUM, 16)),
  framed("CLI --token value", "token", "gh-release upload --token ", mixed(30), " dist/app.tgz"),
  framed("CLI --api-key value", "api_key", "mycli --api-key ", mixed(32)),
  framed("CLI --client-secret value", "secret", "oauth2-proxy --client-secret=", gen(B64URL, 32)),
  framed(
    "Java system property",
    "password",
    "java -Djavax.net.ssl.keyStorePassword=",
    gen(ALNUM, 12),
    " -jar app.jar",
  ),
  framed("query string token", "token", "GET /v1/export?format=csv&access_token=", gen(ALNUM, 32), "&page=2"),
  framed("mysql -p", "password", "mysql -u root -p", `${gen(ALNUM, 12)}`, " -h db shop"),
  framed("curl -u", "password", "curl -u admin:", `${gen(ALNUM, 12)}`, " https://ci.example.com/api"),
  line(
    framed(
      "Azure storage connection string",
      "azure_storage_key",
      "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=",
      `${gen(B64, 86)}==`,
      ";EndpointSuffix=core.windows.net",
    ),
  ),
  framed(
    "Azure SAS URL",
    "azure_sas",
    "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&se=2025-01-01&sp=r&sig=",
    `${gen(ALNUM, 40)}%2B${gen(ALNUM, 6)}%3D`,
  ),
  framed(
    "AWS presigned URL",
    "aws_presigned_signature",
    "https://b.s3.amazonaws.com/k?X-Amz-Expires=300&X-Amz-Signature=",
    gen(HEX, 64),
  ),
];

// Neutral surroundings: a shell command, a log line, a JSON blob, a prose line.
const CONTEXTS: Array<[string, (s: string) => string]> = [
  ["shell", (s) => `$ ./deploy.sh --region eu-west-1 ${s} && echo done`],
  ["log", (s) => `2025-02-03T04:05:06.789Z WARN [worker-3] retrying with ${s}\nnext line`],
  ["json", (s) => JSON.stringify({ type: "tool_result", output: `out:\n${s}\n`, exit: 0 })],
  ["prose", (s) => `I found this in the config:\n\n${s}\n\nShould I rotate it?`],
];

// Config, code and header lines sit on a line of their own.
const LINE_CONTEXTS: Array<[string, (s: string) => string]> = [
  ["file", (s) => `cat > settings.txt <<'EOF'\n${s}\nEOF`],
  ["log", (s) => `2025-02-03T04:05:06.789Z DEBUG loaded settings\n${s}\n2025-02-03T04:05:07.001Z INFO ready`],
  ["json", (s) => JSON.stringify({ type: "tool_result", output: `out:\n${s}\n`, exit: 0 })],
  ["prose", (s) => `I found this in the config:\n\n${s}\n\nShould I rotate it?`],
];
const HEADER_CONTEXTS: Array<[string, (s: string) => string]> = [
  ...LINE_CONTEXTS,
  ["curl", (s) => `curl -sS -H '${s}' https://api.example.com/v1/me`],
  ["curl-json", (s) => JSON.stringify({ command: `curl -sS -H "${s}" https://api.example.com/v1/me` })],
];

describe("redactText: provider formats", () => {
  for (const sample of SAMPLES) {
    const contexts =
      sample.shape === "line" ? LINE_CONTEXTS : sample.shape === "header" ? HEADER_CONTEXTS : CONTEXTS;
    for (const [ctxName, ctx] of contexts) {
      it(`${sample.name} in ${ctxName}`, () => {
        const input = ctx(sample.raw);
        const { text, kinds } = redactText(input);
        expect(text).toBe(ctx(sample.redacted));
        expect(text).not.toContain(sample.secret);
        expect(kinds).toEqual([sample.kind]);
      });
    }
  }

  it("redacts a token in a git remote URL and keeps its provider kind", () => {
    const gh = J("gh", "p_") + mixed(36);
    const input = `git remote add origin https://x-access-token:${gh}@github.com/acme/app.git`;
    expect(redactText(input)).toEqual({
      text: "git remote add origin https://x-access-token:[REDACTED:github_token]@github.com/acme/app.git",
      kinds: ["github_token"],
    });
  });

  it("redacts a provider token under a secret-ish name with the provider's kind", () => {
    const gh = J("gh", "p_") + mixed(36);
    expect(redactText(`export GITHUB_TOKEN=${gh}`).text).toBe("export GITHUB_TOKEN=[REDACTED:github_token]");
    const oai = J("sk", "-proj-") + mixed(80);
    expect(redactText(`{"api_key": "${oai}"}`)).toEqual({
      text: '{"api_key": "[REDACTED:openai_key]"}',
      kinds: ["openai_key"],
    });
  });

  it("redacts a JSON-escaped PEM block inside a serialized string", () => {
    const key = pem("RSA PRIVATE KEY");
    const input = JSON.stringify(
      JSON.stringify({ type: "service_account", private_key: key, client_email: "a@b" }),
    );
    const { text } = redactText(input);
    expect(text).not.toContain(key.split("\n")[1]);
    expect(text).toContain("client_email");
  });

  it("redacts a PEM block whose END line was cut off", () => {
    const key = pem("OPENSSH PRIVATE KEY");
    const cut = key.slice(0, key.lastIndexOf("-----END"));
    const { text, kinds } = redactText(`cat id_ed25519\n${cut}`);
    expect(text).toBe("cat id_ed25519\n[REDACTED:private_key]");
    expect(kinds).toEqual(["private_key"]);
  });

  it("reports one kind per redacted span", () => {
    const a = J("gh", "p_") + mixed(36);
    const b = J("AK", "IA") + gen(UPPER, 16);
    const r = redactText(`a=${a} b=${b} again ${a}`);
    expect(r.kinds).toEqual(["github_token", "aws_access_key_id", "github_token"]);
    expect(r.text).toBe(
      "a=[REDACTED:github_token] b=[REDACTED:aws_access_key_id] again [REDACTED:github_token]",
    );
  });

  it("is idempotent", () => {
    for (const sample of SAMPLES) {
      const once = redactText(CONTEXTS[1]![1](sample.raw)).text;
      expect(redactText(once)).toEqual({ text: once, kinds: [] });
    }
  });
});

const NEGATIVES: Array<[string, string]> = [
  ["git SHA", `commit ${gen(HEX, 40)}\nAuthor: Dev <dev@example.com>`],
  ["short SHA", `git checkout ${gen(HEX, 7)} && git log -1 --format=%H`],
  ["sha256 digest", `sha256:${gen(HEX, 64)}`],
  ["docker digest", `docker pull node@sha256:${gen(HEX, 64)}`],
  ["UUID", `session ${uuid()} started; request_id=${uuid()}`],
  ["base64 PNG data URI", `data:image/png;base64,iVBORw0KGgo${b64(3000)}`],
  ["wrapped base64", (b64(2400).match(/.{1,76}/g) ?? []).join("\n")],
  ["ssh-rsa public key", `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ${b64(370)} dev@laptop`],
  ["ssh-ed25519 public key", `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${gen(B64, 43)} dev@laptop`],
  ["PEM public key", pem("PUBLIC KEY")],
  ["PEM RSA public key", pem("RSA PUBLIC KEY")],
  ["certificate", pem("CERTIFICATE", 12)],
  ["npm integrity", `"integrity": "sha512-${b64(64)}"`],
  ["token getter", "const token = getToken();"],
  ["typed field", "interface Login {\n  username: string;\n  password: string;\n  apiKey?: string;\n}"],
  ["function signature", "function login(user: string, password: string): Promise<Session> {"],
  ["env check", 'if (!process.env.GITHUB_TOKEN) throw new Error("GITHUB_TOKEN is not set");'],
  ["python environ read", 'api_key = os.environ["OPENAI_API_KEY"]'],
  ["python kwarg passthrough", "client = OpenAI(api_key=api_key, timeout=30)"],
  ["python annotation", 'token: str = ""'],
  ["destructuring", "const { token } = await login(credentials);"],
  ["member assignment", "this.token = response.data.access_token;"],
  ["rust env var", 'let token: String = env::var("GITHUB_TOKEN")?;'],
  ["go struct tag", 'Password string `json:"password"`'],
  ["shell variable reference", 'export OPENAI_API_KEY="$OPENAI_API_KEY"'],
  ["braced reference", `API_KEY=\${API_KEY}`],
  ["empty value", "API_KEY=\nDEBUG=1"],
  ["angle placeholder", "TOKEN=<your-token-here>"],
  ["masked password", 'password: "********"'],
  ["x placeholder", '"api_key": "xxxxxxxxxxxxxxxx"'],
  ["dotted placeholder", "OPENAI_API_KEY=sk-..."],
  ["env name as value", '{"token_env": "GITHUB_TOKEN", "api_key": "YOUR_API_KEY"}'],
  ["bare placeholder name", "Replace YOUR_API_KEY with the key from the dashboard."],
  ["bearer from variable", 'curl -H "Authorization: Bearer $TOKEN" https://api.example.com/me'],
  ["bearer placeholder", "Authorization: Bearer <token>"],
  ["bearer template", "headers: { Authorization: `Bearer $" + "{token}` },"],
  ["bearer concatenation", 'headers["Authorization"] = "Bearer " + token'],
  ["prose about passwords", "The password field is required and the token count must stay below the limit."],
  [
    "prose about tokens",
    "count tokens before sending; a Bearer token goes in the header. Basic usage: run --help.",
  ],
  [
    "token counters",
    '{"input_tokens": 1234, "output_tokens": 56, "cache_read_input_tokens": 0, "max_tokens": 4096, "total_tokens": 1290}',
  ],
  ["token type", '{"token_type": "Bearer", "expires_in": 3600, "scope": "repo"}'],
  [
    "thinking signature",
    JSON.stringify({ type: "thinking", thinking: "Let me check.", signature: b64(280) }),
  ],
  [
    "tool ids",
    `{"tool_use_id": "toolu_01${gen(ALNUM, 22)}", "id": "msg_01${gen(ALNUM, 22)}", "request_id": "req_011C${gen(ALNUM, 20)}"}`,
  ],
  [
    "git remotes",
    "origin\tgit@github.com:acme/app.git (fetch)\nupstream\thttps://github.com/acme/app.git (push)",
  ],
  ["URL without credentials", "postgres://localhost:5432/app?sslmode=disable"],
  ["URL with password reference", `postgres://app:\${DB_PASSWORD}@db:5432/app`],
  [
    "URL with scoped package",
    "https://www.npmjs.com/package/@scope/pkg and ssh://git@github.com:22/acme/app.git",
  ],
  ["boolean flags", "password_required: true\nhas_password: false\ntoken_count: 12"],
  ["password-stdin", 'echo "$CR_PAT" | docker login ghcr.io -u octocat --password-stdin'],
  ["sklearn-like kebab", "pip install scikit-learn; see sk-learn-compatibility-layer-for-older-versions"],
  ["markdown doc", "- `token`: the API token to use for requests\n- `password`: optional, see below"],
  ["keyboard events", '{"key": "ArrowDown", "code": "ArrowDown"}\nkey: Enter'],
  ["working directory", "PWD=/home/dev/project\nOLDPWD=/home/dev"],
  ["html input", '<input type="password" name="password" autocomplete="current-password">'],
  ["secret name", "SECRET_NAME=prod/db/creds\nsecretKeyRef: db-secret"],
  ["tokenizer", 'tokenizer = AutoTokenizer.from_pretrained("gpt2")\ntokens = tokenizer(text)'],
  ["hf helper", 'hf_hub_download(repo_id="org/model", filename="config.json")'],
  ["npm config", "npm_config_registry=https://registry.npmjs.org/"],
  ["erb template", 'secret_key_base: <%= ENV["SECRET_KEY_BASE"] %>'],
  ["github actions secret", `GH_TOKEN: \${{ secrets.GITHUB_TOKEN }}`],
  ["json schema", '{"properties":{"token":{"type":"string","description":"API token"}}}'],
  ["comparison", 'if token == "" { return nil }'],
  ["IPv6 and CSS", "listen [fe80::1ff:fe23:4567:890a]:8080; color: #ff0000;"],
  ["long identifier", "const github_pat_regex_for_validation_check = /x/;"],
  ["trace ids", `trace_id=${gen(HEX, 32)} span_id=${gen(HEX, 16)} X-Request-Id: ${gen(HEX, 32)}`],
  ["grep for password", 'grep -rn "password" src/ | head'],
  ["oauth config section", "auth: { type: 'oauth-personal' }"],
  ["process list mention", "the PID of the server is 4242"],
  ["short kebab flag", "git push -u origin main && sort -u list.txt && docker run -u 1000:1000 img"],
  ["command substitution", "PASSWORD=$(pass show db/prod)\nTOKEN=`cat ~/.token`"],
  [
    "actions secrets inherit",
    "jobs:\n  call:\n    uses: ./.github/workflows/build.yml\n    secrets: inherit",
  ],
  [
    "typed class fields",
    "class Settings(BaseModel):\n    session_token: UUID\n    password: SecretStr\n    api_key: str",
  ],
  ["prompting mysql", "mysql -uroot -p -h 127.0.0.1"],
  ["www-authenticate challenge", 'WWW-Authenticate: Bearer realm="example", error="invalid_token"'],
  [
    "enum members",
    'enum SyntaxKind {\n  EndOfFileToken = 1,\n  CommaToken = 28,\n}\nt[t.OpenBraceToken=1]="OpenBraceToken"',
  ],
  [
    "keyword arguments split over lines",
    "def __init__(self, host,\n             credentials=None, secure=None,\n             authkey=self._authkey,\n" +
      "             token=process.current_process().authkey)",
  ],
  ["namespaced strings", "debug('auth:login'); globalThis[Symbol.for('secret:mocks')]"],
  [
    "format strings",
    'print("token=%r" % tok)\nuser_pass = \'%s:%s\' % (user, pw)\nheaders["Authorization"] = "Basic %s" % auth',
  ],
  ["union type", 'type RequestCredentials = "include" | "omit" | "same-origin";'],
  ["flags naming files", "xmlsec1 sign --privkey rsakey.pem --output out.xml && tool --token-file ./t"],
  ["OID constant", "SERVER_AUTH = '1.3.6.1.5.5.7.3.1'"],
  ["lexer punctuation", 'lastSignificantToken = "}";'],
  ["generic type", "  readonly operatorToken: Token<SyntaxKind.InstanceOfKeyword>;"],
  ["hex constant", "  readonly STENCIL_PASS_DEPTH_PASS: 0x0B96;"],
  ["fetch credentials", "fetch(url, { credentials: 'include', mode: 'cors' })"],
  ["private field", "const cookies = this.#headersList.cookies"],
  ["module map", "'Cookie': 'http.cookies', 'cookielib': 'http.cookiejar'"],
  ["closed string", "console.log('password:', password);"],
  ["name that spells the key", "const USE_CREDENTIALS = 'use-credentials'"],
  ["switch flag", "mongod --auth --port 27017"],
];

describe("redactText: false positives", () => {
  it("has a broad negative table", () => {
    expect(NEGATIVES.length).toBeGreaterThanOrEqual(40);
  });
  for (const [name, input] of NEGATIVES) {
    it(`keeps ${name}`, () => {
      expect(redactText(input)).toEqual({ text: input, kinds: [] });
    });
  }
});

describe("redactText: numbers and literals by context", () => {
  const cases: Array<[string, string]> = [
    ["PASSWORD=123456", "PASSWORD=[REDACTED:password]"],
    ["  pin_password: 4821", "  pin_password: [REDACTED:password]"],
    ['{"password": 123456}', '{"password": [REDACTED:password]}'],
    ["password = 'hunter2'", "password = '[REDACTED:password]'"],
    ["DB_PASSWORD=hunter2 ./migrate", "DB_PASSWORD=[REDACTED:password] ./migrate"],
    ["client.login(password='s3cr3t-pw')", "client.login(password='[REDACTED:password]')"],
    ["  api_key: live_abc123def456", "  api_key: [REDACTED:api_key]"],
  ];
  for (const [input, expected] of cases) {
    it(`redacts ${input}`, () => expect(redactText(input).text).toBe(expected));
  }
});

describe("isSecretKey", () => {
  const secret = [
    "password",
    "Password",
    "PASSWORD",
    "passwd",
    "pwd",
    "pass",
    "db_pass",
    "passphrase",
    "dbPassword",
    "DB_PASSWORD",
    "spring.datasource.password",
    "secret",
    "client_secret",
    "clientSecret",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "session_token",
    "auth_token",
    "github_token",
    "X-Auth-Token",
    "api_key",
    "apikey",
    "apiKey",
    "API-KEY",
    "x-api-key",
    "X-API-Key",
    "access_key",
    "secret_key",
    "private_key",
    "privateKey",
    "AWS_SECRET_ACCESS_KEY",
    "authorization",
    "Proxy-Authorization",
    "cookie",
    "Set-Cookie",
    "credential",
    "credentials",
    "connection_string",
    "ConnectionString",
  ];
  const plain = [
    "input_tokens",
    "output_tokens",
    "max_tokens",
    "token_count",
    "total_tokens",
    "cache_read_input_tokens",
    "tokens",
    "tokenizer",
    "token_type",
    "password_required",
    "secret_name",
    "api_key_id",
    "signature",
    "key",
    "keys",
    "monkey",
    "bypass",
    "compass",
    "canPass",
    "author",
    "oauth",
    "OAuth",
    "OLDPWD",
    "session_id",
    "description",
    "dsn",
  ];
  for (const k of secret) it(`treats ${k} as secret`, () => expect(isSecretKey(k)).toBe(true));
  for (const k of plain) it(`treats ${k} as plain`, () => expect(isSecretKey(k)).toBe(false));
});

describe("redactValue", () => {
  it("exposes the policy name", () => {
    expect(REDACTION_POLICY).toBe("default-v1");
  });

  it("redacts by key, keeps counters, and reports JSON paths", () => {
    const apiKey = mixed(40);
    const input = {
      model: "claude-sonnet-4",
      max_tokens: 4096,
      usage: { input_tokens: 12, output_tokens: 34, token_count: 46 },
      headers: {
        "x-api-key": apiKey,
        "content-type": "application/json",
        Authorization: `Bearer ${mixed(30)}`,
      },
      password: 123456,
      credentials: { user: "svc", pass: "x" },
      has_password: true,
      token: null,
      token_type: "Bearer",
    };
    const r = redactValue(input);
    expect(r.value).toEqual({
      model: "claude-sonnet-4",
      max_tokens: 4096,
      usage: { input_tokens: 12, output_tokens: 34, token_count: 46 },
      headers: {
        "x-api-key": "[REDACTED:api_key]",
        "content-type": "application/json",
        Authorization: "[REDACTED:authorization]",
      },
      password: "[REDACTED:password]",
      credentials: "[REDACTED:credential]",
      has_password: true,
      token: null,
      token_type: "Bearer",
    });
    // Paths and kinds come in document order.
    expect(r.redactions).toEqual([
      'payload.headers["x-api-key"]',
      "payload.headers.Authorization",
      "payload.password",
      "payload.credentials",
    ]);
    expect(r.kinds).toEqual(["api_key", "authorization", "password", "credential"]);
    expect(r.omitted).toEqual([]);
    expect(JSON.stringify(r.value)).not.toContain(apiKey);
  });

  it("walks nested arrays and builds index paths", () => {
    const gh = J("gh", "p_") + mixed(36);
    const r = redactValue(
      {
        tool_input: { command: `git push https://me:${gh}@github.com/acme/app.git` },
        items: [{ text: "hello" }, { text: "fine" }, { text: "ok" }, { text: `token: ${gh}` }],
        matrix: [
          [1, 2],
          ["x", `-----BEGIN PRIVATE KEY-----\n${gen(B64, 64)}\n-----END PRIVATE KEY-----`],
        ],
      },
      "event.payload",
    );
    expect(r.redactions).toEqual([
      "event.payload.tool_input.command",
      "event.payload.items[3].text",
      "event.payload.matrix[1][1]",
    ]);
    expect(r.kinds).toEqual(["github_token", "github_token", "private_key"]);
    expect((r.value as { items: Array<{ text: string }> }).items[3]!.text).toBe(
      "token: [REDACTED:github_token]",
    );
  });

  it("records a path once even when its string has several secrets", () => {
    const a = J("gh", "p_") + mixed(36);
    const b = J("np", "m_") + mixed(36);
    const r = redactValue({ stdout: `${a}\n${b}` });
    expect(r.redactions).toEqual(["payload.stdout"]);
    expect(r.kinds).toEqual(["github_token", "npm_token"]);
  });

  it("uses bracket paths for keys that are not identifiers", () => {
    const r = redactValue({ "my-config": { "db.password": "hunter22" } });
    expect(r.redactions).toEqual(['payload["my-config"]["db.password"]']);
  });

  it("keeps placeholders and booleans under secret keys", () => {
    const input = {
      api_key: `\${OPENAI_API_KEY}`,
      password: "",
      token: "<token>",
      secret: false,
      pwd: "/home/dev",
    };
    const r = redactValue(input);
    expect(r.value).toEqual(input);
    expect(r.redactions).toEqual([]);
  });

  it("keeps thinking signatures and tool ids", () => {
    const input = {
      content: [
        { type: "thinking", thinking: "check the file", signature: b64(300) },
        { type: "tool_use", id: `toolu_01${gen(ALNUM, 22)}`, name: "Bash", input: { command: "ls" } },
      ],
      id: `msg_01${gen(ALNUM, 22)}`,
    };
    const r = redactValue(input);
    expect(r.value).toEqual(input);
    expect(r.redactions).toEqual([]);
  });

  it("walks objects under a bare auth key but redacts a scalar there", () => {
    expect(redactValue({ auth: { type: "oauth", password: "pw123456" } }).value).toEqual({
      auth: { type: "oauth", password: "[REDACTED:password]" },
    });
    expect(redactValue({ auth: "user:pw123456" }).value).toEqual({ auth: "[REDACTED:authorization]" });
  });

  it("redacts secrets in object keys and builds the path from the redacted key", () => {
    const gh = J("gh", "p_") + mixed(36);
    const r = redactValue({ tokens: { [gh]: { scopes: ["repo"] } } });
    expect(r.value).toEqual({ tokens: { "[REDACTED:github_token]": { scopes: ["repo"] } } });
    expect(r.redactions).toEqual(['payload.tokens["[REDACTED:github_token]"]']);
    expect(JSON.stringify(r)).not.toContain(gh);
  });

  it("does not mutate its input and returns new containers", () => {
    const gh = J("gh", "p_") + mixed(36);
    const input = { a: { b: [gh, { password: "pw" }] }, n: 1 };
    const before = structuredClone(input);
    const r = redactValue(input);
    expect(input).toEqual(before);
    expect(r.value).not.toBe(input);
    expect(r.value.a).not.toBe(input.a);
    expect(r.value.a.b).not.toBe(input.a.b);
    expect(r.value.a.b[0]).toBe("[REDACTED:github_token]");
  });

  it("handles 10,000-deep nesting without recursion", () => {
    let deep: unknown = { leaf: "DB_PASSWORD=hunter22" };
    for (let i = 0; i < 10_000; i++) deep = i % 2 ? { next: deep } : [deep];
    const r = redactValue(deep);
    expect(r.redactions).toHaveLength(1);
    expect(r.redactions[0]!.endsWith(".leaf")).toBe(true);
    let node: unknown = r.value;
    while (Array.isArray(node) || (typeof node === "object" && node !== null && "next" in node)) {
      node = Array.isArray(node) ? node[0] : (node as { next: unknown }).next;
    }
    expect(node).toEqual({ leaf: "DB_PASSWORD=[REDACTED:password]" });
  });

  it("survives cycles and shared references", () => {
    const shared = { password: "pw-123456" };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    cyclic.self = cyclic;
    const r = redactValue(cyclic);
    const v = r.value as Record<string, unknown>;
    expect(v.self).toBe(v);
    expect(v.a).toEqual({ password: "[REDACTED:password]" });
  });

  it("does not let a __proto__ key change the prototype", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}');
    const r = redactValue(input) as { value: Record<string, unknown> };
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(Object.hasOwn(r.value, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("redacts a top-level string and serializes dates as JSON would", () => {
    expect(redactValue("password=hunter22").value).toBe("password=[REDACTED:password]");
    expect(redactValue({ at: new Date(0) }).value).toEqual({ at: "1970-01-01T00:00:00.000Z" });
  });
});

const ENV_DUMP = [
  "SHELL=/bin/zsh",
  "HOME=/home/dev",
  "PATH=/usr/local/bin:/usr/bin:/bin",
  `GITHUB_TOKEN=${J("gh", "p_")}${mixed(36)}`,
  "LANG=en_US.UTF-8",
  "TERM=xterm-256color",
  "npm_config_cache=/home/dev/.npm",
  `AWS_SESSION_TOKEN=${gen(B64, 120)}`,
  "USER=dev",
  "_=/usr/bin/env",
].join("\n");

const PS_TABLE = [
  "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND",
  "root           1  0.0  0.1 167772 11520 ?        Ss   09:12   0:02 /sbin/init",
  `dev         4242  1.2  2.3 999999 88888 pts/0    Sl+  09:30   0:10 node server.js --token ${mixed(30)}`,
  "dev         4300  0.0  0.0  10072  3300 pts/1    R+   09:31   0:00 ps aux",
].join("\n");

describe("omission", () => {
  it("omits an environment dump in text", () => {
    expect(redactText(ENV_DUMP)).toEqual({ text: "[OMITTED:environment]", kinds: ["omitted:environment"] });
    expect(redactText(`$ env\n${ENV_DUMP}`).text).toBe("[OMITTED:environment]");
    expect(
      redactText(
        ENV_DUMP.split("\n")
          .map((l) => `declare -x ${l}`)
          .join("\n"),
      ).text,
    ).toBe("[OMITTED:environment]");
  });

  it("omits a process table in text", () => {
    expect(redactText(PS_TABLE)).toEqual({
      text: "[OMITTED:process-table]",
      kinds: ["omitted:process-table"],
    });
    const psef =
      "UID        PID  PPID  C STIME TTY          TIME CMD\nroot         1     0  0 09:12 ?        00:00:02 /sbin/init";
    expect(redactText(psef).text).toBe("[OMITTED:process-table]");
  });

  it("reports omitted paths separately from redactions", () => {
    const r = redactValue({ tool_response: { stdout: ENV_DUMP, stderr: "" }, ps: PS_TABLE });
    expect(r.value).toEqual({
      tool_response: { stdout: "[OMITTED:environment]", stderr: "" },
      ps: "[OMITTED:process-table]",
    });
    expect(r.omitted).toEqual(["payload.tool_response.stdout", "payload.ps"]);
    expect(r.redactions).toEqual([]);
  });

  it("does not omit a process listing quoted inside a longer document", () => {
    const doc = [
      "## Heap snapshots",
      ...Array.from({ length: 20 }, (_, i) => `Paragraph ${i} explains how signals reach the process.`),
      "```console",
      "$ ps aux",
      "USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND",
      "node         1  5.5  6.1 787252 247004 ?       Ssl  16:43   0:02 node index.js",
      "```",
    ].join("\n");
    expect(redactText(doc)).toEqual({ text: doc, kinds: [] });
    expect(redactText(`$ ps aux\n${PS_TABLE}`).text).toBe("[OMITTED:process-table]");
  });

  it("does not omit ordinary config or short env snippets", () => {
    const short = "NODE_ENV=production\nPORT=3000";
    expect(redactText(short)).toEqual({ text: short, kinds: [] });
    const mixedText = [
      "# settings",
      "const a = 1;",
      "PORT=3000",
      "let b = a + 1;",
      "HOST=0.0.0.0",
      "console.log(b)",
    ].join("\n");
    expect(redactText(mixedText)).toEqual({ text: mixedText, kinds: [] });
  });
});

describe("robustness", () => {
  const hostile: Array<[string, string]> = [
    ["long dash run", "-".repeat(200_000)],
    ["repeated assignments", "password=".repeat(20_000)],
    ["repeated colons", `${"token:".repeat(20_000)}x`],
    ["unterminated PEM headers", "-----BEGIN RSA PRIVATE KEY-----\n".repeat(2_000)],
    ["long base64url run", `eyJ${"a".repeat(100_000)}.eyJ${"b".repeat(100_000)}`],
    ["many URL schemes", "https://".repeat(30_000)],
    ["many dots", `${"M".repeat(30)}.`.repeat(10_000)],
    ["deep quotes", `"${'\\"'.repeat(50_000)}`],
    ["many -u flags", `curl ${"-u ".repeat(30_000)}`],
    ["blank runs after separators", `${"key:".repeat(2_000)}${" ".repeat(100_000)}x`],
    ["long upper-case names before =", `${"A".repeat(70)}=`.repeat(3_000)],
    ["URL authorities at their bound", `://${"a".repeat(1_100)}`.repeat(200)],
    [".pgpass fields at their bound", `:5432:${"d".repeat(70)}:`.repeat(2_000)],
  ];
  for (const [name, input] of hostile) {
    // A quadratic rule on these sizes runs for minutes and meets the test's timeout (no clock in the assertion).
    it(`stays linear on ${name}`, () => {
      expect(redactText(input).text.length).toBeGreaterThan(0);
    }, 60_000);
  }

  it("imports only node: built-ins, in packages/redact/src/index.ts and every file of packages/redact/src/", () => {
    const dir = new URL("../src/", import.meta.url);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => new URL(f, dir));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const src = readFileSync(file, "utf8");
      const specifiers = [
        ...src.matchAll(
          /^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm,
        ),
      ].map((m) => (m[1] ?? m[2]) as string);
      for (const s of specifiers) {
        // Its own parts are the one exception: a relative import that stays inside packages/redact/src/.
        const own = s.startsWith(".") && new URL(s, file).href.startsWith(dir.href);
        expect(s.startsWith("node:") || own, `${file.pathname} imports ${s}`).toBe(true);
      }
      expect(src, file.pathname).not.toMatch(/\brequire\(|\bimport\(/);
    }
  });
});
