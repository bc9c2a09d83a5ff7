// The on-disk contracts. Hot-path modules import only the *types* from here
// (`import type`), so zod is never loaded by a hook process.
import { z } from "zod";
import { EVENT_KINDS } from "./kinds.ts";

export const SCHEMA_VERSION = 1 as const;

export { EVENT_KINDS };
export const EventKind = z.enum(EVENT_KINDS);
export type EventKind = z.infer<typeof EventKind>;

/** The usage sources tapedeck itself writes, whatever the provider, with what each is. */
export const CORE_USAGE_SOURCES: Readonly<Record<string, string>> = {
  "hook-payload": "the usage a hook's own payload carries",
  proxy: "the API's own count of each response, through tapedeck's proxy",
  unavailable: "no count could be had",
};

/**
 * A usage record's source: tapedeck's own (above) or one a provider names in its usage facts
 * (claude-transcript, gemini-chat), which the core cannot list. So the archive takes any name of this shape,
 * the provider's name first: an archive whose source this version does not know (a provider added since)
 * still validates. The known ones are published apart, from the catalog: schemas/usage-source.v1.schema.json.
 */
export const USAGE_SOURCE_SHAPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
export const USAGE_SOURCE_MAX = 64;
export const UsageSource = z
  .string()
  .max(USAGE_SOURCE_MAX)
  .regex(USAGE_SOURCE_SHAPE)
  .describe(
    "hook-payload, proxy or a provider's own source (usage-source.v1.schema.json lists the known ones)",
  );
export type UsageSource = z.infer<typeof UsageSource>;

const count = z.number().int().nonnegative();

export const Usage = z
  .object({
    source: UsageSource,
    model: z.string().optional(),
    message_id: z.string().optional(),
    input_tokens: count.optional(),
    output_tokens: count.optional(),
    cache_creation_input_tokens: count.optional(),
    cache_read_input_tokens: count.optional(),
    reasoning_output_tokens: count.optional(),
    total_tokens: count.optional(),
    agent_version: z
      .string()
      .max(64)
      .optional()
      .describe(
        "the agent CLI's version that made the response, where its records name it (Claude Code's transcript)",
      ),
  })
  .loose();
export type Usage = z.infer<typeof Usage>;

export const Truncation = z.object({
  path: z.string(),
  reason: z.enum(["string", "array", "depth", "keys"]),
  original: count.describe("original length: bytes for strings, items for arrays and objects"),
});
export type Truncation = z.infer<typeof Truncation>;

export const Envelope = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  sequence: z.number().int().positive(),
  event_id: z.string().min(1).max(256),
  timestamp: z.iso.datetime({ precision: 3 }),
  kind: EventKind,
  provider: z.string().min(1),
  session_id: z.string().min(1),
  turn_id: z.string().optional(),
  agent_id: z.string().optional(),
  payload: z.record(z.string(), z.unknown()),
  redactions: z.array(z.string()),
  truncations: z.array(Truncation),
  omitted: z.array(z.string()),
  usage: Usage.optional(),
});
export type Envelope = z.infer<typeof Envelope>;

export const SESSION_STATUSES = ["active", "complete", "incomplete"] as const;
export const SessionStatus = z.enum(SESSION_STATUSES);
export type SessionStatus = z.infer<typeof SessionStatus>;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** One of the agent's files an imported session was read from, as far as it was read. */
export const ImportedFile = z.object({
  path: z.string().describe("where the agent keeps it (redacted like any recorded text)"),
  bytes: count.describe("bytes read: up to the end of its last complete line"),
  sha256: sha256Hex.describe("of those bytes"),
});
export type ImportedFile = z.infer<typeof ImportedFile>;

export const ImportRecord = z.object({
  source: ImportedFile.describe(
    "the session's main file (Claude's transcript, Codex's rollout, Gemini's chat)",
  ),
  files: z
    .array(ImportedFile)
    .describe("every file read, the main one first (Claude and Codex subagents have their own)"),
  imported_at: z.iso.datetime({ precision: 3 }).describe("the last import that read something new"),
  not_captured: z
    .array(z.string())
    .describe("what only the hooks see, which the agent's files do not keep: an import cannot have it"),
});
export type ImportRecord = z.infer<typeof ImportRecord>;

