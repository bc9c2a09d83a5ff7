// The shapes issue 26 found leaking or damaged on a held-out corpus, one test each: what structure
// says "this is a value" (a sibling name, a credentials file, a command that prints a secret, a pair of
// an AWS key id and its secret) and what must stay as it is (placeholders, environment lookups, help).
// Fake secrets are generated at test time from a seed; no literal secret is in the source.
import { describe, expect, it } from "vitest";
import { redactText, redactValue } from "../src/index.ts";
import { randomString, seededRandom } from "./random.ts";

const rnd = seededRandom(0x26);
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const gen = (alphabet: string, n: number) => randomString(rnd, alphabet, n);
/** Mixed case and digits, as generated keys are. */
function key(n: number): string {
  return `Q${gen(ALNUM, n - 3)}7z`;
}
function bytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rnd() * 256);
  return b;
}
const hex = (n: number) => bytes(n).toString("hex");
/** An AWS secret access key: 30 random bytes in base64. */
function awsSecret(): string {
  for (;;) {
    const s = bytes(30).toString("base64");
    if (/[0-9]/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s)) return s;
  }
}
const awsKeyId = (p = "AKIA") => p + gen("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16);

/** Every secret is gone from the redacted text, and the text around it is kept. */
function expectHidden(text: string, secrets: string[], kept: string[] = []): string {
  const out = redactText(text).text;
  for (const s of secrets) expect(out, `leaks ${s.slice(0, 6)}… in\n${out}`).not.toContain(s);
  for (const k of kept) expect(out).toContain(k);
  return out;
}
function expectKept(text: string): void {
  expect(redactText(text)).toEqual({ text, kinds: [] });
}

describe("damage: values that only look like secrets stay", () => {
  it("keeps .env.example placeholders, also five lines and more", () => {
    expectKept("# .env.example\nAPI_KEY=changeme\nSECRET_KEY=<your-key>\nAUTH_TOKEN=xxxxxxxxxxxxxxxx\n");
    expectKept(
      "DB_PASSWORD=\nREDIS_PASSWORD=null\nMAIL_PASSWORD=null\nAWS_SECRET_ACCESS_KEY=\nPUSHER_APP_SECRET=\n",
    );
    expectKept("JWT_SECRET=change-this-in-production\nSESSION_SECRET=replace-with-a-long-random-string\n");
    expectKept("SECRET_KEY_BASE=generate-with-bin-rails-secret\n");
  });

  it("keeps a quick-start URL whose password repeats its user (issue 38 redacts the defaults under a name)", () => {
    expectKept('DATABASE_URL="postgresql://postgres:postgres@localhost:5432/app_dev"');
    expectKept("MINIO_ROOT_USER=minioadmin\n");
  });

  it("keeps a diceware passphrase under a password key as a secret, not a placeholder", () => {
    expectHidden("DB_PASSWORD=correct-horse-battery-staple\n", ["correct-horse-battery-staple"]);
  });

  it("keeps environment and secret-store lookups in code and config", () => {
    expectKept(`database:\n  password: '%env(DATABASE_PASSWORD)%'\nprovider:\n  apiKey: \${env:API_KEY}`);
    expectKept('const apiKey = process.env.API_KEY;\ntoken = os.environ["TOKEN"]');
  });

  it("keeps --help of database CLIs, lowercase descriptions too", () => {
    expectKept(
      "  --password arg                     password\n  --ask-password                     ask-password",
    );
  });

  it("still omits a process environment, and reads a .env line by line", () => {
    const token = key(32);
    const env = [
      "SHELL=/bin/bash",
      "HOME=/home/u",
      "PATH=/usr/bin",
      `API_TOKEN=${token}`,
      "LANG=C",
      "TERM=xterm",
    ];
    expect(redactText(env.join("\n")).text).toBe("[OMITTED:environment]");
    const dotenv = ["NODE_ENV=production", "PORT=8080", "LOG_LEVEL=info", `API_TOKEN=${token}`, "REGION=eu"];
    expect(redactText(dotenv.join("\n")).text).toBe(dotenv.join("\n").replace(token, "[REDACTED:token]"));
  });
});

describe("structured documents: a sibling field names the value", () => {
  it("Postman collections, pretty-printed: bearer, apikey and header arrays", () => {
    const t = hex(20);
    const bearer = JSON.stringify(
      { auth: { type: "bearer", bearer: [{ key: "token", value: t, type: "string" }] } },
      null,
      "\t",
    );
    expectHidden(bearer, [t]);
    const k = hex(16);
    const apikey = JSON.stringify(
      {
        auth: {
          type: "apikey",
          apikey: [
            { key: "value", value: k },
            { key: "key", value: "X-API-Key" },
            { key: "in", value: "header" },
          ],
        },
      },
      null,
      2,
    );
    expect(expectHidden(apikey, [k])).toContain('"value": "X-API-Key"');
    const h = key(32);
    expectHidden(
      JSON.stringify(
        {
          header: [
            { key: "Accept", value: "application/json" },
            { key: "DD-API-KEY", value: h },
          ],
        },
        null,
        2,
      ),
      [h],
      ["application/json"],
    );
  });

  it("Insomnia and HAR header arrays of {name, value}, and a HAR's cookies", () => {
    const t = key(40);
    const c = bytes(32).toString("base64url");
    const har = {
      headers: [
        { name: "X-Api-Key", value: t },
        { name: "user-agent", value: "Mozilla/5.0" },
      ],
      cookies: [{ name: "sid", value: c }],
    };
    expectHidden(JSON.stringify(har, null, 2), [t, c], ["Mozilla/5.0"]);
  });

  it("a Postman environment's secret-typed values, an ECS task's environment", () => {
    const t = key(30);
    expectHidden(
      JSON.stringify(
        {
          values: [
            { key: "baseUrl", value: "https://api.acme.io" },
            { key: "pw", value: t, type: "secret" },
          ],
        },
        null,
        2,
      ),
      [t],
      ["https://api.acme.io"],
    );
    const e = key(30);
    expectHidden(
      JSON.stringify(
        {
          environment: [
            { name: "NODE_ENV", value: "production" },
            { name: "JWT_SECRET", value: e },
          ],
        },
        null,
        4,
      ),
      [e],
      ["production"],
    );
  });

  it("Azure CLI output: key lists, ACR passwords, Key Vault secrets; SSM SecureStrings", () => {
    const k1 = bytes(64).toString("base64");
    expectHidden(
      JSON.stringify(
        [{ creationTime: "2026-01-01", keyName: "key1", permissions: "FULL", value: k1 }],
        null,
        2,
      ),
      [k1],
    );
    const p = key(43);
    expectHidden(JSON.stringify({ passwords: [{ name: "password2", value: p }], username: "reg" }, null, 2), [
      p,
    ]);
    const v = key(20);
    expectHidden(
      JSON.stringify(
        { id: "https://kv.vault.azure.net/secrets/orders/abc", name: "orders", tags: {}, value: v },
        null,
        2,
      ),
      [v],
    );
    const s = key(20);
    expectHidden(
      JSON.stringify(
        { Parameter: { Name: "/prod/db", Type: "SecureString", Value: s, Version: 3 } },
        null,
        2,
      ),
      [s],
    );
  });

  it("Hadoop's <property><name>…secret.key</name><value>…</value>", () => {
    const s = awsSecret();
    expectHidden(`<property>\n  <name>fs.s3a.secret.key</name>\n  <value>${s}</value>\n</property>`, [s]);
    expectKept(
      "<property>\n  <name>fs.s3a.endpoint</name>\n  <value>s3.eu-west-1.amazonaws.com</value>\n</property>",
    );
  });

  it("redactValue masks numbered secret fields (password2) like their first copy", () => {
    const p = key(20);
    expect(redactValue({ password2: p }).value).toEqual({ password2: "[REDACTED:password]" });
  });
});

describe("unlabelled secrets: an AWS key id pairs with its secret", () => {
  it("a bare 40-character secret alone on a tool's stdout", () => {
    const s = awsSecret();
    expect(redactText(`${s}\n`).text).toBe("[REDACTED:aws_secret_access_key]\n");
    const r = redactValue({
      tool_input: { command: "aws configure get aws_secret_access_key" },
      tool_response: { stdout: `${s}\n` },
    });
    expect(JSON.stringify(r.value)).not.toContain(s);
  });

  it("the second field of a line, a CSV download, --output text", () => {
    const [id, s] = [awsKeyId(), awsSecret()];
    expectHidden(`${id} ${s}`, [id, s]);
    expectHidden(`Access key ID,Secret access key\n${awsKeyId()},${s}\n`, [s]);
    expectHidden(`ACCESSKEY\t${awsKeyId()}\t2026-03-01T10:00:00+00:00\t${s}\tActive\tci\n`, [s], ["Active"]);
  });

  it("a temporary id's secret and session token in sts --output text", () => {
    const [s, t] = [awsSecret(), `IQoJb3JpZ2luX2VjE${bytes(240).toString("base64").replace(/=+$/, "")}`];
    expectHidden(`CREDENTIALS\t${awsKeyId("ASIA")}\t2026-03-01T11:00:00Z\t${s}\t${t}\n`, [s, t.slice(20)]);
  });

  it("positional SDK arguments", () => {
    const s = awsSecret();
    expectHidden(`AWSCredentials c = new BasicAWSCredentials("${awsKeyId()}", "${s}");`, [s]);
  });

  it("keeps 40-character hex and ids beside a key id, and base64 tails of a PEM block", () => {
    const sha = hex(20);
    expect(redactText(`${awsKeyId()} ${sha}`).text).toBe(`[REDACTED:aws_access_key_id] ${sha}`);
    const cert = `-----BEGIN CERTIFICATE-----\n${bytes(48).toString("base64")}\n${awsSecret()}\n-----END CERTIFICATE-----`;
    expectKept(cert);
  });
});

describe("a bare AWS secret in a longer text, with no name or key id near", () => {
  it("in a log line, prose, a table and a JSON-escaped tool result", () => {
    const s = awsSecret();
    expectHidden(`2026-03-02T10:14:07Z INFO rotate: issued ${s} to ci-deployer (expires 2026-06-01)`, [s]);
    expectHidden(`I generated a fresh one for you: ${s}. Paste it into the deploy settings.`, [s]);
    expectHidden(`| ci-deployer | ${s} | Active |\n| ops | none | Disabled |\n`, [s], ["Active"]);
    expectHidden(`{"type":"tool_result","content":"rotating...\\n${s}\\ndone in 1.2s\\n"}`, [s], ["done in"]);
  });

  it("keeps identifiers, paths, base64 of text, digest ids and wrapped blocks of 40", () => {
    const tail = bytes(30).toString("base64");
    const lines = [
      "function traceStartedTimeFromTracingStartedEvent2(event) { return event.ts; }",
      "class GoogleCloudAiplatformV1beta1Featurestore extends Message { /* generated */ }",
      '"BankRecipientPawnShopServiceRoleF9C28899": { "Type": "AWS::IAM::Role" } and more text',
      "aws sqs get-queue-attributes --queue-url https://q/123456789012/testQueue/SQSDefaultPolicy now",
      `expect(decode("${Buffer.from("Patience is the key to success").toString("base64")}")).toBe(true);`,
      `--request-id ${hex(16)}${gen(ALNUM, 8)} was accepted by the service quota endpoint`,
      `const sig = \`${bytes(54).toString("base64")}\` +\n\t\`${tail}\` // a signature in pieces`,
      `  data: ${gen(ALNUM, 30)}-${gen(ALNUM, 40)}_${gen(ALNUM, 9)} in a base64url blob, glued`,
    ];
    for (const text of lines) expectKept(text);
  });
});

describe("flags and positional secrets on command lines", () => {
  const pw = () => key(16);
  const cases: Array<(p: string) => string> = [
    (p) => `sqlcmd -S localhost -U sa -P '${p}' -Q "SELECT 1"`,
    (p) => `mosquitto_pub -h mqtt -u sensor -P ${p} -t temp -m 1`,
    (p) => `ldapsearch -x -D "cn=admin,dc=acme,dc=io" -w ${p} -b "dc=acme,dc=io"`,
    (p) => `mariadb -uroot -p${p} -e "SHOW DATABASES"`,
    (p) => `7z a -p${p} -mhe=on backup.7z ./exports`,
    (p) => `cqlsh 10.0.0.12 9042 -u cassandra -p ${p}`,
    (p) => `smbclient //fs/finance -U ops%${p} -c 'ls'`,
    (p) => `http -a ops:${p} GET https://api.acme.io/v1/me`,
    (p) => `curl --proxy-user proxy:${p} -x http://proxy:3128 https://example.com`,
    (p) => `netlify deploy --prod --auth ${p}${p}`,
    (p) => `ssh-keygen -t ed25519 -N '${p}' -f ~/.ssh/deploy`,
    (p) => `openssl enc -aes-256-cbc -in db.sql -out db.enc -k ${p}`,
    (p) => `rabbitmqctl add_user orders ${p}`,
    (p) => `mc alias set myminio https://minio.acme.io ${p} ${p}${p}`,
    (p) => `ngrok config add-authtoken ${p}`,
    (p) => `sqlplus system/${p}@//db.internal:1521/ORCLPDB1`,
    (p) => `# redis.conf\nrequirepass ${p}\n`,
    (p) => `127.0.0.1:6379> AUTH default ${p}\nOK`,
    (p) => `userlist admins\n  user ops insecure-password ${p}\n`,
    (p) => `kubectl create secret generic api --from-literal=upstream=${p}`,
    (p) => `echo "${p}" | npx wrangler secret put STRIPE_KEY`,
    (p) => `echo "ops:${p}" | chpasswd`,
    (p) => `http POST api.acme.io/v1/events x-api-key:${p}${p}`,
    (p) => `config: {Host:db.internal User:orders Password:${p} SSLMode:require}`,
    (p) => `htpasswd -b .htpasswd ops ${p}`,
    (p) => `poetry config http-basic.acme ci ${p}`,
    (p) => `spring.datasource.url=jdbc:oracle:thin:app/${p}@db.internal:1521:ORCL`,
    (p) => `vault write auth/approle/login role_id=${"1".repeat(8)}-aaaa secret_id=${p}`,
  ];
  for (const c of cases) {
    const p = pw();
    it(c("…"), () => expectHidden(c(p), [p]));
  }

  it("keeps help texts, prompts for a password, and a ConfigMap's literals", () => {
    expectKept("usage: sqlcmd [-U login id] [-P password] [-S server]");
    expectKept("ldapsearch: -w passwd  bind password (for simple authentication)");
    expectKept("mysql -h db -u app -p orders < schema.sql");
    expectKept('ssh-keygen -t ed25519 -N "" -f ~/.ssh/id_ed25519');
    expectKept("kubectl create configmap app --from-literal=upstream=https://api.acme.io");
    expectKept("see auth:login and secret:mocks and token:refresh");
  });
});

describe("calls: a secret's name, then its value", () => {
  const cases: Array<(v: string) => string> = [
    (v) => `define( 'DB_PASSWORD', '${v}' );`,
    (v) => `os.Setenv("API_KEY", "${v}")`,
    (v) => `System.setProperty("db.password", "${v}");`,
    (v) => `headers.put("X-Api-Key", "${v}");`,
    (v) => `setenv("AUTH_TOKEN", "${v}", 1);`,
    (v) => `r = requests.get(url, auth=("ops", "${v}"))`,
    (v) => `r = requests.get(url, auth=HTTPBasicAuth("ops", "${v}"))`,
    (v) => `var cred = new NetworkCredential("ops", "${v}");`,
    (v) => `const client = algoliasearch("ABCDEF1234", "${v}");`,
    (v) => `client = Client("AC${hex(16)}", "${v}")`,
  ];
  for (const c of cases) {
    const v = key(24);
    it(c("…"), () => expectHidden(c(v), [v]));
  }

  it("wp-config salts, with their symbols", () => {
    const salt = `${key(20)}!@#$%^&*()-_[]{}<>~+=,.;:/?|${key(16)}`;
    expectHidden(`define( 'NONCE_SALT',       '${salt}' );`, [salt]);
  });

  it("keeps lists of key names, help, i18n and reads with defaults", () => {
    expectKept('SENSITIVE_KEYS = ["password", "token", "api_key", "secret", "authorization"]');
    expectKept('parser.add_argument("--token", "-t", help="API token (or set ACME_TOKEN)")');
    expectKept('logger.info("token", "refreshed")\nt("password", "Password")');
    expectKept("os.environ.get(\"DB_PASSWORD\", \"\")\ndefine( 'AUTH_KEY', 'put your unique phrase here' );");
  });
});

describe("a command that prints a secret: its output is the value", () => {
  it("in a shell transcript: a lone token, key: value lines, a --query ... -o tsv", () => {
    const p = key(20);
    expectHidden(`$ vault kv get -field=password secret/orders/db\n${p}`, [p]);
    const s = awsSecret();
    expectHidden(`$ aws configure get aws_secret_access_key\n${s}\n`, [s]);
    const k = bytes(64).toString("base64");
    expectHidden(`$ az storage account keys list -g rg -n st --query "[0].value" -o tsv\n${k}\n`, [k]);
    const [a, b] = [key(20), key(20)];
    const out = expectHidden(
      `$ kubectl get secret db -o go-template='{{range $k,$v := .data}}{{$k}}: {{$v|base64decode}}{{"\\n"}}{{end}}'\nadmin: ${a}\ndsn: postgres://o:${b}@db/o\n$ ls\n`,
      [a, b],
    );
    expect(out).toContain("$ ls");
  });

  it("kubectl get secret -o json decoded with jq: every value of the decoded data", () => {
    const [a, b] = [key(24), key(24)];
    const text = `$ kubectl get secret orders -o json | jq '.data | map_values(@base64d)'\n{\n  "connection": "${a}",\n  "upstream": "${b}"\n}\n`;
    expect(expectHidden(text, [a, b])).toContain('"connection": "[REDACTED:secret]"');
  });

  it("in a hook payload, serialized or structured", () => {
    const p = key(20);
    const payload = {
      tool_name: "Bash",
      tool_input: { command: `gcloud secrets versions access latest --secret=db` },
      tool_response: { stdout: `${p}\n`, stderr: "" },
    };
    expectHidden(JSON.stringify(payload), [p]);
    expect(JSON.stringify(redactValue(payload).value)).not.toContain(p);
    const codex = { tool_input: { command: "vault read -field=token auth/x" }, tool_response: p };
    expect(redactValue(codex).value).toEqual({ ...codex, tool_response: "[REDACTED:secret]" });
  });

  it("keeps the output of commands that print no secret", () => {
    const id = key(20);
    expect(redactValue({ tool_input: { command: "uuidgen" }, tool_response: { stdout: id } }).value).toEqual({
      tool_input: { command: "uuidgen" },
      tool_response: { stdout: id },
    });
    expectKept("vault kv get -field=password secret/orders/db > /dev/null && echo ok");
  });
});

describe("key/value tables", () => {
  it("vault kv get's Data section, az -o table's Value column, a box-drawn NAME/VALUE table", () => {
    const p = key(20);
    const vault = `====== Data ======\nKey         Value\n---         -----\npassword    ${p}\nusername    orders\n`;
    expect(expectHidden(vault, [p])).toContain("username    [REDACTED:secret]");
    const k = bytes(64).toString("base64");
    const az = `KeyName    Permissions    Value\n---------  -------------  ------------------------------------\nkey1       FULL           ${k}\n`;
    expectHidden(az, [k], ["key1       FULL"]);
    const t = key(32);
    const box = `┌──────────┬──────────┐\n│ NAME     │ VALUE    │\n├──────────┼──────────┤\n│ REGION   │ eu-west  │\n│ UPSTREAM │ ${t} │\n└──────────┴──────────┘`;
    expectHidden(box, [t], ["eu-west"]);
  });

  it("keeps a table's ordinary values and vault's metadata", () => {
    expectKept(
      "======= Metadata =======\nKey                Value\n---                -----\ncreated_time       2026-03-01T10:00:00Z\nversion            3\n",
    );
  });
});

describe("labels, types, dumps and concatenation around a secret's name", () => {
  const cases: Array<(v: string) => string> = [
    (v) => `Your new API key: ${v}\nStore it somewhere safe; it will not be shown again.`,
    (v) => `Access key: ${v.slice(0, 20)}\nSecret key: ${v}`,
    (v) => `Password for the [elastic] user successfully reset.\nNew value: ${v}\n`,
    (v) => `const apiKey: string = "${v}";`,
    (v) => `pub const API_KEY: &str = "${v}";`,
    (v) => `api_key: Optional[str] = "${v}"`,
    (v) => `array(2) {\n  ["password"]=>\n  string(${v.length}) "${v}"\n}`,
    (v) => `Array\n(\n    [host] => db\n    [password] => ${v}\n)`,
    (v) => `X-Sentry-Auth: Sentry sentry_version=7, sentry_key=${v}, sentry_secret=${v}`,
    (v) => `encrypt = "${v}"`,
    (v) => `<pre>{&quot;api_key&quot;: &quot;${v}&quot;}</pre>`,
    // Every entity of a quote that HTML writers use, double and single.
    (v) => `<td>{&#34;api_key&#34;: &#34;${v}&#34;}</td>`,
    (v) => `<td>{&#x22;api_key&#x22;: &#x22;${v}&#x22;}</td>`,
    (v) => `<td>{&#39;api_key&#39;: &#39;${v}&#39;}</td>`,
    (v) => `<td>{&#x27;api_key&#x27;: &#x27;${v}&#x27;}</td>`,
    (v) => `echo && cat x && <td>{&apos;api_key&apos;: &apos;${v}&apos;}</td>`,
    (v) => `CREATE USER reporting WITH PASSWORD '${v}';`,
    (v) => `CREATE USER 'app'@'%' IDENTIFIED BY '${v}';`,
  ];
  for (const c of cases) {
    const v = key(24);
    it(c("…").replace(/\n/g, "⏎"), () => expectHidden(c(v), [v]));
  }

  it("a keyed literal in pieces: + and implicit concatenation", () => {
    const v = key(28);
    expectHidden(`const apiKey = "${v.slice(0, 12)}" + "${v.slice(12)}";`, [v.slice(12)]);
    expectHidden(`API_KEY = ("${v.slice(0, 12)}"\n           "${v.slice(12)}")`, [
      v.slice(0, 12),
      v.slice(12),
    ]);
  });

  it("a .env line's value whatever its name, when it is key material", () => {
    const v = key(32);
    const out = expectHidden(
      `NODE_ENV=production\nUPSTREAM=${v}\nGIT_SHA=${hex(20)}\nBUILD=2026-03-01T10:00:00Z\n`,
      [v],
    );
    expect(out).toContain("NODE_ENV=production");
    expect(out).toMatch(/GIT_SHA=[0-9a-f]{40}/);
    expectKept(`IMAGE_DIGEST=sha256:${hex(32)}\nREQUEST_ID=${key(24)}\nPUBLIC_KEY=${key(40)}`);
  });

  it("keeps the prose and code these labels are made of", () => {
    expectKept("the primary key: id\nCREATE USER app WITH PASSWORD 'app';\nAPI key: see the dashboard");
    expectKept(`const t = "token: " + token;\nconst label = "Password" + ":";`);
  });
});

describe("more shapes: prose, generated keys, weak names", () => {
  const cases: Array<(v: string) => string> = [
    (v) => `The admin password is ${v}, please rotate it after the demo.`,
    (v) => `Here's the token for the staging API: ${v} — it expires Friday.`,
    (v) => `bundle config set --global rubygems.acme.io ci:${v}`,
    (v) => `# replica\nmasterauth ${v}\nreplicaof 10.0.0.4 6379\n`,
    (v) => `xfreerdp /v:10.0.0.30 /u:Administrator /p:${v} /cert:ignore`,
    (v) => `const client = require('twilio')('AC${hex(16)}', '${v}');`,
    (v) => `"Orders": "Server=tcp:sql01,1433;User ID=backup;Password=N&${v}!$x;Encrypt=True;"`,
    (v) => `let smtpPass = "${v}"`,
    (v) => `expdp svc-api/${v}@orcl schemas=HR directory=DATA_PUMP_DIR`,
    (v) => `fetch(u, { headers: { "X-Honeycomb-Team": "${v}" } })`,
    (v) => `jwt.sign(payload, "${v}", { expiresIn: "1h" })`,
    (v) => `{\n  "keyName": "RootManageSharedAccessKey",\n  "primaryKey": "${v}"\n}`,
  ];
  for (const c of cases) {
    const v = key(24);
    it(c("…").replace(/\n/g, "⏎"), () => expectHidden(c(v), [v]));
  }

  it("a key that consul keygen or wg genkey printed", () => {
    const k = bytes(32).toString("base64");
    expectHidden(`$ consul keygen\n${k}\n`, [k]);
    expect(
      redactValue({ tool_input: { command: "wg genkey" }, tool_response: { stdout: `${k}\n` } }).value,
    ).toEqual({
      tool_input: { command: "wg genkey" },
      tool_response: { stdout: "[REDACTED:secret]\n" },
    });
  });

  it("an AWS secret that starts with a slash still pairs with its id", () => {
    let s = awsSecret();
    s = `/${s.slice(1)}`;
    expectHidden(`AWS Access Key ID [None]: ${awsKeyId()}\nAWS Secret Access Key [None]: ${s}\n`, [s]);
  });

  it("redactValue believes a weak name (primaryKey, STRIPE_KEY) only with a generated value", () => {
    const v = key(44);
    expect(redactValue({ primaryKey: v, STRIPE_KEY: v }).value).toEqual({
      primaryKey: "[REDACTED:secret_key]",
      STRIPE_KEY: "[REDACTED:secret_key]",
    });
    expect(redactValue({ primaryKey: "user_id", MAPS_KEY: "" }).value).toEqual({
      primaryKey: "user_id",
      MAPS_KEY: "",
    });
  });

  it("keeps sentences that only name a secret, and calls that only pass one along", () => {
    expectKept(
      "The password is required.\nThe token is expired since 2026-01-01.\nThe secret is out: everyone knows.",
    );
    expectKept('canPass = true\nfoo(a, "b2c3d4e5f6")\njwt.sign(payload, process.env.JWT_SECRET)');
    expectKept("$ openssl rand -hex 4\n9f86d081");
  });
});

describe("every new rule stays linear on adversarial input", () => {
  // Sizes that a linear scan handles in milliseconds and a quadratic one in minutes.
  const hostile: Array<[string, string]> = [
    ["call pairs", `("password", "`.repeat(8000)],
    ["unquoted call pairs", `jwt.sign(x, "`.repeat(8000)],
    ["sentences", "the password is ".repeat(8000)],
    ["sql keywords", "PASSWORD '".repeat(10000)],
    ["single quotes", "'".repeat(100000)],
    ["box tables", `│ NAME │ VALUE │\n${"│ a │ b │\n".repeat(8000)}`],
    ["dash tables", "Key   Value\n---   -----\n".repeat(5000)],
    ["one long line of table rules", "---   -----  ".repeat(8000)],
    ["key ids before a long run", `${"AKIAABCDEFGHIJKLMNOP ".repeat(2000)}${"A".repeat(100000)}`],
    ["value keys", `"value": "`.repeat(8000)],
    ["name/value pairs", `{"name": "password", "value": "x"},`.repeat(4000)],
    ["dotenv lines", "AAAA=\n".repeat(15000)],
    ["base64 lines", `${"A".repeat(43)}=\n`.repeat(3000)],
    ["printer commands", "vault kv get -field=password x\n".repeat(4000)],
    [
      "serialized printer commands",
      JSON.stringify({ c: Array.from({ length: 3000 }, () => ({ command: "vault kv get -field=p x" })) }),
    ],
    ["labels", "API key: ".repeat(10000)],
    ["clauses and colons", "the token x: ".repeat(8000)],
    ["glued colons", "Password:".repeat(10000)],
    ["pipes", "echo x | wrangler secret put A ".repeat(4000)],
    ["Oracle logins", `${"sqlplus a/".repeat(10000)}@`],
    ["connection strings", ";Password=".repeat(10000)],
    ["concatenation", `password = "a" + "`.repeat(8000)],
    ["HTML entities", "&quot;".repeat(20000)],
    ["redis prompts", "> AUTH ".repeat(10000)],
  ];
  for (const [name, input] of hostile) {
    // No clock in the assertion: a quadratic rule on these sizes runs for minutes and meets the test's
    // timeout; a linear one ends, and its output must still be a redaction of the input.
    it(name, () => {
      expect(redactText(input).text.length).toBeGreaterThan(0);
      const value = redactValue({
        tool_input: { command: "vault kv get -field=p x" },
        tool_response: { stdout: input },
      });
      expect(typeof value.value.tool_response.stdout).toBe("string");
    }, 60_000);
  }
});
