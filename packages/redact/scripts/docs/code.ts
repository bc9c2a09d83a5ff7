// Code and what programs print: literals in several languages, error dumps and stack traces, logs, and
// the encodings agent traffic wraps them in (JSON in a JSON string, Go-quoted, HTML-escaped, split).
import { type Doc, doc, J } from "./doc.ts";
import type { Values } from "./values.ts";

const NAMES = ["DB_PASSWORD", "API_KEY", "AUTH_TOKEN", "CLIENT_SECRET", "SMTP_PASS", "WEBHOOK_SECRET"];
const snake = (n: string) => n.toLowerCase();
const camel = (n: string) => snake(n).replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function secretValue(v: Values): string {
  return v.pick([v.alnum(24), v.hex(20), v.b64url(24), v.password().replace(/["'\\`$]/g, "x")]);
}

export const CODE: Doc[] = [
  doc("code/literals", (v) => {
    const n = v.pick(NAMES);
    const val = v.s(secretValue(v));
    return v.pick([
      `const ${camel(n)}: string = "${val}";`,
      `pub const ${n}: &str = "${val}";`,
      `val ${camel(n)} = "${val}"`,
      `${camel(n)} := "${val}"`,
      `private static final String ${n} = "${val}";`,
      `let ${camel(n)} = "${val}"`,
      `${n} = "${val}"  # TODO move to vault`,
      `$${camel(n)} = "${val}";`,
      `config.${snake(n)} = '${val}'`,
      `${snake(n)}: str = "${val}"`,
    ]);
  }),
  doc("code/setter-calls", (v) => {
    const n = v.pick(NAMES);
    const val = v.s(secretValue(v).replace(/ /g, "x"));
    return v.pick([
      `os.Setenv("${n}", "${val}")`,
      `os.environ.setdefault("${n}", "${val}")`,
      `System.setProperty("${snake(n).replace(/_/g, ".")}", "${val}");`,
      `std::env::set_var("${n}", "${val}");`,
      `headers.put("X-Api-Key", "${val}");`,
      `req.Header.Set("Authorization", "Bearer ${val}")`,
      `conn.setRequestProperty("X-Auth-Token", "${val}");`,
      `ENV["${n}"] = "${val}"`,
      `process.env["${n}"] = "${val}";`,
      `setenv("${n}", "${val}", 1);`,
    ]);
  }),
  doc("code/kwargs-and-objects", (v) => {
    const val = v.s(secretValue(v));
    return v.pick([
      `engine = create_engine(URL.create("postgresql", username="etl", password="${val}", host="db", database="dw"))`,
      `pool = new Pool({ host: 'db', user: 'api', password: '${val}', database: 'orders' })`,
      `stripe.api_key = "${val}"`,
      `Sentry.init(dsn: "https://${v.s(v.hex(16))}@o1.ingest.sentry.io/2")`,
      `mail = Mail(server="smtp.acme.io", username="noreply", password="${val}")`,
      `client = OpenAI(api_key="${val}")`,
      `jwt.sign(payload, "${val}", { expiresIn: "1h" })`,
      `app.use(session({ secret: '${val}', resave: false, saveUninitialized: false }))`,
    ]);
  }),
  doc("code/concatenated-literals", (v) => {
    const whole = v.s(v.alnum(28));
    const a = whole.slice(0, 12);
    const b = whole.slice(12);
    return v.pick([
      `const apiKey = "${a}" + "${b}";`,
      `API_KEY = ("${a}"\n           "${b}")`,
      `password := "${a}" +\n\t"${b}"`,
      `String token = "${a}"\n    + "${b}";`,
      `$secret = '${a}' . '${b}';`,
    ]);
  }),
  doc("code/split-provider-token", (v) => {
    const t = J("gh", "p_") + v.alnum(36);
    const cut = 10 + v.int(10);
    v.s(t, "ghp_");
    return v.pick([
      `A=${t.slice(0, cut)}; B=${t.slice(cut)}; curl -H "Authorization: token $A$B" https://api.github.com/user`,
      `P1='${t.slice(0, cut)}'\nP2='${t.slice(cut)}'\ngit clone "https://x-access-token:\${P1}\${P2}@github.com/acme/api.git"`,
      `token = "${t.slice(0, cut)}" + "${t.slice(cut)}"`,
      `const t = ["${t.slice(0, cut)}", "${t.slice(cut)}"].join("");`,
    ]);
  }),
  doc("dump/python-repr", (v) => {
    const val = v.s(secretValue(v));
    return v.pick([
      `Traceback (most recent call last):\n  File "/app/worker.py", line 88, in connect\n    conn = pika.BlockingConnection(params)\npika.exceptions.ProbableAuthenticationError: ConnectionParameters(host='mq', port=5672, credentials=PlainCredentials(username='orders', password='${val}'))`,
      `DEBUG:root:settings={'host': 'db', 'user': 'api', 'password': '${val}', 'pool_size': 5}`,
      `Namespace(debug=False, host='0.0.0.0', token='${val}', workers=4)`,
      `ValueError: bad config: {'auth': {'username': 'svc', 'password': '${val}'}}`,
    ]);
  }),
  doc("dump/node-inspect", (v) => {
    const val = v.s(secretValue(v));
    return `AxiosError: Request failed with status code 401\n    at settle (/app/node_modules/axios/lib/core/settle.js:19:12) {\n  code: 'ERR_BAD_REQUEST',\n  config: {\n    url: 'https://api.acme.io/v1/orders',\n    method: 'get',\n    headers: Object [AxiosHeaders] {\n      Accept: 'application/json, text/plain, */*',\n      ${v.pick(["Authorization: 'Bearer ", "'X-Api-Key': '", "'x-auth-token': '"])}${val}'\n    },\n    auth: { username: 'svc', password: '${v.s(secretValue(v))}' }\n  }\n}`;
  }),
  doc("dump/go-struct", (v) =>
    v.pick([
      `2026/03/01 10:00:00 config: {Host:db.internal Port:5432 User:orders Password:${v.s(v.alnum(18))} SSLMode:require}`,
      `2026/03/01 10:00:00 config: &main.Config{Addr:":8080", Token:"${v.s(v.alnum(24))}", Debug:false}`,
      `panic: dial failed: &{Network:tcp Address:redis:6379 Password:${v.s(v.alnum(18))} DB:0}`,
    ]),
  ),
  doc("dump/java-tostring", (v) =>
    v.pick([
      `DataSourceProperties{url='jdbc:postgresql://db:5432/orders', username='orders', password='${v.s(v.alnum(18))}'}`,
      `MailConfig(host=smtp.acme.io, port=587, username=noreply, password=${v.s(v.alnum(18))}, tls=true)`,
    ]),
  ),
  doc("dump/php-var-dump", (v) =>
    v.pick([
      `array(3) {\n  ["host"]=>\n  string(2) "db"\n  ["password"]=>\n  string(18) "${v.s(v.alnum(18))}"\n  ["port"]=>\n  int(3306)\n}`,
      `Array\n(\n    [host] => db\n    [password] => ${v.s(v.alnum(18))}\n    [port] => 3306\n)`,
    ]),
  ),
  doc("logs/structured", (v) =>
    v.pick([
      `time="2026-03-01T10:00:00Z" level=debug msg="outgoing request" headers="map[Authorization:[Bearer ${v.s(v.alnum(32))}] Accept:[*/*]]"`,
      `{"level":"debug","ts":1767225600.1,"msg":"login","request":{"username":"ops","password":"${v.s(v.alnum(16))}"}}`,
      `[2026-03-01 10:00:00] production.ERROR: SQLSTATE[HY000] [1045] Access denied (Connection: mysql, SQL: select 1) {"exception":"[object] (PDOException(code: 1045): SQLSTATE[HY000] [1045] at /var/www/vendor/laravel/framework/src/Illuminate/Database/Connectors/Connector.php:65)","password":"${v.s(v.alnum(16))}"}`,
      `I0301 10:00:00.000000       1 round_trippers.go:466] curl -v -XGET  -H "Authorization: Bearer ${v.s(v.alnum(40))}" 'https://10.0.0.1:6443/api'`,
    ]),
  ),
  doc("encoding/json-in-json", (v) => {
    const val = v.s(secretValue(v).replace(/["\\]/g, "x"));
    const inner = JSON.stringify({ user: "ops", [v.pick(["password", "api_key", "secret", "token"])]: val });
    return v.pick([
      JSON.stringify({ type: "tool_result", content: JSON.stringify({ stdout: inner }) }),
      JSON.stringify({ log: `${inner}\n`, stream: "stdout", time: v.date() }),
      JSON.stringify(JSON.stringify({ message: JSON.stringify({ body: inner }) })),
    ]);
  }),
  doc("encoding/go-quoted", (v) => {
    const val = v.s(secretValue(v).replace(/["\\]/g, "x"));
    return v.pick([
      `level=info msg="request body" body="{\\"client_secret\\":\\"${val}\\",\\"grant_type\\":\\"client_credentials\\"}"`,
      `2026/03/01 10:00:00 payload: "{\\"password\\": \\"${val}\\", \\"user\\": \\"ops\\"}"`,
      `{"body":"{\\u0022token\\u0022:\\u0022${val}\\u0022}"}`,
    ]);
  }),
  doc("encoding/html-escaped", (v) => {
    const val = v.s(v.alnum(24));
    return v.pick([
      `<pre>{&quot;api_key&quot;: &quot;${val}&quot;, &quot;env&quot;: &quot;prod&quot;}</pre>`,
      `<td>{&#34;password&#34;:&#34;${val}&#34;}</td>`,
    ]);
  }),
  doc("encoding/url-encoded", (v) =>
    v.pick([
      `POST /oauth/token HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=password&username=ops&password=${v.s(`${v.alnum(10)}%21${v.alnum(6)}`)}`,
      `GET /callback?code=abc&state=xyz&access_token=${v.s(v.alnum(32))}&token_type=bearer HTTP/1.1`,
    ]),
  ),
  doc("encoding/base64-basic", (v) => {
    const cred = Buffer.from(`${v.user()}:${v.alnum(16)}`).toString("base64");
    return v.pick([
      `Authorization: Basic ${v.s(cred)}`,
      `{"auths":{"registry.acme.io":{"auth":"${v.s(cred)}"}}}`,
      `proxy_set_header Authorization "Basic ${v.s(cred)}";`,
    ]);
  }),
  doc("shell/env-files", (v) => {
    const n = v.pick(NAMES);
    const val = v.s(secretValue(v).replace(/ /g, "_"));
    return v.pick([
      `$ cat .env\nNODE_ENV=production\nPORT=8080\n${n}=${val}\n`,
      `$ cat .envrc\nexport ${n}="${val}"\nuse flake\n`,
      `${n}=${val} node server.js`,
      `$env:${n} = "${val}"`,
      `set ${n}=${val}`,
      `ENV ${n}=${val}`,
      `ARG ${n}=${val}`,
    ]);
  }),
  doc("shell/heredoc", (v) => {
    const n = v.pick(NAMES);
    return `cat > .env <<'EOF'\nAPP_ENV=prod\n${n}=${v.s(secretValue(v).replace(/ /g, "_"))}\nEOF`;
  }),
  doc("ci/yaml-env", (v) =>
    v.pick([
      `jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      ${v.pick(NAMES)}: ${v.s(v.alnum(32))}\n    steps:\n      - run: ./deploy.sh\n`,
      `variables:\n  ${v.pick(NAMES)}: "${v.s(v.alnum(32))}"\ndeploy:\n  script: ./deploy.sh\n`,
      `services:\n  api:\n    image: acme/api\n    environment:\n      - ${v.pick(NAMES)}=${v.s(v.alnum(32))}\n`,
    ]),
  ),
  doc("prose/labelled", (v) =>
    v.pick([
      `Your new API key: ${v.s(v.alnum(32))}\nStore it somewhere safe; it will not be shown again.`,
      `Client ID: ${v.uuid()}\nClient secret: ${v.s(v.alnum(32))}`,
      `Access key: ${v.s(v.alnum(20))}\nSecret key: ${v.s(v.alnum(40))}`,
      `Here's the token for the staging API: ${v.s(v.hex(20))} — it expires Friday.`,
      `The admin password is ${v.s(v.alnum(16))}, please rotate it after the demo.`,
    ]),
  ),
];
