// list, inspect, last, export, delete, repair: thin wrappers over the archive.
import { relative } from "node:path";
import type { Command } from "commander";
import {
  deleteSession,
  findSession,
  inspectSession,
  listSessions,
  readEvents,
  SessionNotFound,
  type SessionRef,
} from "../core/archive.ts";
import { toJsonl, toMarkdown } from "../core/export.ts";
import { printable } from "../core/printable.ts";
import { recoverSession, sessionLiveness } from "../core/recovery.ts";
import { forgetSession } from "../core/registry.ts";
import { summarizeSpool } from "../core/spool.ts";
import {
  CliError,
  checkProvider,
  confirm,
  EXIT,
  formatBytes,
  formatDuration,
  note,
  printJson,
  projectFromOption,
  say,
} from "./common.ts";
import { writeExportFile } from "./export-file.ts";
import { providerName, renderSummary, usageUnknowns } from "./summary.ts";
import { inspectTranscript } from "./transcript-check.ts";

interface CommonOpts {
  project?: string;
  provider?: string;
  json?: boolean;
}

/** A SESSION argument (id, archive id, unique prefix or `last`) of this project; exit 3 when none matches. */
export function resolveRef(project: string, query: string, provider?: string): SessionRef {
  try {
    return findSession(project, query, checkProvider(provider));
  } catch (error) {
    if (error instanceof SessionNotFound) throw new CliError(error.message, EXIT.notFound);
    throw error;
  }
}

/**
 * A SESSION argument for commands that need the provider's own id (mirror restore): a prefix or `last` resolves
 * through the archive; an id the archive does not hold passes unchanged (a mirror can outlive its session).
 */
export function providerSessionIdArg(project: string, query: string, provider: string): string {
  try {
    return findSession(project, query, provider).manifest.provider_session_id ?? query;
  } catch (error) {
    if (error instanceof SessionNotFound && query !== "last" && query !== "latest") return query;
    if (error instanceof SessionNotFound) throw new CliError(error.message, EXIT.notFound);
    throw error;
  }
}

