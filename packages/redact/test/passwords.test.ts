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

describe("a password directive, its name and value apart by blanks", () => {
  it("takes msmtp's and esmtp's password line, quoted or bare", () => {
    for (const pw of [word(), "password"]) {
      const rc = `account default\nhost smtp.example.com\nuser me@example.com\npassword "${pw}"\nstarttls required\n`;
      expect(redactText(rc).text).toBe(rc.replace(`"${pw}"`, '"[REDACTED:password]"'));
      expectHidden(`user me\npassword ${pw}\n`, `password ${pw}`);
      expectHidden(`password ${pw}   # the relay's\n`, `password ${pw}`);
    }
  });

  it("takes fetchmail's and Cisco's, after a user on the same line", () => {
    const pw = word();
    expectHidden(`poll pop.example.com protocol pop3 user "me" password "${pw}" is localme`, pw);
    expectHidden(`username admin privilege 15 password 0 ${pw}`, pw);
  });

  it("in JSON, as a transcript carries the file", () => {
    const pw = word();
    expectHidden(JSON.stringify({ content: `hostname smtp.example.com:587\npassword "${pw}"\n` }), pw);
  });

  it("keeps sentences and commands that have the word", () => {
    expectKept("password hashing uses bcrypt with a cost of 12\nthe user can reset the password with a link");
    expectKept('password   The password to use when connecting\npasswordeval "gpg -d ~/.msmtp.gpg"');
    expectKept('passwd root\npassword "$SMTP_PASSWORD"\npassword <your password>');
    expectKept("  --askpass          Force user to input password with mask from STDIN.");
  });

  it("keeps a sentence that names a user or login before a password and ends with a full stop", () => {
    // The bench's prose: "login" a few words before "password", and the word that ends the sentence.
    expectKept("the login form checks the password first.");
    expectKept("a user asked for a new login password today.");
    expectKept("reset the login helper password weekly.\nthen run the suite");
    expectHidden("user me password Xk9mQ2vL.\n", "Xk9mQ2vL");
  });
});

describe("XML elements with attributes", () => {
  it("takes the value of an element whose opening tag carries attributes", () => {
    const b64 = Buffer.from(word(12)).toString("base64");
    const fz = `<Server>\n  <User>root</User>\n  <Pass encoding="base64">${b64}</Pass>\n</Server>`;
    expect(redactText(fz).text).toBe(fz.replace(b64, "[REDACTED:password]"));
    const pw = word();
    expectHidden(`<password type="plain">${pw}</password>`, pw);
    expectHidden(`<passphrase\n    hint="the usual">${pw}</passphrase>`, pw);
    expectHidden(JSON.stringify({ xml: `<Pass encoding="base64">${b64}</Pass>` }), b64);
  });

  it("keeps empty and self-closing elements, and elements of other names", () => {
    expectKept(
      '<Pass/>\n<Pass encoding="base64" />\n<PassMode>MODE_DEFAULT</PassMode>\n<key name="x">value</key>',
    );
  });
});

describe("a URL whose user is an e-mail address", () => {
  it("takes a password that holds # and @ (a .git-credentials line)", () => {
    const pw = `${word(6)}!#@${word(3)}`;
    expect(redactText(`https://me@example.com:${pw}@github.com\n`).text).toBe(
      "https://me@example.com:[REDACTED:url_password]@github.com\n",
    );
    expectHidden(`git clone https://ci@corp.example:${pw}@git.example.com/team/app.git`, pw);
  });

  it("keeps a host's port and fragment before an @ in a query", () => {
    expectKept("http://localhost:8080?next=a@b\nhttps://example.com:443#frag@x\nhttps://a.b.com:8080/#/x@y");
  });
});

