// Retrieval searches the prompt as it is stored: redacted with the project's rules before a term is taken
// from it. The query the injection records was once built from the prompt as typed and only redacted after
// being reshaped (each term lowercased and quoted), which broke the shapes the redactor looks for: an AWS key
// id and its secret, quoted apart, were each stored whole. Here a sample of every kind the redactor knows
// (test/helpers/secret-samples.ts) and a project's own pattern go through the prompt hook with retrieval on and
// memory to find, and then no file under the project's .tapedeck, read byte for byte, holds any of them in any
// letter case.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REDACTION_MARKER, type RedactionRules, redactText } from "@tapedeck/redact";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { randomString, seededRandom } from "../../../packages/redact/test/random.ts";
import { writeConfig } from "../../../src/core/archive/config.ts";
import { runHook } from "../../../src/core/hook/recorder.ts";
import { contextStep } from "../../../src/memory/store/inject.ts";
import { promptTerms } from "../../../src/memory/store/relevance.ts";
import * as retrieval from "../../../src/memory/store/retrieval.ts";
import { adapterFor, injectorFor } from "../../../src/providers/registry.ts";
import { ensureBuilt, runHook as runHookBundle } from "../../helpers/cli-run.ts";
import { itemMaker, storeMemory } from "../../helpers/memory-item.ts";
import { redactorKinds, type SecretSample, secretSamples } from "../../helpers/secret-samples.ts";
import { useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-retrieval-redacted-");
afterEach(() => retrieval.closeRetrievalStores());
beforeAll(() => ensureBuilt(), 120_000);

const FIXTURE = join(import.meta.dirname, "..", "..", "fixtures", "claude", "UserPromptSubmit.json");
const QUESTION = "When does the staging deploy key rotate, and who rotates it?";

/** The project's own token format (`.tapedeck/redaction.json`), which only its rules know. */
const rnd = seededRandom(0x3510);
const ACME = `acme_${randomString(rnd, "abcdefghijklmnopqrstuvwxyz0123456789", 32)}`;
const ACME_SAMPLE: SecretSample = { kind: "acme_token", text: `the acme key is ${ACME}`, secrets: [ACME] };

const ACME_RULES_FILE = { patterns: [{ name: "acme_token", regex: "acme_[a-z0-9]{32}" }] };
/** The same rules as the redactor holds them once loaded (rules-file.ts). */
const ACME_RULES: RedactionRules = {
  patterns: [{ name: "acme_token", re: /acme_[a-z0-9]{32}/dg }],
  allow: new Set(),
};

/** A project with retrieval on (an item is given whatever else the prompt says) and memory to give. */
function setUp(): string {
  const root = project();
  writeConfig(root, {
    schema_version: 1,
    providers: {
      claude: { recording: "on", mode: "capture-only", retrieval: { state: "on", threshold: 0.01 } },
    },
  });
  writeFileSync(join(root, ".tapedeck", "redaction.json"), JSON.stringify(ACME_RULES_FILE));
  const item = itemMaker();
  storeMemory(root, [
    item("When does the staging deploy key rotate?", "The staging deploy key rotates every Friday at 17:00."),
    item("Who rotates the deploy key?", "The on-call engineer rotates the staging deploy key."),
  ]);
  return root;
}

/** The prompt hook's payload with a sample planted. */
function promptPayload(root: string, n: number, s: SecretSample): Record<string, unknown> {
  const fixture = JSON.parse(readFileSync(FIXTURE, "utf8"));
  return {
    ...fixture,
    // One session a sample: each is given the items afresh.
    session_id: `aaaaaaaa-bbbb-4ccc-8ddd-${String(n).padStart(12, "0")}`,
    prompt_id: `prompt-${n}`,
    cwd: root,
    prompt: framed(s.text),
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return filesUnder(path);
    return e.isFile() ? [path] : [];
  });
}

/**
 * Every secret found anywhere under the project's .tapedeck: each file read as bytes (SQLite files and their
 * logs too), both sides lowercased, the secret as written and as JSON escapes it.
 */
function leaks(root: string, samples: readonly SecretSample[]): string[] {
  const files = filesUnder(join(root, ".tapedeck")).map((f) => ({
    f,
    bytes: readFileSync(f).toString("latin1").toLowerCase(),
  }));
  const found: string[] = [];
  for (const s of samples) {
    for (const secret of s.secrets) {
      const forms = [secret, JSON.stringify(secret).slice(1, -1)].map((x) => x.toLowerCase());
      for (const { f, bytes } of files) {
        if (forms.some((x) => bytes.includes(x)))
          found.push(`${s.kind} (${secret.slice(0, 6)}…) in ${f.slice(root.length + 1)}`);
      }
    }
  }
  return found;
}

