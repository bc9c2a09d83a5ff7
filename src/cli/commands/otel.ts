// `tapedeck otel export SESSION|--all|--pending`: recorded sessions as OpenTelemetry traces with the GenAI
// conventions, over OTLP/HTTP to a collector or a trace store (docs/team.md). --dry-run prints the request
// as OTLP JSON and sends nothing. Headers (credentials) are never printed.
import { type Command, Option } from "commander";
import type { Manifest } from "../../core/archive/schemas.ts";
import { readRegularFileSync } from "../../core/base/fsutil.ts";
import { fields, printable } from "../../core/base/printable.ts";
import { resolveSession } from "../../core/read/session-resolve.ts";
import { listSessions, type SessionRef } from "../../core/read/sessions.ts";
import { describeEndpoint, EndpointError } from "../../otel/endpoint.ts";
import { evaluationSpans } from "../../otel/evaluation.ts";
import { tryExportLock } from "../../otel/lock.ts";
import { mapSession, sessionResource } from "../../otel/map.ts";
import type { Span } from "../../otel/model.ts";
import { encodeSpans } from "../../otel/otlp.ts";
import { exportRefs, type ResolvedRun, resolveRun } from "../../otel/run.ts";
import { STABILITY_OPT_IN, stabilityMode } from "../../otel/semconv.ts";
import { sendWithRetry } from "../../otel/send.ts";
import type { SessionExport } from "../../otel/spool.ts";
import { isTrusted, trust } from "../../otel/trust.ts";
import { ScenarioResult } from "../../scenario/schema.ts";
import {
  CliError,
  checkProvider,
  confirm,
  EXIT,
  note,
  printJson,
  projectFromOption,
  say,
} from "../common.ts";
import { setExitCode } from "../io.ts";
import { withSessionScope } from "../options.ts";
import { resolveRef } from "../session-arg.ts";
import { parseSince } from "../since.ts";
import { VERSION } from "../version.ts";

/** A scenario result is a few hundred KB at most; the bound keeps a planted huge file from being read. */
const MAX_RESULT_BYTES = 16 * 1024 * 1024;

interface ExportOpts {
  project?: string;
  provider?: string;
  all?: boolean;
  pending?: boolean;
  since?: string;
  endpoint?: string;
  header?: string[];
  protocol?: string;
  content?: boolean;
  contentAs?: string;
  metrics?: boolean;
  dryRun?: boolean;
  results?: string;
  force?: boolean;
  resend?: boolean;
  quiet?: boolean;
  background?: boolean;
  json?: boolean;
  yes?: boolean;
}

