// The scenario file and the scenario result: the review contract a recorded session is held to, and what a
// run of it found (seed "Load a recorded session into a scenario"). The result borrows Inspect's sample
// vocabulary (scores, model_usage, total_time, working_time, limit, error) so it reads familiar there.
import { z } from "zod";

export const SCENARIO_SCHEMA_VERSION = 1 as const;

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, "letters, digits and . _ : - (at most 128), no spaces");
const text = (max: number) => z.string().min(1).max(max);
const positive = z.number().positive().nullable().optional();
const count = z.number().int().nonnegative();

const TextFact = z
  .object({
    id,
    text: text(4096).describe("a literal the final answer must (or must not) contain"),
    case_sensitive: z.boolean().optional().describe("default false: matched case-insensitively"),
  })
  .strict();

const PatternFact = z
  .object({
    id,
    pattern: text(4096).describe("a JavaScript regular expression"),
    flags: z
      .string()
      .regex(/^[imsu]*$/, "flags among i, m, s, u")
      .optional(),
    case_sensitive: z.boolean().optional().describe("default false: the i flag is added"),
  })
  .strict();

export const Fact = z.union([TextFact, PatternFact]);
export type Fact = z.infer<typeof Fact>;

export const Validator = z
  .object({
    name: id,
    command: text(8192).describe("run by /bin/sh -c in the arm's work tree"),
    timeout_s: z.number().positive().max(3600).default(60),
    expect_exit: z.number().int().min(0).max(255).default(0),
  })
  .strict();
export type Validator = z.infer<typeof Validator>;

export const Limits = z
  .object({
    max_duration_seconds: positive,
    max_output_tokens: positive,
    max_input_tokens: positive,
    max_turns: positive,
    max_injected_bytes: positive,
    max_cost_usd: positive,
  })
  .strict();
export type Limits = z.infer<typeof Limits>;
export const LIMIT_NAMES = [
  "max_duration_seconds",
  "max_output_tokens",
  "max_input_tokens",
  "max_turns",
  "max_injected_bytes",
  "max_cost_usd",
] as const satisfies ReadonlyArray<keyof Limits>;

export const Scenario = z
  .object({
    $schema: z.string().optional(),
    schema_version: z.literal(SCENARIO_SCHEMA_VERSION),
    id,
    category: z.string().max(128).default("session-review"),
    description: z.string().max(4096).optional(),
    source_session: z
      .object({
        provider: text(64),
        session_id: text(512),
        archive: z.string().max(4096).nullable().describe("the archive directory, relative to the project"),
        repository_revision: z.string().max(128).nullable(),
        events: z
          .object({ from: count, to: count })
          .strict()
          .nullable()
          .optional()
          .describe("the sequence range the prompts came from"),
        events_sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .nullable()
          .optional()
          .describe("sha256 of events.jsonl up to the range's last line, when derived"),
        events_bytes: count.nullable().optional().describe("the length that hash covers"),
      })
      .strict(),
    workspace: z
      .object({
        revision: z.string().max(128).nullable(),
        files: z
          .array(
            z
              .string()
              .min(1)
              .max(4096)
              .refine(
                (f) => !f.startsWith("/") && !f.split("/").includes(".."),
                "a path inside the project, relative, without ..",
              ),
          )
          .max(1000)
          .default([])
          .describe(
            "files the validators need, copied from the project into a replay's work tree when missing there",
          ),
      })
      .strict()
      .optional(),
    setup_messages: z
      .array(
        z
          .object({ prompt: text(1024 * 1024), establishes_fact_ids: z.array(id).max(1000).default([]) })
          .strict(),
      )
      .max(1000),
    continuation_prompt: text(1024 * 1024),
    expected_facts: z.array(Fact).max(1000).default([]),
    forbidden_facts: z.array(Fact).max(1000).default([]),
    validators: z.array(Validator).max(100).default([]),
    limits: Limits.default({}),
  })
  .strict();
export type Scenario = z.infer<typeof Scenario>;

// --- the result ----------------------------------------------------------

export const CHECK_KINDS = ["expected_fact", "forbidden_fact", "validator", "limit"] as const;
export const OUTCOMES = ["pass", "fail", "not_measured"] as const;

export const Check = z.object({
  kind: z.enum(CHECK_KINDS),
  id: z.string(),
  outcome: z.enum(OUTCOMES),
  evidence: z
    .string()
    .nullable()
    .describe("the matching excerpt, the command's bounded redacted output, or the measured figure"),
  measured: z.number().nullable().optional(),
  limit: z.number().nullable().optional(),
  exit_code: z.number().int().nullable().optional(),
  timed_out: z.boolean().optional(),
  output_bytes: count.optional(),
});
export type Check = z.infer<typeof Check>;

const Score = z.object({ value: z.number().min(0).max(1), passed: count, total: count });

export const Sample = z.object({
  against: z.enum(["recorded", "replay"]),
  arm: z.string(),
  repetition: count,
  labels: z.record(z.string(), z.string()),
  run_session_id: z.string().nullable(),
  archive: z.string().nullable(),
  passed: z.boolean(),
  scores: z.object({
    expected_facts: Score,
    forbidden_facts: Score,
    validators: Score,
    limits: Score,
  }),
  checks: z.array(Check),
  final_answer_excerpt: z.string().nullable(),
  model_usage: z.object({
    input_tokens: count.nullable(),
    output_tokens: count.nullable(),
    cache_read_input_tokens: count.nullable(),
    cache_creation_input_tokens: count.nullable(),
    cost_usd: z.number().nonnegative().nullable(),
  }),
  turn_count: count.nullable(),
  injected_bytes: count.nullable(),
  total_time: z.number().nonnegative().nullable().describe("seconds, wall clock"),
  working_time: z.number().nonnegative().nullable().describe("seconds the agent itself ran"),
  limit: z
    .object({ type: z.string(), limit: z.number(), measured: z.number() })
    .nullable()
    .describe("the first limit exceeded; a run stopped by it says so in error"),
  error: z.string().nullable(),
  notes: z.array(z.string()),
});
export type Sample = z.infer<typeof Sample>;

export const ScenarioResult = z.object({
  schema_version: z.literal(SCENARIO_SCHEMA_VERSION),
  scenario: z.object({ id: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), path: z.string() }),
  source_session_id: z.string(),
  against: z.enum(["recorded", "replay", "both"]),
  created_at: z.iso.datetime({ precision: 3 }),
  experiment_root: z.string().nullable(),
  passed: z.boolean(),
  samples: z.array(Sample),
});
export type ScenarioResult = z.infer<typeof ScenarioResult>;

export const SCENARIO_JSON_SCHEMAS = {
  "scenario.v1.schema.json": Scenario,
  "scenario-result.v1.schema.json": ScenarioResult,
} as const;

/** The committed files, rendered the way the core's are (io "input": a hand-written file may omit defaults). */
export function renderScenarioSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(SCENARIO_JSON_SCHEMAS)) {
    const io = name === "scenario.v1.schema.json" ? "input" : "output";
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io }) as Record<string, unknown>;
    out[name] = `${JSON.stringify({ $id: `https://tapedeck.dev/schemas/${name}`, ...json }, null, 2)}\n`;
  }
  return out;
}