describe("abbreviated password names", () => {
  it("takes dbpass, dbpasswd, passwd, pwd and pw in assignments", () => {
    for (const name of [
      "dbpass",
      "dbpasswd",
      "DBPASS",
      "rootpw",
      "adminpwd",
      "smtppass",
      "passwd",
      "pwd",
      "pw",
      "db_pw",
    ]) {
      const pw = word();
      expectHidden(`${name}=${pw}\n`, pw);
      expectHidden(`$${name} = '${pw}';`, pw);
      expectHidden(`  ${name}: ${pw}\n`, pw);
      expectHidden(`{"${name}": "${pw}"}`, pw);
    }
  });

  it("keeps the words that only end like one", () => {
    expectKept(
      "bypass: true\ncompass = 'north'\nlowpass = 0.5\nconst renderPass = encoder.beginRenderPass(desc)",
    );
    expectKept("OLDPWD=/home/dev\nPWD=/home/dev/app\nchpasswd: expire: false ");
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

  it("hides all of an argument whose quotes are JSON-escaped, its last character too", () => {
    const pw = word();
    const key = `Q${randomString(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 20)}7z`;
    const escaped = JSON.stringify({ c: `define("DB_PASSWORD", "${pw}");\nos.Setenv("API_KEY", "${key}")` });
    expect(redactText(escaped).text).toBe(
      '{"c":"define(\\"DB_PASSWORD\\", \\"[REDACTED:password]\\");\\nos.Setenv(\\"API_KEY\\", \\"[REDACTED:api_key]\\")"}',
    );
  });

  it("keeps calls whose arguments are no credentials", () => {
    expectKept("logger.log('info', 'started')\nfn.bind(null, 'click')\nmysql_connect($host, $user, $pass)");
  });
});

describe("password hashes, redacted after their algorithm", () => {
  const C = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const crypt = (n: number) => randomString(rnd, C, n);
  const b64 = (n: number) => randomString(rnd, `${C.slice(2)}+/`, n);

  it("in a SQL dump's rows, shadow, passwd and htpasswd lines", () => {
    const bcrypt = crypt(53);
    const out = expectHidden(
      `INSERT INTO users VALUES (1, 'ada', '$2y$12$${bcrypt}', 1),\n(2, 'bob', '$2b$10$${crypt(53)}', 0);`,
      bcrypt,
    );
    expect(out).toContain("'$2y$12$[REDACTED:password_hash]'");
    const sha = `${crypt(16)}$${crypt(86)}`;
    expect(redactText(`ada:$6$${sha}:19700:0:99999:7:::`).text).toBe(
      "ada:$6$[REDACTED:password_hash]:19700:0:99999:7:::",
    );
    const md5 = `${crypt(8)}$${crypt(22)}`;
    expect(redactText(`ada:$1$${md5}:1000:1000:Ada:/home/ada:/bin/sh`).text).toBe(
      "ada:$1$[REDACTED:password_hash]:1000:1000:Ada:/home/ada:/bin/sh",
    );
    expect(redactText(`ada:$apr1$${md5}\n`).text).toBe("ada:$apr1$[REDACTED:password_hash]\n");
    expect(redactText(`ada:$5$rounds=5000$${crypt(16)}$${crypt(43)}:19700::::::`).text).toBe(
      "ada:$5$rounds=5000$[REDACTED:password_hash]:19700::::::",
    );
  });

  it("in the newer and the framework formats", () => {
    const yes = `${crypt(22)}$${crypt(43)}`;
    expect(redactText(`ada:$y$j9T$${yes}:19700:0:99999:7:::`).text).toContain(
      "$y$j9T$[REDACTED:password_hash]:",
    );
    const argon = `${b64(22)}$${b64(43)}`;
    expectHidden(`hash: $argon2id$v=19$m=65536,t=3,p=4$${argon}`, argon);
    const django = `${b64(22)}$${b64(44)}`;
    expectHidden(`"password": "pbkdf2_sha256$600000$${django}"`, django);
    expectHidden(`ada:pbkdf2_sha256$600000$${django}`, django);
    const ssha = b64(32);
    expectHidden(`ada:{SSHA}${ssha}`, ssha);
  });

  it("doubled for Docker Compose, or escaped in a shell's double quotes", () => {
    const md5 = `${crypt(8)}$${crypt(22)}`;
    const doubled = md5.replace("$", "$$");
    expectHidden(`- "traefik.http.middlewares.auth.basicauth.users=ada:$$apr1$$${doubled}"`, doubled);
    expectHidden(`echo "ada:\\$apr1\\$${md5.replace("$", "\\$")}" >> .htpasswd`, md5.split("$")[1] as string);
  });

  it("keeps what only starts like one: positional variables, prices, a regex's groups", () => {
    expectKept('perl -pe "s/(a)(b)/$1$2/" file\necho "$1 $5 $6"\nprice: $1.50, then $2 each');
    expectKept(
      'password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))\nprefix = "$2b$"',
    );
  });
});

describe("robustness of the password rules", () => {
  const hostile: Array<[string, string]> = [
    ["dollar runs", "$".repeat(200_000)],
    ["unfinished hash prefixes", "$2y$12$".repeat(30_000)],
    ["md5-crypt salts without hashes", `$1$${"a".repeat(8)}$`.repeat(20_000)],
    ["Django hash words", "pbkdf2_sha256$1$".repeat(20_000)],
    ["LDAP braces", "{SSHA}".repeat(30_000)],
    ["password words", "password ".repeat(50_000)],
    ["users and passwords on one line", "user u password ".repeat(30_000)],
    ["unclosed quoted directives", '\npassword "x'.repeat(30_000)],
  ];
  for (const [name, input] of hostile) {
    // A quadratic rule on these sizes runs for minutes and meets the test's timeout (no clock in the assertion).
    it(`stays linear on ${name}`, () => {
      expect(redactText(input).text.length).toBeGreaterThan(0);
    }, 60_000);
  }
});