/** The run's endpoint; undefined only for --pending with nothing configured (the background run then has nothing to do). */
function resolveOrThrow(project: string, opts: ExportOpts): ResolvedRun | undefined {
  let run: ResolvedRun | undefined;
  try {
    run = resolveRun(project, VERSION, {
      ...(opts.endpoint !== undefined ? { endpoint: opts.endpoint } : {}),
      ...(opts.protocol !== undefined ? { protocol: opts.protocol } : {}),
      headers: opts.header ?? [],
      ...(opts.content !== undefined ? { content: opts.content } : {}),
      ...(opts.contentAs !== undefined ? { contentAs: opts.contentAs } : {}),
      ...(opts.metrics !== undefined ? { metrics: opts.metrics } : {}),
    });
  } catch (e) {
    if (e instanceof EndpointError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
  if (run) return run;
  if (opts.pending) return undefined;
  throw new CliError(
    "no endpoint: pass --endpoint URL, set OTEL_EXPORTER_OTLP_ENDPOINT, or add otel.endpoint to .tapedeck/config.json (or --dry-run)",
    EXIT.usage,
  );
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function sessions(project: string, session: string | undefined, opts: ExportOpts): SessionRef[] {
  const chosen = [session !== undefined, opts.all === true, opts.pending === true].filter(Boolean).length;
  if (chosen !== 1)
    throw new CliError("name a SESSION, or pass --all or --pending (one of them)", EXIT.usage);
  if (session !== undefined) return [resolveRef(project, session, opts.provider)];
  let refs = listSessions(project, checkProvider(opts.provider));
  if (opts.since !== undefined) {
    const since = parseSince(opts.since);
    refs = refs.filter((r) => Date.parse(r.manifest.started_at) >= since);
  }
  // Oldest first: a backend sees a team's sessions in the order they happened.
  return refs.reverse();
}

function dryRun(refs: SessionRef[], opts: ExportOpts): void {
  // Content as attributes (the default everywhere): a dry run shows the spans, not log records.
  const content = opts.content === true || opts.contentAs !== undefined;
  const spans = [];
  const requests = [];
  for (const ref of refs) {
    const mapped = mapSession(ref.dir, ref.manifest, { content });
    const s = mapped.turns.flatMap((t) => t.spans);
    spans.push(...s);
    const resource = sessionResource(ref.manifest, { serviceVersion: VERSION });
    const body = encodeSpans({ resource, scopeVersion: VERSION, spans: s }, "http/json");
    requests.push(JSON.parse(Buffer.from(body).toString("utf8")));
  }
  // One ExportTraceServiceRequest: each session's resourceSpans side by side.
  const merged = { resourceSpans: requests.flatMap((r) => r.resourceSpans ?? []) };
  printJson(merged);
  if (!opts.quiet) note(`dry run: ${spans.length} span(s) from ${refs.length} session(s), nothing sent\n`);
}

async function exportCommand(session: string | undefined, opts: ExportOpts): Promise<void> {
  const project = projectFromOption(opts.project);
  if (opts.results !== undefined) {
    if (session !== undefined || opts.all || opts.pending)
      throw new CliError(
        "--results takes no SESSION, --all or --pending: the result names its sessions",
        EXIT.usage,
      );
    if (opts.resend)
      throw new CliError("--resend is for sessions: --results sends every evaluation each time", EXIT.usage);
    return exportResults(project, opts.results, opts);
  }
  const refs = sessions(project, session, opts);
  const mode = stabilityMode();
  if (!opts.quiet && mode.requested.length > 0 && !mode.requested.includes("gen_ai_latest_experimental"))
    note(
      `${STABILITY_OPT_IN}: tapedeck emits the latest GenAI conventions only (no older form to switch to)\n`,
    );
  if (opts.dryRun) {
    dryRun(refs, opts);
    return;
  }
  const run = resolveOrThrow(project, opts);
  if (!run) return;
  if (opts.background) {
    // The hook server's run sends only where this user already sent this project by hand (src/otel/trust.ts).
    if (!isTrusted(project, run.endpoint)) return;
  } else {
    await confirmConfigEndpoint(project, run, opts);
    trust(project, run.endpoint);
  }
  const lock = tryExportLock(project);
  if ("heldBy" in lock) {
    // The background run finds a run already going: that one sends the backlog.
    if (opts.background) return;
    throw new CliError(
      `another export of this project is running (pid ${lock.heldBy}); try again when it ends`,
      EXIT.failed,
    );
  }
  try {
    await sendAll(run, refs, opts);
  } finally {
    lock.release();
  }
}

/**
 * An endpoint named only by the project's config.json may have come with a cloned repository: the first
 * export to it is the user's decision, asked on the terminal or given with --yes, never assumed.
 */
async function confirmConfigEndpoint(project: string, run: ResolvedRun, opts: ExportOpts): Promise<void> {
  if (run.endpoint.source !== "config" || opts.yes || isTrusted(project, run.endpoint)) return;
  const what = `${describeEndpoint(run.endpoint)}${run.context.content !== "off" ? ", with content (prompts, answers, tool input and output)" : ""}`;
  note(
    `.tapedeck/config.json names ${what} as this project's OTLP endpoint, and you have not exported this project there before.\n`,
  );
  if (await confirm("Send this project's sessions there, now and automatically from now on?")) return;
  throw new CliError(
    "not exported: confirm the endpoint on a terminal, or pass --yes (or --endpoint URL) if you trust it",
    EXIT.usage,
  );
}

async function sendAll(
  run: NonNullable<ReturnType<typeof resolveRun>>,
  refs: SessionRef[],
  opts: ExportOpts,
): Promise<void> {
  // A progress line names sessions and the endpoint's answer: one line each.
  const progress = opts.quiet || opts.json ? undefined : (line: string) => note(`${printable(line)}\n`);
  if (progress)
    progress(
      `exporting ${refs.length} session(s) to ${describeEndpoint(run.endpoint)}${run.context.content !== "off" ? `, with content (prompts, answers, tool input and output) as ${run.context.content === "logs" ? "log records" : "span attributes"}` : ""}${run.context.metrics ? ", and the usage counters" : ""}`,
    );
  const results = await exportRefs(run, refs, {
    ...(opts.force ? { force: true } : {}),
    ...(opts.resend ? { resend: true } : {}),
    ...(opts.content === true || opts.contentAs !== undefined ? { addContent: true } : {}),
    ...(progress ? { progress } : {}),
  });
  const failed = results.filter((r) => r.error !== null && !r.skipped);
  const totals = {
    endpoint: describeEndpoint(run.endpoint),
    sessions: results.length,
    turns: results.reduce((n, r) => n + r.turns, 0),
    spans: results.reduce((n, r) => n + r.spans, 0),
    resent_spans: results.reduce((n, r) => n + r.resent_spans, 0),
    requests: results.reduce((n, r) => n + r.requests, 0),
    bytes: results.reduce((n, r) => n + r.bytes, 0),
    log_records: results.reduce((n, r) => n + r.log_records, 0),
    metric_points: results.reduce((n, r) => n + r.metric_points, 0),
    failed: failed.length,
  };
  if (opts.json) printJson({ ...totals, results });
  else if (!opts.quiet) say(summary(totals, failed));
  if (failed.length > 0) setExitCode(EXIT.failed);
}

/** The run's last line; a failure comes first when nothing went out. */
function summary(
  t: { endpoint: string; sessions: number; turns: number; spans: number; resent_spans: number },
  failed: SessionExport[],
): string {
  const why = failed[0]?.error ? fields` (${failed[0].error})` : "";
  const waits = "they stay in the backlog, retried by the next run";
  if (failed.length > 0 && t.spans === 0)
    return `Not exported: ${failed.length} of ${t.sessions} session(s) failed before anything was sent to ${t.endpoint}${why}; ${waits}.\n`;
  const again = t.resent_spans > 0 ? ` (${t.resent_spans} of them sent again, same ids)` : "";
  const sent = `Exported ${t.spans} span(s)${again} of ${t.turns} turn(s) from ${t.sessions} session(s) to ${t.endpoint}`;
  return failed.length > 0 ? `${sent}; ${failed.length} session(s) failed${why}: ${waits}.\n` : `${sent}.\n`;
}

export function register(program: Command): void {
  const otel = program
    .command("otel")
    .description("export recorded sessions as OpenTelemetry traces (GenAI conventions) over OTLP/HTTP");
  withSessionScope(
    otel
      .command("export [session]")
      .description(
        "send a session's finished turns (or every session's) to an OTLP endpoint; each turn once, same ids every time",
      ),
  )
    .option("--all", "every session of the project")
    .option(
      "--pending",
      "every session with turns not yet exported (what the hook server runs after a session)",
    )
    .option(
      "--since <when>",
      "with --all: sessions started since a date (2026-11-30) or for a duration (7d, 12h)",
    )
    .option(
      "--endpoint <url>",
      "the OTLP/HTTP traces URL (default: otel.endpoint, then OTEL_EXPORTER_OTLP_* variables)",
    )
    .option(
      "--header <key=value>",
      "a request header, repeatable; never printed, but visible in the process list while the export runs: put credentials in OTEL_EXPORTER_OTLP_HEADERS (sent only to OTEL_EXPORTER_OTLP_ENDPOINT) or otel.headers",
      collect,
    )
    .option("--protocol <http/protobuf|http/json>", "http/protobuf (default) or http/json")
    .option(
      "--content",
      "include prompts, answers and tool input/output (the redacted archive's text); turns this endpoint got without content are sent again with it, same ids",
    )
    .option(
      "--content-as <attributes|logs>",
      "where content goes (implies --content): span attributes (default; Langfuse and Phoenix read only these) or OTLP log records to the endpoint's /v1/logs (a Collector feeding Loki or ClickHouse)",
    )
    .option(
      "--metrics",
      "also send the session's token usage as the GenAI usage counters to the endpoint's /v1/metrics (no content)",
    )
    .option(
      "--results <file>",
      "a scenario result (scenario run --out): its checks as gen_ai.evaluation.result events",
    )
    .option("--dry-run", "print the spans as OTLP JSON on stdout and send nothing")
    .option("--yes", "send to an endpoint named in .tapedeck/config.json without asking, the first time too")
    .option("--force", "retry now even when the last failure asked to wait")
    .option(
      "--resend",
      "send again the turns this endpoint already accepted, with the same trace and span ids (a backend keyed by them keeps one copy): to refill a wiped backend",
    )
    .option("--quiet", "no progress or summary")
    .addOption(
      new Option(
        "--background",
        "the hook server's run: only to endpoints this project was exported to by hand",
      ).hideHelp(),
    )
    .option("--json", "machine-readable output")
    .action((session: string | undefined, opts: ExportOpts) => exportCommand(session, opts));
}

function readResult(path: string): ScenarioResult {
  let text: string;
  try {
    text = readRegularFileSync(path, MAX_RESULT_BYTES, true).toString("utf8");
  } catch (e) {
    throw new CliError(
      `--results: cannot read ${printable(path)} (${(e as NodeJS.ErrnoException).code ?? "not a regular file"})`,
      EXIT.usage,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`--results: ${printable(path)} is not JSON`, EXIT.usage);
  }
  const parsed = ScenarioResult.safeParse(value);
  if (!parsed.success)
    throw new CliError(`--results: ${printable(path)} is not a scenario result`, EXIT.usage);
  return parsed.data;
}

/** A scenario result's samples as evaluation spans in the traces of the sessions they graded. */
async function exportResults(project: string, file: string, opts: ExportOpts): Promise<void> {
  const result = readResult(file);
  const find = (id: string) => {
    try {
      // A sample's run session is a replay's: the resolver finds those as well as recordings.
      const ref = resolveSession({ project }, id);
      return { dir: ref.dir, manifest: ref.manifest };
    } catch {
      return undefined;
    }
  };
  const { spans, missing } = evaluationSpans(result, find, opts.content === true);
  if (!opts.quiet)
    for (const m of missing) note(`${printable(m)}: not in this project's archive; its sample is left out\n`);
  const bySession = new Map<string, { manifest: Manifest; spans: Span[] }>();
  for (const { session, span } of spans) {
    const entry = bySession.get(session.manifest.session_id) ?? { manifest: session.manifest, spans: [] };
    entry.spans.push(span);
    bySession.set(session.manifest.session_id, entry);
  }
  const resourceOf = (m: Manifest) => sessionResource(m, { serviceVersion: VERSION });
  if (opts.dryRun) {
    const requests = [...bySession.values()].map((e) =>
      JSON.parse(
        Buffer.from(
          encodeSpans(
            { resource: resourceOf(e.manifest), scopeVersion: VERSION, spans: e.spans },
            "http/json",
          ),
        ).toString("utf8"),
      ),
    );
    printJson({ resourceSpans: requests.flatMap((r) => r.resourceSpans ?? []) });
    return;
  }
  const run = resolveOrThrow(project, opts);
  if (!run) return;
  await confirmConfigEndpoint(project, run, opts);
  let sent = 0;
  let failed = 0;
  for (const e of bySession.values()) {
    const body = encodeSpans(
      { resource: run.context.resource(e.manifest), scopeVersion: VERSION, spans: e.spans },
      run.endpoint.protocol,
    );
    const r = await sendWithRetry(run.endpoint, body);
    if (r.ok) sent += e.spans.length;
    else {
      failed += 1;
      if (!opts.quiet) note(fields`${e.manifest.session_id}: ${r.error}\n`);
    }
  }
  if (opts.json) printJson({ endpoint: describeEndpoint(run.endpoint), evaluations: sent, missing, failed });
  else if (!opts.quiet)
    say(
      `Exported ${sent} evaluation(s) of ${printable(result.scenario.id)} to ${describeEndpoint(run.endpoint)}.\n`,
    );
  if (failed > 0 || missing.length > 0) setExitCode(EXIT.failed);
}
