// Secrets split across pieces that only a reader joins (issue 12, item 2), and
// the formats issue 12 found missed. Fake secrets are assembled at run time.
import { describe, expect, it } from "vitest";
import { explainText, redactText, redactValue } from "../src/index.ts";

const J = (...parts: string[]) => parts.join("");
// Random-looking but fixed material, so failures are reproducible.
const GH = J("gh", "p_", "aB3dE5fG7hJ9kL1mN3pQ", "5rS7tU9vW1xY3zA5bC7d");
const ANT = J("sk", "-ant-api03-", "Qx7".repeat(31), "AA");

/** No 8-character run of `secret` (past its public prefix) may survive in `out`. */
function leaks(out: string, secret: string, prefix = ""): string[] {
  const s = secret.slice(prefix.length);
  const runs: string[] = [];
  for (let i = 0; i + 8 <= s.length; i++) if (out.includes(s.slice(i, i + 8))) runs.push(s.slice(i, i + 8));
  return runs;
}

describe("split secrets in text", () => {
  const a = GH.slice(0, 20);
  const b = GH.slice(20);
  it.each([
    ["JS concatenation", `const token = "${a}" + "${b}";`],
    ["Python implicit concatenation", `TOKEN = ("${a}"\n         "${b}")`],
    ["Go concatenation over a line break", `token := "${a}" +\n\t"${b}"`],
    ["Java concatenation with a leading +", `String t = "${a}"\n    + "${b}";`],
    ["PHP concatenation", `$token = '${a}' . '${b}';`],
    ["JSON array of parts", JSON.stringify({ parts: [a, b] })],
    ["a wrapped terminal line", `│ token: ${a}\n│ ${b} │`],
    ["shell variables joined later", `P1=${a}\nP2=${b}\nexport GITHUB_TOKEN="$P1$P2"\n`],
  ])("joins %s", (_name, text) => {
    const out = redactText(text).text;
    expect(leaks(out, GH, "ghp_")).toEqual([]);
  });

  it("joins stream deltas carrying a key under the same JSON key", () => {
    const cuts = [0, 12, 50, 90, ANT.length];
    const lines = cuts
      .slice(1)
      .map(
        (e, i) =>
          `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(ANT.slice(cuts[i], e))}}}\n`,
      );
    expect(leaks(redactText(lines.join("\n")).text, ANT, "sk-ant-api03-")).toEqual([]);
  });

  it("does not join a whole token with the word on the next line", () => {
    expect(redactText(`retrying with ${GH}\nnext line`).text).toBe(
      "retrying with [REDACTED:github_token]\nnext line",
    );
  });

  it("does not join ordinary strings", () => {
    const code = `const a = "hello" + "world";\nconst list = ["alpha", "beta", "gamma"];`;
    expect(redactText(code).text).toBe(code);
  });
});

describe("split secrets in values", () => {
  it("joins the strings of an array and keeps a neighbour that is not part of the token", () => {
    const out = redactValue({ parts: [GH.slice(0, 20), GH.slice(20), "ok"], argv: ["ls", "-la"] });
    expect(out.value).toEqual({
      parts: ["[REDACTED:github_token]", "[REDACTED:github_token]", "ok"],
      argv: ["ls", "-la"],
    });
    expect(out.redactions).toEqual(["payload.parts[0]", "payload.parts[1]"]);
  });
});