function listCommand(opts: CommonOpts): void {
  const project = projectFromOption(opts.project);
  const sessions = listSessions(project, checkProvider(opts.provider));
  if (opts.json) {
    printJson(sessions.map((s) => ({ ...s.manifest, path: s.dir })));
    return;
  }
  if (sessions.length === 0) {
    say(`No recorded sessions in ${project}.\n`);
    return;
  }
  const rows = sessions.map((s) => {
    const m = s.manifest;
    const end = Date.parse(m.ended_at ?? m.last_event_at ?? m.started_at);
    // Every cell comes from a manifest on disk: one line each, no control characters.
    return [
      m.provider_session_id ?? m.session_id,
      providerName(m.provider),
      String(m.started_at).replace("T", " ").slice(0, 19),
      formatDuration(end - Date.parse(m.started_at)),
      s.spooled_events > 0 ? `${m.event_count} +${s.spooled_events} spooled` : String(m.event_count),
      formatBytes(m.byte_count),
      String(m.status),
    ].map(printable);
  });
  const header = ["SESSION", "PROVIDER", "STARTED (UTC)", "DURATION", "EVENTS", "SIZE", "STATUS"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  say(`${[fmt(header), ...rows.map(fmt)].join("\n")}\n`);
}

function inspectCommand(query: string | undefined, opts: CommonOpts): void {
  const project = projectFromOption(opts.project);
  const ref = resolveRef(project, query ?? "last", opts.provider);
  const summary = inspectSession(ref);
  const transcript = inspectTranscript(ref, project);
  if (opts.json) {
    printJson({
      ...summary,
      usage: { ...summary.usage, unknown: usageUnknowns(summary.usage) },
      ...transcript?.json,
    });
    return;
  }
  say(`${renderSummary(summary, project)}${transcript ? `\n${transcript.line}` : ""}\n`);
}

interface ExportOpts extends CommonOpts {
  format: string;
  out?: string;
  force?: boolean;
}

function exportCommand(query: string, opts: ExportOpts): void {
  if (opts.format !== "jsonl" && opts.format !== "md") {
    throw new CliError(`unknown format "${opts.format}" (use jsonl or md)`, EXIT.usage);
  }
  const project = projectFromOption(opts.project);
  const ref = resolveRef(project, query, opts.provider);
  const summary = inspectSession(ref);
  const { events, skipped } = readEvents(ref.dir);
  const text = opts.format === "jsonl" ? toJsonl(summary.manifest, events) : toMarkdown(summary, events);
  if (!opts.out || opts.out === "-") {
    process.stdout.write(text);
  } else {
    writeExportFile(opts.out, text, opts.force === true);
    note(`Exported ${events.length} events to ${opts.out}\n`);
  }
  if (skipped > 0) note(`Skipped ${skipped} malformed line(s); see tapedeck inspect\n`);
  if (summary.spool.events > 0)
    note(
      `${summary.spool.events} event(s) wait in the spool and are not in this export yet; see tapedeck inspect\n`,
    );
}

interface DeleteOpts extends CommonOpts {
  yes?: boolean;
  force?: boolean;
}

async function deleteCommand(query: string, opts: DeleteOpts): Promise<void> {
  const project = projectFromOption(opts.project);
  const ref = resolveRef(project, query, opts.provider);
  if (sessionLiveness(ref.manifest).live && !opts.force) {
    throw new CliError("session is still being recorded; stop the agent first or pass --force");
  }
  const where = relative(project, ref.dir);
  const id = printable(ref.manifest.session_id);
  if (!opts.yes) {
    const ok = await confirm(`Delete ${id} (${ref.manifest.event_count} events, ${printable(where)})?`);
    if (!ok) {
      throw new CliError(
        process.stdin.isTTY ? "not deleted" : "not deleted: pass --yes to delete without a terminal",
        EXIT.usage,
      );
    }
  }
  deleteSession(ref);
  // The registry would otherwise keep pointing the API proxy at a session that is gone.
  const { provider, provider_session_id } = ref.manifest;
  if (provider_session_id) {
    try {
      forgetSession(provider, provider_session_id, project);
    } catch (error) {
      note(`tapedeck: the session is deleted, but its registry entry stays (${errorCode(error)})\n`);
    }
  }
  if (opts.json) printJson({ deleted: ref.manifest.session_id, path: ref.dir });
  else say(`Deleted ${id} (${printable(where)})\n`);
}

function repairCommand(query: string, opts: CommonOpts): void {
  const project = projectFromOption(opts.project);
  const ref = resolveRef(project, query, opts.provider);
  const result = recoverSession(ref.dir, { write: true });
  const r = result.report;
  // Events still in the spool (lock held, unsafe spool) mean the repair is not done: never a quiet success.
  const left = summarizeSpool(ref.dir);
  if (left.events > 0 || left.unsafe || result.readOnlyReason) process.exitCode = EXIT.failed;
  if (opts.json) {
    printJson({
      session_id: ref.manifest.session_id,
      read_only_reason: result.readOnlyReason,
      report: r,
      spool_left: left,
    });
    return;
  }
  const lines = [
    `Repaired ${printable(ref.manifest.session_id)}${result.readOnlyReason ? ` (read only: ${result.readOnlyReason})` : ""}`,
    `  valid events: ${r.valid_events}`,
    `  torn final line: ${r.torn_tail ? `${r.torn_tail.bytes} bytes, ${r.torn_tail.reason}` : "none"}`,
    `  malformed lines kept and reported: ${r.malformed_lines.length}`,
    `  duplicate sequences: ${r.duplicate_sequences.length}, out of order: ${r.non_monotonic_sequences.length}`,
    `  status: ${result.manifest?.status ?? "no manifest"}${r.marked_incomplete ? ` (${r.marked_incomplete})` : ""}`,
    ...(r.spool_drained ? [`  appended from the spool: ${r.spool_drained}`] : []),
    ...(left.events > 0 ? [`  still waiting in the spool: ${left.events} event(s)`] : []),
    ...(left.unsafe ? [`  spool not used: ${left.unsafe}`] : []),
    ...(r.resealed
      ? [
          `  re-sealed: sha256 ${r.resealed.previous_sha256?.slice(0, 12) ?? "none"} -> ${r.resealed.sha256.slice(0, 12)} (both kept in recovery.json)`,
        ]
      : []),
  ];
  say(`${lines.join("\n")}\n`);
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? "error";
}

export function registerArchiveCommands(program: Command): void {
  const withProject = (c: Command) =>
    c
      .option(
        "--project <dir>",
        "project directory (default: the nearest one with .tapedeck above the current directory, else the git root)",
      )
      .option("--provider <name>", "only sessions of this provider (claude, codex, gemini, antigravity)");
  const withCommon = (c: Command) => withProject(c).option("--json", "machine-readable output");

  withCommon(program.command("list").description("list recorded sessions (reads manifests only)")).action(
    listCommand,
  );
  withCommon(
    program
      .command("inspect [session]")
      .description(
        "summarize a session: counts, duration, redactions, completion, health (default: the latest)",
      ),
  ).action(inspectCommand);
  withCommon(program.command("last").description("summarize the latest recorded session")).action(
    (opts: CommonOpts) => inspectCommand("last", opts),
  );
  // No --json: the formats are jsonl and md, and an option that is accepted and ignored misleads.
  withProject(
    program
      .command("export <session>")
      .description("export a session's redacted record as JSONL (manifest first) or Markdown")
      .requiredOption("--format <format>", "jsonl or md")
      .option("--out <file>", "destination file (default: stdout)")
      .option("--force", "replace an existing destination file"),
  ).action(exportCommand);
  withCommon(
    program
      .command("delete <session>")
      .description("delete a recorded session (asks first)")
      .option("-y, --yes", "do not ask for confirmation")
      .option("--force", "delete even if the session is still being recorded"),
  ).action(deleteCommand);
  withCommon(
    program
      .command("repair <session>")
      .description(
        "recover an interrupted session: drop a torn final line, report malformed lines, rebuild counters",
      ),
  ).action(repairCommand);
}
