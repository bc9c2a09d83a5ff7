// The part of promptfoo's published config schema (site/static/config-schema.json: PromptfooConfigSchema)
// an export uses, with its closed objects closed: an unknown key there is a config promptfoo refuses.
import { z } from "zod";

const ASSERTION_TYPES = [
  "contains",
  "icontains",
  "regex",
  "javascript",
  "latency",
  "cost",
  "equals",
  "llm-rubric",
  "is-json",
  "python",
  "webhook",
] as const;

const AssertionType = z
  .string()
  .refine(
    (t) => (ASSERTION_TYPES as readonly string[]).includes(t.replace(/^not-/, "")),
    "unknown assertion type",
  );

const Assertion = z
  .object({
    type: AssertionType,
    value: z.unknown().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    threshold: z.number().optional(),
    weight: z.number().optional(),
    metric: z.string().optional(),
    transform: z.string().optional(),
  })
  .strict();

const Provider = z
  .object({
    id: z.string(),
    label: z.string().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    prompts: z.array(z.string()).optional(),
    transform: z.string().optional(),
    delay: z.number().optional(),
  })
  .strict();

const TestCase = z
  .object({
    description: z.string().optional(),
    vars: z.record(z.string(), z.unknown()).optional(),
    assert: z.array(Assertion).optional(),
    options: z.record(z.string(), z.unknown()).optional(),
    threshold: z.number().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const EvaluateOptions = z
  .object({
    cache: z.boolean().optional(),
    delay: z.number().optional(),
    maxConcurrency: z.number().optional(),
    repeat: z.number().optional(),
    timeoutMs: z.number().optional(),
    maxEvalTimeMs: z.number().optional(),
  })
  .strict();

const Prompt = z
  .object({
    id: z.string().optional(),
    raw: z.string().optional(),
    label: z.string().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const PromptfooConfig = z
  .object({
    description: z.string().optional(),
    prompts: z.union([z.string(), z.array(z.union([z.string(), Prompt]))]),
    providers: z.array(Provider),
    tests: z.array(TestCase),
    evaluateOptions: EvaluateOptions.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