describe("formats issue 12 listed as missed", () => {
  const pw = J("Tiger", "#zebra", "268X");
  it.each([
    ["a .netrc entry", `machine api.heroku.com\n  login me@example.com\n  password ${pw}\n`, pw],
    [
      "a .pgpass line after a header",
      `# hostname:port:database:username:password\ndb:5432:*:app:${pw}\n`,
      pw,
    ],
    ["a Maven settings.xml password", `<server>\n  <id>x</id>\n  <password>${pw}</password>\n</server>`, pw],
    ["a NuGet.Config password", `<add key="ClearTextPassword" value="${pw}" />`, pw],
    ["a Postman bearer token", `{"bearer":[{"key":"token","value":"${pw}","type":"string"}]}`, pw],
    ["aws configure set", `aws configure set aws_secret_access_key ${pw}`, pw],
    ["docker login -p", `docker login -u bot -p ${pw} registry.example.com`, pw],
    ["echo into --password-stdin", `echo ${pw} | docker login ghcr.io -u bot --password-stdin`, pw],
    ["keytool -storepass", `keytool -importkeystore -srckeystore a.p12 -storepass ${pw}`, pw],
    ["openssl -passout pass:", `openssl pkcs12 -export -passout pass:${pw} -out c.p12`, pw],
    ["gh secret set --body", `gh secret set DEPLOY_KEY --body "${pw}"`, pw],
    ["a \\u0022-escaped JSON value", `{"body":"{\\u0022api_key\\u0022:\\u0022${pw}\\u0022}"}`, pw],
    // PHP's json_encode writes `/` as `\/`: the URL's `://` is only seen through the decoded view.
    ["a URL's password in PHP-escaped JSON", `{"dsn":"mysql:\\/\\/app:${pw}@db.internal:3306\\/shop"}`, pw],
    [
      "a Kubernetes Secret under any key",
      `kind: Secret\ndata:\n  stripe-key: ${Buffer.from(pw).toString("base64")}\n`,
      Buffer.from(pw).toString("base64"),
    ],
    ["Rails secret_key_base", `secret_key_base = ${"ab12".repeat(32)}`, "ab12".repeat(32)],
    ["a PHP assignment", `$together_api_key = '${pw}';`, pw],
  ])("redacts %s", (_name, text, secret) => {
    const out = redactText(text).text;
    expect(leaks(out, secret)).toEqual([]);
  });

  it.each([
    ["CLI help naming flags", "  -p, --password[=name]  Password to use when connecting to server."],
    ["a help column", "      --with-token        Read token from standard input"],
    ["a metavar", "  --token TEXT       API token (or set API_TOKEN)"],
    ["GitHub Actions permissions", "permissions:\n  id-token: write\n  contents: read"],
    ["a placeholder with spaces", "export GITHUB_TOKEN=<your token>"],
    ["an already-masked token", `token: "${J("gh", "p_")}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"`],
    ["a masked header", '{"authorization":"[REDACTED]","content-type":"application/json"}'],
    ["a sample value", '"client_secret": "REPLACE_ME"'],
    ["changeme", "DB_PASSWORD=changeme123"],
    ["a dependency version", '"dependencies": { "next-auth": "^4.24.0" }'],
    ["the AWS documentation key", `AWS_ACCESS_KEY_ID=${J("AK", "IA")}IOSFODNN7EXAMPLE`],
    ["a path to a key file", "--from-file=ssh-privatekey=path/to/id_rsa --client-key=keyfile"],
  ])("keeps %s byte for byte", (_name, text) => {
    expect(redactText(text).text).toBe(text);
  });
});

describe("explainText", () => {
  it("reports kinds and UTF-8 byte ranges, never the secret", () => {
    const text = `héllo ${GH} end`;
    const report = explainText(text);
    expect(report.hits).toEqual([{ kind: "github_token", offset: 7, length: GH.length }]);
    expect(JSON.stringify(report)).not.toContain(GH.slice(4, 12));
    expect(
      Buffer.from(text)
        .subarray(7, 7 + GH.length)
        .toString(),
    ).toBe(GH);
  });

  it("reports a whole-text omission", () => {
    const env = ["PATH=/usr/bin", "HOME=/home/u", "SHELL=/bin/bash", "USER=u", "LANG=C", "TERM=xterm"].join(
      "\n",
    );
    expect(explainText(env).omitted).toBe("environment");
  });
});