export const Manifest = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  session_id: z.string().min(1),
  provider: z.string().min(1),
  provider_session_id: z.string().nullable(),
  identity_source: z
    .enum(["provider", "local", "import"])
    .describe("import: read from the agent's own files by `tapedeck import`, not recorded by hooks"),
  project_root: z.string(),
  session_dir: z.string().describe("directory name of this session under the session root"),
  started_at: z.iso.datetime({ precision: 3 }),
  ended_at: z.iso.datetime({ precision: 3 }).nullable(),
  status: SessionStatus,
  incomplete_reason: z.string().nullable().optional(),
  recording_mode: z.enum(["capture-only", "ab"]),
  repository_revision: z.string().nullable(),
  repository_branch: z.string().nullable(),
  event_count: count,
  byte_count: count,
  redaction_count: count,
  truncation_count: count,
  dropped_count: count.default(0),
  duplicate_count: count.default(0),
  redaction_policy: z.string(),
  capabilities: z.array(z.string()),
  run_type: z.enum(["recorded", "replay", "experiment"]),
  replay_of_session_id: z.string().nullable(),
  arm: z.string().nullable(),
  // A replay's arm (docs/experiments.md); absent on recorded sessions.
  experiment_id: z.string().nullable().optional(),
  native_memory: z.enum(["on", "off"]).nullable().optional(),
  retrieval: z.enum(["on", "off"]).nullable().optional(),
  recording_enabled: z.boolean().optional(),
  arm_labels: z.record(z.string(), z.string()).nullable().optional(),
  agent_pid: z.number().int().nullable(),
  last_event_at: z.iso.datetime({ precision: 3 }).nullable().optional(),
  // What `tapedeck list` shows without reading events (src/core/archive/manifest-counters.ts).
  title: z
    .string()
    .nullable()
    .optional()
    .describe("the first prompt as recorded (redacted, bounded), one line"),
  counts_by_kind: z.record(z.string(), count).optional(),
  tokens: z
    .object({
      input_tokens: count,
      output_tokens: count,
      cache_read_input_tokens: count,
      cache_creation_input_tokens: count,
      reasoning_output_tokens: count
        .optional()
        .describe("reasoning tokens a provider counts apart from its output (Gemini's thoughts)"),
    })
    .optional()
    .describe("sums over the session's turn_usage events, as recorded"),
  failure: z
    .string()
    .nullable()
    .optional()
    .describe("the error of the first failed turn (Claude's StopFailure)"),
  subagent_prompt_count: count
    .optional()
    .describe("user_prompt events of subagents, not turns of the session"),
  import: ImportRecord.optional().describe("set on sessions `tapedeck import` wrote (docs/import.md)"),
  hooks_since_import: z.iso
    .datetime({ precision: 3 })
    .optional()
    .describe(
      "when a recorder other than the import (the hooks, the proxy) first appended to this imported session: the import leaves it to them from then on",
    ),
  limits: z
    .object({
      max_string_bytes: count,
      max_array_items: count,
      max_depth: count,
      max_event_bytes: count,
      max_session_bytes: count,
    })
    .optional(),
});
export type Manifest = z.infer<typeof Manifest>;

export const Checksums = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  algorithm: z.literal("sha256"),
  events_sha256: sha256Hex,
  event_count: count,
  byte_count: count,
  finalized_at: z.iso.datetime({ precision: 3 }),
});
export type Checksums = z.infer<typeof Checksums>;

export const RecoveryReport = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  scanned_at: z.iso.datetime({ precision: 3 }),
  valid_events: count,
  bytes_scanned: count,
  torn_tail: z
    .object({ offset: count, bytes: count, reason: z.string() })
    .nullable()
    .describe("an incomplete final line that recovery removed"),
  malformed_lines: z.array(z.object({ line: count, offset: count, bytes: count, reason: z.string() })),
  duplicate_sequences: z.array(z.object({ line: count, sequence: count })),
  non_monotonic_sequences: z.array(z.object({ line: count, sequence: count, previous: count })),
  duplicate_event_ids: z.array(z.object({ line: count, event_id_sha256: z.string() })),
  marked_incomplete: z.string().nullable(),
  spool_drained: count.optional().describe("events repair appended from the spool (pending/)"),
  resealed: z
    .object({
      previous_sha256: z.string().nullable(),
      previous_byte_count: count.nullable(),
      sha256: z.string(),
      byte_count: count,
    })
    .optional()
    .describe("repair changed a sealed file (or sealed a finished one): the checksums before and after"),
});
export type RecoveryReport = z.infer<typeof RecoveryReport>;

export const JSON_SCHEMAS = {
  "envelope.v1.schema.json": Envelope,
  "manifest.v1.schema.json": Manifest,
  "checksums.v1.schema.json": Checksums,
  "recovery.v1.schema.json": RecoveryReport,
} as const;