function injections(root: string): Array<Record<string, unknown>> {
  const sessions = join(root, ".tapedeck", "claude-sessions");
  return readdirSync(sessions).flatMap((d) =>
    readFileSync(join(sessions, d, "events.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).payload as Record<string, unknown>)
      .filter((p) => p.type === "context_injection"),
  );
}

/** The prompt a sample is planted in: the question first, so that its words are among the terms searched. */
const framed = (text: string) => `${QUESTION}\n\n${text}`;
const SAMPLES = [...secretSamples(framed), ACME_SAMPLE];
/** Whole prompts left out (an environment dump, a process table): nothing of them is searched. */
const OMITTED = new Set(["environment", "process-table"]);

describe("a prompt holding every secret kind, retrieval on", () => {
  it("plants a sample of every kind the redactor's source names", () => {
    const planted = new Set(SAMPLES.map((s) => s.kind));
    expect(redactorKinds().filter((k) => !planted.has(k))).toEqual([]);
    expect(SAMPLES.length).toBeGreaterThan(100);
  });

  it("every mark redaction leaves is one the search leaves out", () => {
    for (const s of SAMPLES) {
      const stored = redactText(framed(s.text), ACME_RULES).text;
      expect(stored).toMatch(/\[(?:REDACTED|OMITTED):/);
      expect(stored.replace(REDACTION_MARKER, "")).not.toMatch(/\[(?:REDACTED|OMITTED):/);
      const terms = promptTerms(stored).map((t) => t.text);
      expect(terms.filter((t) => /redacted|omitted/i.test(t))).toEqual([]);
    }
  });

  it("the hook bundle (dist/hook.cjs): one prompt holds them all, and none of them is under .tapedeck", () => {
    const root = setUp();
    // A whole environment dump or process table is left out whole: each is a prompt of its own.
    const whole = SAMPLES.filter((s) => OMITTED.has(s.kind));
    const all = {
      kind: "all",
      text: SAMPLES.filter((s) => !OMITTED.has(s.kind))
        .map((s) => s.text)
        .join("\n\n"),
      secrets: [],
    };
    [all, ...whole].forEach((s, n) => {
      const r = runHookBundle(root, promptPayload(root, n, s));
      expect(r.status, r.stderr).toBe(0);
    });
    const found = injections(root);
    // Memory was found and given: the search ran, and its query was recorded.
    expect(found.map((p) => p.outcome)).toEqual(["injected", "nothing_relevant", "nothing_relevant"]);
    expect(String(found[0]!.query)).toContain('"staging"');
    expect(leaks(root, SAMPLES)).toEqual([]);
  });

  it("the in-process hook, a prompt a kind: none of them is under .tapedeck, no query searches a mark", () => {
    const root = setUp();
    const step = contextStep(injectorFor, () => retrieval);
    SAMPLES.forEach((s, n) => {
      const data = Buffer.from(JSON.stringify(promptPayload(root, n, s)));
      const env = { TAPEDECK_PROJECT_DIR: root, TAPEDECK_HOME: process.env.TAPEDECK_HOME };
      const result = runHook(adapterFor("claude")!, { data, overflow: false }, env, undefined, {
        addContext: step,
      });
      expect(result.status).toBe("recorded");
    });
    expect(leaks(root, SAMPLES)).toEqual([]);
    for (const p of injections(root)) {
      expect(String(p.query ?? "")).not.toMatch(/redacted|omitted/i);
    }
  });
});

describe("the injection's stored query", () => {
  it("holds the words of the prompt as stored, never a secret the prompt held", () => {
    const root = setUp();
    const keyId = `AK${"IA"}${randomString(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;
    const secret = `Qw7${randomString(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 37)}`;
    const token = `gh${"p_"}${randomString(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)}`;
    const payload = {
      ...promptPayload(root, 0, ACME_SAMPLE),
      prompt: `rotate these: ${keyId} ${secret} and ${token} for the staging deploy key`,
    };
    const env = { TAPEDECK_PROJECT_DIR: root, TAPEDECK_HOME: process.env.TAPEDECK_HOME };
    const step = contextStep(injectorFor, () => retrieval);
    const data = Buffer.from(JSON.stringify(payload));
    runHook(adapterFor("claude")!, { data, overflow: false }, env, undefined, { addContext: step });
    const [injection] = injections(root);
    expect(injection).toMatchObject({ outcome: "injected" });
    const query = String(injection!.query);
    expect(query).toBe('"rotate" OR "staging" OR "deploy" OR "key"');
    for (const x of [keyId, secret, token]) expect(query.toLowerCase()).not.toContain(x.toLowerCase());
  });
});
