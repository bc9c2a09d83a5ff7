// `.tapedeck/redaction.json`: a project's own patterns and allow-listed literals,
// validated by hand, loaded safely, and applied by the hook path and the mirror alike.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { explainText, redactText, redactValue } from "@tapedeck/redact";
import { loadRedactionRules, regexProblem } from "@tapedeck/redact/rules-file";
import { describe, expect, it } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { prepareUserContent } from "../../src/providers/claude/mirror/envelope.ts";
import { event, spec } from "../helpers/session.ts";
import { useTempProjects } from "../helpers/temp-project.ts";

const freshProject = useTempProjects();

function project(rules?: unknown): string {
  const root = freshProject();
  mkdirSync(join(root, ".tapedeck"), { recursive: true });
  if (rules !== undefined) {
    const text = typeof rules === "string" ? rules : JSON.stringify(rules);
    writeFileSync(join(root, ".tapedeck", "redaction.json"), text);
  }
  return root;
}

// An in-house token format no built-in rule knows.
const ACME = `acme_${"Zq8".repeat(10)}x7`;
const ACME_RULES = { patterns: [{ name: "acme_token", regex: "acme_[A-Za-z0-9]{32}" }] };

describe("loading the rule file", () => {
  it("is optional", () => {
    expect(loadRedactionRules(project())).toEqual({});
  });

  it("compiles patterns and allow-listed literals", () => {
    const { rules, error } = loadRedactionRules(project({ ...ACME_RULES, allow: ["not-a-secret"] }));
    expect(error).toBeUndefined();
    expect(rules?.patterns.map((p) => p.name)).toEqual(["acme_token"]);
    expect([...(rules?.allow ?? [])]).toEqual(["not-a-secret"]);
  });

  it.each([
    ["{", "not valid JSON"],
    [[], 'expected an object with "patterns"'],
    [{ pattern: [] }, 'unknown field "pattern"'],
    [{ patterns: {} }, "patterns: expected an array"],
    [{ patterns: [{ name: "Bad Name", regex: "x+" }] }, "patterns[0].name"],
    [{ patterns: [{ name: "a", regex: "(" }] }, "patterns[0].regex: invalid regular expression"],
    [{ patterns: [{ name: "a", regex: "(a+)+$" }] }, "backtrack catastrophically"],
    [{ patterns: [{ name: "a", regex: "(x)\\1" }] }, "backreferences"],
    [{ patterns: [{ name: "a", regex: "x*" }] }, "matches the empty string"],
    [{ allow: [1] }, "allow[0]: expected a non-empty string"],
  ])("refuses %j with a message naming the file and the problem", (content, message) => {
    const root = project(content);
    const { rules, error } = loadRedactionRules(root);
    expect(rules).toBeUndefined();
    expect(error).toContain(join(root, ".tapedeck", "redaction.json"));
    expect(error).toContain(message);
  });

  it("refuses a symlink, even to a valid file", () => {
    const root = project();
    const target = join(root, "elsewhere.json");
    writeFileSync(target, JSON.stringify(ACME_RULES));
    symlinkSync(target, join(root, ".tapedeck", "redaction.json"));
    expect(loadRedactionRules(root).error).toContain("is a symlink");
  });

  it("refuses a FIFO without blocking on it", () => {
    const root = project();
    execFileSync("mkfifo", [join(root, ".tapedeck", "redaction.json")]);
    expect(loadRedactionRules(root).error).toContain("not a regular file");
  });

  it("refuses a file larger than 64 KiB", () => {
    const root = project(JSON.stringify({ allow: ["x".repeat(70_000)] }));
    expect(loadRedactionRules(root).error).toContain("larger than");
  });

  it("guards against patterns that only show their backtracking on longer input", () => {
    expect(regexProblem("(?:a|a)*$")).not.toBeNull();
    expect(regexProblem("acme_[A-Za-z0-9]{32}")).toBeNull();
  });
});

describe("applying project rules", () => {
  const rules = loadRedactionRules(project({ ...ACME_RULES, allow: ["hunter2-fixture"] })).rules;

  it("redacts a user pattern in text and in values, with its name as the kind", () => {
    // "token is X" would be caught by the prose rule without the pattern; a bare mention is not.
    expect(redactText(`sent ${ACME} ok`, rules).text).toBe("sent [REDACTED:acme_token] ok");
    expect(redactText(`sent ${ACME} ok`).text).toContain(ACME);
    expect(redactText(`token is ${ACME} ok`, rules).text).toBe("token is [REDACTED:acme_token] ok");
    expect(redactValue({ note: `use ${ACME}` }, "payload", rules).value).toEqual({
      note: "use [REDACTED:acme_token]",
    });
  });

  it("leaves an allow-listed literal alone, also under a secret-ish key", () => {
    expect(redactText("PASSWORD=hunter2-fixture", rules).text).toBe("PASSWORD=hunter2-fixture");
    expect(redactValue({ password: "hunter2-fixture" }, "payload", rules).value).toEqual({
      password: "hunter2-fixture",
    });
    expect(redactText("PASSWORD=hunter3-real", rules).text).toBe("PASSWORD=[REDACTED:password]");
  });

  it("is applied on the hook path: recorded events hold no user-pattern match", () => {
    const root = project(ACME_RULES);
    const out = recordEvents(spec(root), [event("user_prompt", "e1", { prompt: `deploy with ${ACME}` })]);
    const written = readFileSync(join(out.sessionDir, "events.jsonl"), "utf8");
    expect(written).not.toContain(ACME);
    expect(written).toContain("[REDACTED:acme_token]");
  });

  it("is applied by the proxy mirror's content preparation", () => {
    const content = [{ type: "text", text: `key ${ACME}` }];
    const out = JSON.stringify(prepareUserContent(content, { redact: true, includeThinking: true, rules }));
    expect(out).not.toContain(ACME);
    expect(out).toContain("[REDACTED:acme_token]");
  });

  it("shows in --explain as its own kind", () => {
    const report = explainText(`x ${ACME}`, rules);
    expect(report.hits).toEqual([{ kind: "acme_token", offset: 2, length: ACME.length }]);
  });
});
