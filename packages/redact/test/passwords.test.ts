// Passwords by their name, whatever they look like (issue 38): people choose passwords, so a default or a
// common word under a password's name is somebody's password, and the shapes that name one (abbreviated
// keys, PHP's define, login calls, directives, XML elements with attributes, password hashes) each get a
// test. Values are generated from a seed, or are common defaults written here.
import { describe, expect, it } from "vitest";
import { redactText, redactValue } from "../src/index.ts";
import { randomString, seededRandom } from "./random.ts";

const rnd = seededRandom(0x3838);
const word = (n = 9) => randomString(rnd, "abcdefghijklmnopqrstuvwxyz", n);
const DEFAULTS = [
  "admin",
  "root",
  "toor",
  "qwerty",
  "letmein",
  "welcome1",
  "tiger",
  "postgres",
  "guest",
  "password",
];

function expectHidden(text: string, secret: string): string {
  const out = redactText(text).text;
  expect(out, out).not.toContain(secret);
  return out;
}
function expectKept(text: string): void {
  expect(redactText(text)).toEqual({ text, kinds: [] });
}

describe("a password's name makes its value a password", () => {
  it("takes defaults and common words under a password key, in each syntax", () => {
    for (const pw of DEFAULTS) {
      for (const form of [
        "DB_PASSWORD=%\n",
        "  password: %\n",
        '{"password": "%"}',
        "export REDIS_PASS='%'",
        "<password>%</password>",
      ]) {
        expect(redactText(form.replace("%", pw)).text).toBe(form.replace("%", "[REDACTED:password]"));
      }
    }
  });

  it("takes a value that spells the key's own word", () => {
    const name = word(5);
    expectHidden(`${name.toUpperCase()}_PASS=${name}_pass\n`, `${name}_pass`);
    expect(redactText('"password": "password"').text).toBe('"password": "[REDACTED:password]"');
  });

  it("takes a placeholder-sounding word when it is a real value", () => {
    for (const pw of ["dummy-secret1", "test-pw", "example1", "sample-pass"])
      expectHidden(`password=${pw}\n`, pw);
  });

  it("takes a .pgpass, .netrc and docker login password that is a word", () => {
    expectHidden("db.internal:5432:app:svc:password\n", "svc:password");
    expectHidden(`machine api.example.com login bot password ${DEFAULTS[2]}\n`, `password ${DEFAULTS[2]}`);
    expectHidden(`docker login -u bot -p ${DEFAULTS[5]} registry.example.com`, DEFAULTS[5] as string);
  });

  it("masks a structured payload's password that is a word", () => {
    const out = redactValue({ db: { user: "app", password: "admin" } }).value as { db: { password: string } };
    expect(out.db.password).toBe("[REDACTED:password]");
  });

  it("keeps what cannot be a password: variables, templates, masks, instructions, references", () => {
    for (const v of [
      `\${DB_PASSWORD}`,
      "$DB_PASSWORD",
      "{{ db_password }}",
      "<your password>",
      "****",
      "changeme",
      "REPLACE_ME",
      "your-password-here",
      "op://Production/db/password",
      "DB_PASSWORD",
    ]) {
      expectKept(`password: ${v}\n`);
    }
    expectKept('"password": ""');
    expectKept("password: null");
  });

  it("keeps an option's metavar and a help example that spells the option", () => {
    expectKept("  -password 'password'\n        Password to connect to the server.");
    expectKept("  --password PASSWORD   the account's password");
    expectKept("  kubectl config set-credentials admin --username=basic_user --password=basic_password");
  });

  it("keeps the sample words of tokens and keys: those are generated, never words", () => {
    expectKept("API_TOKEN=token\nSECRET_KEY=secret\n");
    expectKept('token: test-token\n"secret": "my-secret-key"');
  });

  it("keeps a URL or SQL password that repeats its user, and a translation's label", () => {
    expectKept('DATABASE_URL="postgresql://postgres:postgres@localhost:5432/app_dev"');
    expectKept("CREATE USER app WITH PASSWORD 'app';");
    expectKept('t("password", "Password")');
  });
});

describe("PHP's define and login calls", () => {
  it("takes define's password constant whatever its value", () => {
    for (const pw of ["admin", word()]) expectHidden(`define( 'DB_PASSWORD', '${pw}' );`, `'${pw}'`);
    expectKept("define( 'DB_NAME', 'main' );\ndefine( 'DB_USER', 'admin' );");
  });

  it("takes a login call's second argument", () => {
    const pw = word();
    expectHidden(`conn.login('someone@example.com', '${pw}', function(err, res) {`, pw);
    expectHidden(`server.login("bot@example.com", "${pw}")`, pw);
    expectHidden(`imap.login('me', '${pw}')`, pw);
    expectHidden(`await client.signIn("me@example.com", "${pw}");`, pw);
  });

  it("takes the third argument of a connection that takes a host, a user and a password", () => {
    const pw = word();
    expectHidden(`$link = mysqli_connect('localhost', 'app', '${pw}');`, pw);
    expectHidden(`$db = new PDO($dsn, 'app', '${pw}');`, pw);
    expectHidden(`ftp_login($conn, 'deploy', '${pw}');`, pw);
  });

  it("keeps calls whose arguments are no credentials", () => {
    expectKept("logger.log('info', 'started')\nfn.bind(null, 'click')\nmysql_connect($host, $user, $pass)");
  });
});
