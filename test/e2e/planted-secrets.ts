// Planted secrets for the end-to-end tests: random on every run and assembled from pieces, so no literal
// secret sits in a test file. The recorder must never write one, whole or in part.
import { randomInt } from "node:crypto";

const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const ALNUM = `${UPPER_DIGITS}abcdefghijklmnopqrstuvwxyz`;
const randomChars = (n: number, alphabet: string) =>
  Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join("");

export const AWS_KEY_ID = "AK" + "IA" + randomChars(16, UPPER_DIGITS);
export const GITHUB_TOKEN = "gh" + "p_" + randomChars(36, ALNUM);
export const ANTHROPIC_KEY = "sk-" + "ant-api03-" + randomChars(80, ALNUM);
// Upper, lower and a digit up front: the redactor wants an OpenAI-style key to look like a key.
export const OPENAI_KEY = "sk-" + "proj-" + "Q7k" + randomChars(45, ALNUM);
export const GOOGLE_API_KEY = "AI" + "za" + randomChars(35, ALNUM);

/** A set of planted secrets, keyed by the redaction kind that should replace each. */
export function plantSecrets<K extends string>(secrets: Record<K, string>) {
  /** The secrets and a distinctive 12-character middle slice of each: a partial leak is a leak too. */
  const needles = Object.values<string>(secrets).flatMap((s) => {
    const mid = Math.floor(s.length / 2) - 6;
    return [s, s.slice(mid, mid + 12)];
  });
  const marker = (kind: K) => `[REDACTED:${kind}]`;
  /** What the recorder should have made of a text holding the planted secrets. */
  const redacted = (text: string): string => {
    let out = text;
    for (const [kind, secret] of Object.entries<string>(secrets))
      out = out.split(secret).join(marker(kind as K));
    return out;
  };
  return { secrets, needles, marker, redacted };
}

/**
 * What a record suite plants: an AWS key id, a GitHub token and the agent's own API key (by its kind); and its
 * first prompt, which holds them all and has a shell command echo the token.
 */
export function plantWithAgentKey<K extends string>(agentKey: Record<K, string>) {
  const [key] = Object.values<string>(agentKey);
  const prompt = `Remember these for later: ${AWS_KEY_ID} and ${key}\nSCENARIO_BASH echo hello token=${GITHUB_TOKEN}`;
  return {
    ...plantSecrets({ aws_access_key_id: AWS_KEY_ID, github_token: GITHUB_TOKEN, ...agentKey }),
    prompt,
  };
}
