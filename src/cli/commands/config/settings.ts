// The settings `tapedeck config` reads and writes: each with its schema (zod, here on the CLI side only: the
// hook path never loads it), the range it allows (said when a value is refused), its default, and where else
// it may come from. Project settings live in .tapedeck/config.json; a provider's under providers.<name>;
// the proxy mirror's in the user's proxy config (~/.config/tapedeck/proxy.json or $TAPEDECK_PROXY_CONFIG) and
// TAPEDECK_MIRROR_* variables, which `config` shows but does not write (they belong to the user, not the
// project). The redaction rules file has a fixed place, shown for reference.
import { z } from "zod";
import { DEFAULT_LIMITS } from "../../../core/archive/bound.ts";
import { DEFAULT_WARN_BYTES } from "../../../core/read/disk-usage.ts";
import { DEFAULT_THRESHOLD } from "../../../memory/store/inject.ts";

export type Source = "default" | "project" | "user" | "environment" | "fixed";

export interface Setting {
  key: string;
  /** project: a top-level path; provider: under providers.<name>; user: the proxy mirror (read only). */
  scope: "project" | "provider" | "user" | "fixed";
  schema: z.ZodType;
  /** The allowed values, in words, for a refusal. */
  allowed: string;
  default?: unknown;
  /** Environment variables that give the value when the project does not (first set wins). */
  env?: readonly string[];
  /** The environment wins over the file (the mirror's rule); otherwise the file wins. */
  envFirst?: boolean;
  /** For user settings: the key in the proxy config's "mirror" object. */
  userKey?: string;
  help: string;
}

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const MiB = 1024 * 1024;

function limit(name: keyof typeof DEFAULT_LIMITS, min: number, max: number, help: string): Setting {
  return {
    key: `limits.${name}`,
    scope: "project",
    schema: int(min, max),
    allowed: `a whole number from ${min} to ${max}`,
    default: DEFAULT_LIMITS[name],
    help,
  };
}

const AGE = /^[0-9]{1,6}(m|h|d|w)$/;

function mirror(
  key: string,
  userKey: string,
  env: string,
  schema: z.ZodType,
  allowed: string,
  help: string,
): Setting {
  return { key: `mirror.${key}`, scope: "user", schema, allowed, env: [env], envFirst: true, userKey, help };
}

