// `tapedeck redact --explain` as a user runs it, in process (test/helpers/program.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function cli(args: string[], input = "") {
  return runProgram(args, { stdin: input });
}

const TOKEN = ["gh", "p_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"].join("");

describe("tapedeck redact --explain", () => {
  it("names the rule and the byte range, never the secret", async () => {
    const root = project();
    const file = join(root, "in.txt");
    writeFileSync(file, `export GITHUB_TOKEN=${TOKEN}\n`);
    const r = await cli(["redact", "--explain", file, "--project", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("github_token");
    expect(r.stdout).toContain("bytes 20..60 (40)");
    expect(r.stdout + r.stderr).not.toContain(TOKEN.slice(4, 12));
  });

  it("prints JSON with --json, from stdin", async () => {
    const root = project();
    const r = await cli(["redact", "--explain", "--json", "--project", root], `x ${TOKEN}`);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.hits).toEqual([{ kind: "github_token", offset: 2, length: 40 }]);
    expect(r.stdout).not.toContain(TOKEN.slice(4, 12));
  });

  it("fails with the file and the problem when the project's rule file is invalid", async () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"));
    writeFileSync(join(root, ".tapedeck", "redaction.json"), '{"patterns":[{"name":"x","regex":"(a+)+"}]}');
    const r = await cli(["redact", "--explain", "--project", root], "hello");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("redaction.json: patterns[0].regex");
  });

  it("applies the project's patterns, and --no-rules ignores them", async () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"));
    writeFileSync(
      join(root, ".tapedeck", "redaction.json"),
      JSON.stringify({ patterns: [{ name: "acme_token", regex: "acme_[a-z0-9]{12}" }] }),
    );
    expect((await cli(["redact", "--project", root], "k=acme_abcdef123456 ")).stdout).toBe(
      "k=[REDACTED:acme_token] ",
    );
    expect((await cli(["redact", "--no-rules", "--project", root], "k=acme_abcdef123456 ")).stdout).toBe(
      "k=acme_abcdef123456 ",
    );
  });

  it("exits 3 for a missing file and 2 for --json without --explain", async () => {
    expect((await cli(["redact", "--explain", join(project(), "nope.txt")])).code).toBe(3);
    expect((await cli(["redact", "--json"])).code).toBe(2);
  });
});
