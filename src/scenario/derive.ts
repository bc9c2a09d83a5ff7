// `scenario from-session`: a scenario whose prompts are the session's recorded user prompts (as recorded, so
// redacted: a credential the user typed is never written into a scenario), the last one the continuation,
// the rest setup messages; facts, validators and limits are left for the user to write, with defaults.
import { relative } from "node:path";
import type { SessionRef } from "../core/read/sessions.ts";
import { SCENARIO_SCHEMA_VERSION, type Scenario } from "./schema.ts";
import { readSource, type SeqRange } from "./source.ts";

export class DeriveError extends Error {
  override name = "DeriveError";
}

/** `A..B`, `A..` or `..B` of event sequences (inclusive). */
export function parseRange(text: string): SeqRange {
  const m = /^(\d*)\.\.(\d*)$/.exec(text.trim());
  if (!m || (m[1] === "" && m[2] === ""))
    throw new DeriveError(
      `--events takes A..B (sequence numbers, either side may be left out), not "${text}"`,
    );
  const from = m[1] === "" ? 1 : Number(m[1]);
  const to = m[2] === "" ? Number.MAX_SAFE_INTEGER : Number(m[2]);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from > to)
    throw new DeriveError(`--events ${text}: the first sequence must not be after the last`);
  return { from, to };
}

/** A file-name-safe id from the session's (ids may hold anything a provider chose). */
export function defaultId(sessionId: string): string {
  const tail = sessionId
    .replace(/^[a-z]+:/, "")
    .replace(/[^A-Za-z0-9_.-]+/g, "-")
    .slice(0, 48);
  return `review-${tail || "session"}`.replace(/-+$/, "");
}

export const DEFAULT_LIMITS = { max_duration_seconds: 600, max_output_tokens: 4000 } as const;

export function deriveScenario(
  project: string,
  ref: SessionRef,
  opts: { range?: SeqRange; id?: string },
): Scenario {
  const reading = readSource(ref.dir, opts.range);
  if (reading.prompts.length === 0) {
    throw new DeriveError(
      `${ref.manifest.session_id} has no recorded user prompt${opts.range ? " in that range" : ""}: nothing to derive`,
    );
  }
  const m = ref.manifest;
  const prompts = reading.prompts.map((p) => p.prompt);
  const revision = m.repository_revision ?? null;
  return {
    $schema: "https://tapedeck.dev/schemas/scenario.v1.schema.json",
    schema_version: SCENARIO_SCHEMA_VERSION,
    id: opts.id ?? defaultId(m.session_id),
    category: "session-review",
    source_session: {
      provider: m.provider,
      session_id: m.session_id,
      archive: relative(project, ref.dir) || ".",
      repository_revision: revision,
      events: { from: reading.firstSequence ?? 0, to: reading.lastSequence ?? 0 },
      events_sha256: reading.prefixSha256,
      events_bytes: reading.prefixBytes,
    },
    workspace: { revision, files: [] },
    setup_messages: prompts.slice(0, -1).map((prompt) => ({ prompt, establishes_fact_ids: [] })),
    continuation_prompt: prompts.at(-1)!,
    expected_facts: [],
    forbidden_facts: [],
    validators: [],
    limits: { ...DEFAULT_LIMITS },
  };
}
