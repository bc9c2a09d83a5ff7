// One planted secret of every kind the redactor knows, for tests that put them all through a path and then
// look for any trace of one: a text as an agent would see it, the secret values in it, and the kind it is
// redacted as. Drawn from the two redaction corpora (packages/redact/scripts/corpus*.ts: generated at run time from
// a seed, so no literal secret sits in the repository), one case a kind, the first that redaction clears of
// every secret in every letter case; the few kinds no corpus case gives alone are written here the same way
// (prefixes split, values generated). `redactorKinds()` reads the kinds from the redactor's own source, so a
// kind added there without a sample here fails the test that plants them.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { redactText } from "@tapedeck/redact";
import { buildRedactionCorpus } from "../../packages/redact/scripts/corpus.ts";
import { buildDocsCorpus } from "../../packages/redact/scripts/corpus-docs.ts";
import { randomString, seededRandom } from "../../packages/redact/test/random.ts";

export interface SecretSample {
  /**
   * The kind the sample stands for: what redaction reports (`[REDACTED:<kind>]`, `[OMITTED:<kind>]` for a
   * whole text left out), but for a written one whose bare form has no anchor (packages/redact/README.md says which):
   * it is planted under its usual name, which redaction reports instead.
   */
  kind: string;
  text: string;
  /** The secret values in `text`, none of which may survive anywhere, in any letter case. */
  secrets: string[];
}

const rnd = seededRandom(0x35);
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;
const gen = (alphabet: string, n: number) => randomString(rnd, alphabet, n);
/** Upper, lower and a digit up front, as generated keys have. */
const mixed = (n: number) => `Q7k${gen(ALNUM, n - 3)}`;
const P = (...parts: string[]) => parts.join("");

function sample(kind: string, before: string, secret: string, after = ""): SecretSample {
  return { kind, text: `${before}${secret}${after}`, secrets: [secret] };
}

/** The kinds the corpora give no case of on its own (or none that redaction clears whole). */
function written(): SecretSample[] {
  const sessionToken = `FwoGZXIvYXdzE${gen(B64, 180)}`;
  const tempId = P("AS", "IA") + gen(`${UPPER}234567`, 16);
  const tempSecret = `${gen(UPPER, 4)}${gen(LOWER, 4)}${gen(DIGITS, 4)}${gen(ALNUM, 28)}`;
  const keyId = P("AK", "IA") + gen(`${UPPER}234567`, 16);
  const awsSecret = `${gen(UPPER, 3)}${gen(LOWER, 3)}${gen(DIGITS, 3)}${gen(B64, 31)}`;
  const envSecret = mixed(32);
  const psSecret = mixed(32);
  return [
    // The issue's own shape: a key id and its secret, side by side.
    {
      kind: "aws_secret_access_key",
      text: `rotate these: ${keyId} ${awsSecret}`,
      secrets: [keyId, awsSecret],
    },
    sample("adafruit_key", "io.adafruit key: ", P("ai", "o_") + mixed(28)),
    sample(
      "aws_presigned_signature",
      "https://b.s3.amazonaws.com/k?X-Amz-Expires=300&X-Amz-Signature=",
      gen(HEX, 64),
    ),
    {
      kind: "aws_session_token",
      text: `aws sts output: ${tempId} ${tempSecret} ${sessionToken}`,
      secrets: [tempId, tempSecret, sessionToken],
    },
    // No anchor for a bare `cio…` (packages/redact/README.md, "three token formats"): under its usual name.
    sample("crates_io_token", "export CARGO_REGISTRY_TOKEN=", P("ci", "o") + mixed(32)),
    sample("credential", "credentials: ", mixed(30)),
    // Firefox's logins.json: ciphertext of a login's user name, opened by the key4.db beside it.
    sample(
      "encrypted_credential",
      '{"encryptedUsername": "',
      Buffer.from(mixed(45)).toString("base64"),
      '"}',
    ),
    sample(
      "dynatrace_token",
      "DT token ",
      `${P("dt0", "c01.")}${gen(UPPER + DIGITS, 24)}.${gen(UPPER + DIGITS, 64)}`,
    ),
    sample("flutterwave_key", "flutterwave ", `${P("FLW", "SECK-")}${gen(HEX, 32)}-X`),
    sample("jfrog_token", "jfrog ", P("AK", "Cp") + gen(ALNUM, 69)),
    sample("neon_key", "neon ", P("na", "pi_") + gen(LOWER + DIGITS, 64)),
    sample("readme_key", "readme ", P("rd", "me_") + gen(LOWER + DIGITS, 70)),
    {
      kind: "environment",
      text: [
        "SHELL=/bin/bash",
        "HOME=/home/dev",
        "PATH=/usr/local/bin:/usr/bin",
        "LANG=en_US.UTF-8",
        `SERVICE_ACCESS=${envSecret}`,
        "TERM=xterm",
      ].join("\n"),
      secrets: [envSecret],
    },
    {
      kind: "process-table",
      text: [
        "  PID TTY          TIME CMD",
        " 4242 pts/0    00:00:01 bash",
        ` 4343 pts/0    00:00:00 deploy --signing-secret ${psSecret}`,
        " 4444 pts/0    00:00:00 ps",
      ].join("\n"),
      secrets: [psSecret],
    },
  ];
}

/** Whether redaction takes every secret out of the text, in any letter case. */
export function clears(s: SecretSample, frame: (text: string) => string = (t) => t): boolean {
  const r = redactText(frame(s.text));
  const low = r.text.toLowerCase();
  return r.kinds.length > 0 && s.secrets.every((x) => !low.includes(x.toLowerCase()));
}

/**
 * One sample a kind: every kind `redactorKinds()` names. `frame` is the text a test plants a sample in (a
 * prompt around it): a case is taken only where redaction clears it so framed (a bare AWS secret, say, is
 * one only when it is the whole text).
 */
export function secretSamples(frame: (text: string) => string = (t) => t): SecretSample[] {
  const byKind = new Map<string, SecretSample>();
  for (const c of [...buildRedactionCorpus().positives, ...buildDocsCorpus().positives]) {
    const kinds = [...new Set(redactText(c.text).kinds)];
    if (kinds.length !== 1 || byKind.has(kinds[0]!)) continue;
    const s = { kind: kinds[0]!, text: c.text, secrets: c.secrets };
    if (clears(s, frame)) byKind.set(s.kind, s);
  }
  for (const s of written()) if (!byKind.has(s.kind) && clears(s, frame)) byKind.set(s.kind, s);
  return [...byKind.values()];
}

/**
 * The kinds the redactor's source names: its rules (`rule("kind", …)`), the spans it pushes (`kind: "…"`),
 * what a secret-ish key implies (keys.ts) and what a whole text is left out as (omission.ts).
 */
export function redactorKinds(): string[] {
  const dir = join(import.meta.dirname, "..", "..", "packages", "redact", "src");
  const kinds = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    const src = readFileSync(join(dir, file), "utf8").replace(/^\s*(?:\/\/|\*).*$/gm, "");
    const patterns = [/rule\(\s*"([a-z0-9_]+)"/g, /kind: "([a-z0-9_]+)"/g];
    if (file === "keys.ts") patterns.push(/return "([a-z0-9_]+)"/g, /: "([a-z0-9_]+)",?$/gm);
    if (file === "omission.ts") patterns.push(/return "([a-z0-9_-]+)"/g);
    for (const re of patterns) for (const m of src.matchAll(re)) kinds.add(m[1]!);
  }
  return [...kinds].sort();
}
