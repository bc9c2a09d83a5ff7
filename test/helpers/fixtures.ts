// The agents' captured (or hand-written) payloads and files, one folder a provider under test/fixtures/.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type Json = Record<string, unknown>;

export const FIXTURES = join(import.meta.dirname, "..", "fixtures");

export interface ProviderFixtures {
  dir: string;
  path(name: string): string;
  /** Parsed afresh on every call: tests change their copy. */
  json(name: string): Json;
}

export function providerFixtures(provider: string): ProviderFixtures {
  const dir = join(FIXTURES, provider);
  const path = (name: string) => join(dir, name);
  return { dir, path, json: (name) => JSON.parse(readFileSync(path(name), "utf8")) as Json };
}