export const SETTINGS: readonly Setting[] = [
  limit("max_string_bytes", 1024, 64 * MiB, "longest string kept whole in an event (bytes)"),
  limit("max_array_items", 1, 100_000, "array items kept per array"),
  limit("max_object_keys", 1, 100_000, "keys kept per object"),
  limit("max_depth", 1, 256, "nesting kept before a value is cut"),
  limit("max_event_bytes", 1024, 256 * MiB, "largest event recorded whole (bytes)"),
  limit("max_session_bytes", MiB, 1024 * 1024 * MiB, "a session stops growing past this (bytes)"),
  {
    key: "lock_timeout_ms",
    scope: "project",
    schema: int(0, 60_000),
    allowed: "a whole number of milliseconds from 0 to 60000",
    default: 500,
    help: "how long a hook waits for a busy session before spooling its event",
  },
  {
    key: "retention.older_than",
    scope: "project",
    schema: z.string().regex(AGE),
    allowed: "an age: a number and m, h, d or w (30d)",
    help: "the hook server prunes sessions older than this, daily",
  },
  {
    key: "retention.keep_last",
    scope: "project",
    schema: int(0, 1_000_000),
    allowed: "a whole number from 0 to 1000000",
    help: "the newest N sessions always stay",
  },
  {
    key: "retention.status",
    scope: "project",
    schema: z.enum(["incomplete", "complete"]),
    allowed: "incomplete or complete",
    help: "prune only sessions of this status",
  },
  {
    key: "retention.warn_bytes",
    scope: "project",
    schema: int(MiB, Number.MAX_SAFE_INTEGER),
    allowed: `a whole number of bytes, at least ${MiB}`,
    default: DEFAULT_WARN_BYTES,
    help: "tapedeck doctor warns when the project's data passes this",
  },
  {
    key: "otel.endpoint",
    scope: "project",
    schema: z
      .url({ protocol: /^https?$/ })
      .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), "no credentials in the URL"),
    allowed: "an http:// or https:// URL without credentials",
    env: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"],
    help: "the OTLP/HTTP traces URL of tapedeck otel export",
  },
  {
    key: "otel.protocol",
    scope: "project",
    schema: z.enum(["http/protobuf", "http/json"]),
    allowed: "http/protobuf or http/json",
    default: "http/protobuf",
    help: "the OTLP body encoding",
  },
  {
    key: "otel.compression",
    scope: "project",
    schema: z.enum(["gzip", "none"]),
    allowed: "gzip or none",
    help: "the OTLP body compression",
  },
  {
    key: "otel.content",
    scope: "project",
    schema: z.boolean(),
    allowed: "true or false",
    default: false,
    help: "export prompts, answers and tool input/output (from the redacted archive)",
  },
  {
    key: "otel.auto",
    scope: "project",
    schema: z.boolean(),
    allowed: "true or false",
    help: "export after a session ends or goes idle, from the hook server",
  },
  {
    key: "otel.idle_minutes",
    scope: "project",
    schema: int(1, 24 * 60),
    allowed: "a whole number of minutes from 1 to 1440",
    default: 30,
    help: "an active session with no event for this long counts as over",
  },
  {
    key: "transport",
    scope: "provider",
    schema: z.enum(["command", "http"]),
    allowed: "command or http",
    help: "how the provider's hooks reach tapedeck (tapedeck install --transport re-installs the hooks)",
  },
  {
    key: "retrieval.budget_bytes",
    scope: "provider",
    schema: int(512, 8192),
    allowed: "a whole number of bytes from 512 to 8192 (Claude Code cuts added context past about 10 KB)",
    default: 4096,
    help: "memory handed to the agent per prompt when retrieval is on",
  },
  {
    key: "retrieval.threshold",
    scope: "provider",
    schema: z.number().min(0).max(1),
    allowed: "a number from 0 to 1 (the share of a prompt's term weight an item must hold)",
    default: DEFAULT_THRESHOLD,
    help: "how relevant a memory item must be to a prompt to be handed to the agent",
  },
  {
    key: "redaction.rules_file",
    scope: "fixed",
    schema: z.never(),
    allowed: "nothing: the file's place is fixed",
    default: ".tapedeck/redaction.json",
    help: "the project's own redaction rules, on top of the built-in ones",
  },
  mirror(
    "enabled",
    "enabled",
    "TAPEDECK_MIRROR",
    z.boolean(),
    "true or false",
    "the proxy keeps a transcript mirror",
  ),
  mirror("dir", "dir", "TAPEDECK_MIRROR_DIR", z.string(), "a directory", "where the mirror is kept"),
  mirror(
    "max_bytes",
    "maxBytes",
    "TAPEDECK_MIRROR_MAX_BYTES",
    z.number(),
    "bytes",
    "a mirror file's size before the next",
  ),
  mirror(
    "retention_days",
    "retentionDays",
    "TAPEDECK_MIRROR_RETENTION_DAYS",
    z.number(),
    "days",
    "mirror files older go",
  ),
];

export function settingFor(key: string): Setting | undefined {
  return SETTINGS.find((s) => s.key === key);
}

/** A value as typed on the command line: JSON where it parses (numbers, true/false), else the text itself. */
export function parseValue(text: string): unknown {
  if (!/^(true|false|-?[0-9][0-9.eE+-]*)$/.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    // "030", "1e", "1.2.3": not a JSON number; the schema refuses the text with the allowed range
    return text;
  }
}
