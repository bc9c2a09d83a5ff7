// The export state `tapedeck status` and `doctor` show: the configured endpoint (origin and path only, never
// a header), how many sessions have events past their watermark, and the latest error. Reads manifests and
// watermarks only; no OTLP code is loaded.

import { readConfig } from "../core/archive/config.ts";
import { printable } from "../core/base/printable.ts";
import { listSessions } from "../core/read/session-list.ts";
import { describeEndpoint, resolveEndpoint } from "./endpoint.ts";
import { isTrusted } from "./trust.ts";
import { type Backlog, backlog } from "./watermark.ts";

export interface OtelStatus extends Backlog {
  endpoint: string | null;
  /** why the configured endpoint cannot be used */
  problem: string | null;
  auto: boolean;
  /** this user exported this project to the endpoint by hand: the automatic export may send there */
  trusted: boolean;
  content: boolean;
}

/** null when nothing (config or OTEL_EXPORTER_OTLP_* variables) names an endpoint. */
export function otelStatus(
  project: string,
  env: Record<string, string | undefined> = process.env,
): OtelStatus | null {
  const config = readConfig(project)?.otel;
  let endpoint: ReturnType<typeof resolveEndpoint>;
  try {
    endpoint = resolveEndpoint({}, config, env);
  } catch (e) {
    return {
      endpoint: null,
      problem: (e as Error).message,
      auto: false,
      trusted: false,
      content: false,
      sessions: 0,
      pending_sessions: 0,
      exported_spans: 0,
      last_export_at: null,
      last_error: null,
      last_error_at: null,
    };
  }
  if (!endpoint) return null;
  const b = backlog(project, endpoint, listSessions(project));
  return {
    endpoint: describeEndpoint(endpoint),
    problem: null,
    auto: typeof config?.endpoint === "string" && config.auto !== false,
    trusted: isTrusted(project, endpoint),
    content: config?.content === true,
    ...b,
  };
}

export function renderOtelStatus(s: OtelStatus): string {
  // The problem, the error and the times are the project's state file's: each line stays one line.
  if (s.problem) return `OTel export   unusable: ${printable(s.problem)}`;
  const lines = [
    `OTel export   ${s.endpoint}${s.auto ? (s.trusted ? ", automatic" : ", automatic once exported there by hand (tapedeck otel export --pending)") : ", on demand (tapedeck otel export)"}${s.content ? ", with content" : ""}`,
    `OTel backlog  ${s.pending_sessions} of ${s.sessions} session(s) with events not yet exported; ${s.exported_spans} span(s) sent${s.last_export_at ? `, last at ${s.last_export_at}` : ""}`,
  ];
  if (s.last_error) lines.push(`OTel error    ${s.last_error} at ${s.last_error_at}`);
  return lines.map(printable).join("\n");
}
