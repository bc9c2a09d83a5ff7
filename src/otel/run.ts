// Export runs shared by `tapedeck otel export` and the background export the hook server starts: which
// sessions, with which endpoint and resource, one at a time, progress on stderr.
import { execFileSync } from "node:child_process";
import { type OtelConfig, readConfig } from "../core/archive/config.ts";
import type { Manifest } from "../core/archive/schemas.ts";
import type { SessionRef } from "../core/read/sessions.ts";
import { type Endpoint, EndpointError, type EndpointFlags, resolveEndpoint } from "./endpoint.ts";
import { DEFAULT_IDLE_MS, sessionResource, userResource } from "./map.ts";
import type { ContentMode } from "./model.ts";
import { stabilityMode } from "./semconv.ts";
import type { RetryPolicy } from "./send.ts";
import {
  type ExportContext,
  type ExportOptions,
  emptyExport,
  exportSession,
  type SessionExport,
} from "./spool.ts";

/** The origin's URL without userinfo or query (a token in a clone URL must not become an attribute). */
export function cleanRepositoryUrl(url: string): string | null {
  const trimmed = url.trim();
  if (trimmed === "") return null;
  try {
    const u = new URL(trimmed);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString();
  } catch {
    // scp-like `git@host:org/repo.git`: no password can be in it, but a `user:secret@` prefix can.
    const scp = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+):([^\s]+)$/.exec(trimmed);
    return scp ? `${scp[1]}:${scp[2]}` : null;
  }
}

function repositoryUrl(projectRoot: string): string | null {
  try {
    const out = execFileSync("git", ["-C", projectRoot, "config", "--get", "remote.origin.url"], {
      encoding: "utf8",
      timeout: 2000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    return cleanRepositoryUrl(out);
  } catch {
    return null;
  }
}

/** The `otel` block's settings beyond the core's: where content goes, the usage counters, resource attributes. */
export interface OtelSettings extends OtelConfig {
  content_as?: string;
  metrics?: boolean;
  resource_attributes?: Record<string, unknown>;
}

export const CONTENT_AS = ["attributes", "logs"] as const;

export interface RunOptions extends EndpointFlags {
  content?: boolean;
  /** where content goes: span attributes or log records (implies content) */
  contentAs?: string;
  /** the usage counters to /v1/metrics */
  metrics?: boolean;
  force?: boolean;
  retry?: RetryPolicy;
}

export interface ResolvedRun {
  endpoint: Endpoint;
  context: ExportContext;
}

export function resolveRun(
  projectRoot: string,
  serviceVersion: string,
  opts: RunOptions,
  env: Record<string, string | undefined> = process.env,
): ResolvedRun | undefined {
  const config = readConfig(projectRoot)?.otel as OtelSettings | undefined;
  const endpoint = resolveEndpoint(opts, config, env);
  if (!endpoint) return undefined;
  let repo: string | null | undefined;
  const idle = config?.idle_minutes;
  const metrics = opts.metrics ?? config?.metrics === true;
  if (metrics && endpoint.backend === "langfuse")
    throw new EndpointError(
      "Langfuse ingests traces only (it has no /v1/metrics): its dashboards sum the chat spans' usage; drop --metrics",
    );
  const extra = userResource(env.OTEL_RESOURCE_ATTRIBUTES, config?.resource_attributes);
  const context: ExportContext = {
    projectRoot,
    endpoint,
    scopeVersion: serviceVersion,
    content: contentModeFor(endpoint, opts, config),
    metrics,
    legacyNames: stabilityMode(env).genai === "dup",
    idleMs: typeof idle === "number" && idle > 0 ? idle * 60_000 : DEFAULT_IDLE_MS,
    resource: (m: Manifest) => {
      repo ??= repositoryUrl(m.project_root || projectRoot);
      return { ...extra, ...sessionResource(m, { serviceVersion, repositoryUrl: repo }) };
    },
    ...(opts.retry ? { retry: opts.retry } : {}),
  };
  return { endpoint, context };
}

/**
 * Where content goes, when it goes: `--content-as`, else the config's `content_as`, else the endpoint's
 * default: span attributes, which every trace store reads (Langfuse and Phoenix read nothing else); log
 * records only when asked, for a Collector that routes them to Loki or ClickHouse's otel_logs.
 */
export function contentModeFor(
  endpoint: Pick<Endpoint, "backend">,
  opts: Pick<RunOptions, "content" | "contentAs">,
  config: Pick<OtelSettings, "content" | "content_as"> | undefined,
): ContentMode {
  const wanted = opts.content ?? (opts.contentAs !== undefined || config?.content === true);
  if (!wanted) return "off";
  const as = opts.contentAs ?? config?.content_as ?? "attributes";
  if (!(CONTENT_AS as readonly string[]).includes(as))
    throw new EndpointError(`--content-as takes ${CONTENT_AS.join(" or ")} (got "${as.slice(0, 40)}")`);
  if (as === "logs" && endpoint.backend === "langfuse")
    throw new EndpointError(
      "Langfuse reads content from span attributes only (it has no /v1/logs): use --content-as attributes",
    );
  return as as ContentMode;
}

/** A session's progress line: a failure first, with what did go out before it and what waits. */
export function progressLine(r: SessionExport): string {
  const again = r.resent_spans > 0 ? ` (${r.resent_spans} sent again)` : "";
  const sent = `${r.turns} turn(s), ${r.spans} span(s)${again}`;
  if (r.skipped)
    return `${r.session_id}: not tried (${r.skipped}${r.error ? ` after: ${r.error}` : ""}); --force tries now`;
  if (r.error === null)
    return `${r.session_id}: ${sent}${r.open_turn ? "; the last turn is still open" : ""}`;
  const waiting = r.backlog_turns > 0 ? `; ${r.backlog_turns} turn(s) stay in the backlog` : "";
  return r.spans === 0
    ? `${r.session_id}: failed, nothing sent: ${r.error}${waiting}`
    : `${r.session_id}: failed after ${sent}: ${r.error}${waiting}`;
}

export async function exportRefs(
  run: ResolvedRun,
  refs: SessionRef[],
  opts: ExportOptions & { progress?: (line: string) => void } = {},
): Promise<SessionExport[]> {
  const { progress, ...options } = opts;
  const out: SessionExport[] = [];
  for (const ref of refs) {
    let r: SessionExport;
    try {
      r = await exportSession(run.context, ref.dir, ref.manifest, options);
    } catch (e) {
      // One unreadable session (removed meanwhile, a planted FIFO) must not stop the others.
      r = emptyExport(
        ref.manifest.session_id,
        `cannot export: ${(e as NodeJS.ErrnoException).code ?? (e as Error).name}`,
      );
    }
    out.push(r);
    progress?.(progressLine(r));
  }
  return out;
}
