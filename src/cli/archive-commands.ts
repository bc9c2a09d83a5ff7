// list, inspect, last, export, delete, repair: thin wrappers over the archive.
import { closeSync, constants, openSync } from "node:fs";
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
import { FILE_MODE, writeAll } from "../core/fsutil.ts";
import { recoverSession, sessionLiveness } from "../core/recovery.ts";
import {
  CliError,
  confirm,
  EXIT,
  formatBytes,
  formatDuration,
  printJson,
  projectFromOption,
} from "./common.ts";
import { providerName, renderSummary } from "./summary.ts";

interface CommonOpts {
  project?: string;
  provider?: string;
  json?: boolean;
}

function resolveRef(project: string, query: string, provider?: string): SessionRef {
  try {
    return findSession(project, query, provider);
  } catch (error) {
    if (error instanceof SessionNotFound) throw new CliError(error.message, EXIT.notFound);
    throw error;
  }
}

function listCommand(opts: CommonOpts): void {
  const project = projectFromOption(opts.project);
  const sessions = listSessions(project, opts.provider);
  if (opts.json) {
    printJson(sessions.map((s) => ({ ...s.manifest, path: s.dir })));
    return;
  }
  if (sessions.length === 0) {
    process.stdout.write(`No recorded sessions in ${project}.\n`);
    return;
  }
  const rows = sessions.map((s) => {
    const m = s.manifest;
    const end = Date.parse(m.ended_at ?? m.last_event_at ?? m.started_at);
    return [
      m.provider_session_id ?? m.session_id,
      providerName(m.provider),
      m.started_at.replace("T", " ").slice(0, 19),
      formatDuration(end - Date.parse(m.started_at)),
      String(m.event_count),
      formatBytes(m.byte_count),
      m.status,
    ];
  });
  const header = ["SESSION", "PROVIDER", "STARTED (UTC)", "DURATION", "EVENTS", "SIZE", "STATUS"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${[fmt(header), ...rows.map(fmt)].join("\n")}\n`);
}

function inspectCommand(query: string | undefined, opts: CommonOpts): void {
  const project = projectFromOption(opts.project);
  const summary = inspectSession(resolveRef(project, query ?? "last", opts.provider));
  if (opts.json) {
    printJson({ ...summary, path: summary.path });
    return;
  }
  process.stdout.write(`${renderSummary(summary, project)}\n`);
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
    let fd: number;
    try {
      // The destination is explicit and never silently replaced.
      const flags =
        constants.O_WRONLY | constants.O_CREAT | (opts.force ? constants.O_TRUNC : constants.O_EXCL);
      fd = openSync(opts.out, flags, FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") {
        throw new CliError(`${opts.out} exists; pass --force to replace it`, EXIT.failed);
      }
      throw new CliError(`cannot write ${opts.out}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
    }
    try {
      writeAll(fd, Buffer.from(text));
    } finally {
      closeSync(fd);
    }
    process.stderr.write(`Exported ${events.length} events to ${opts.out}\n`);
  }
  if (skipped > 0) process.stderr.write(`Skipped ${skipped} malformed line(s); see tapedeck inspect\n`);
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
  if (!opts.yes) {
    const ok = await confirm(
      `Delete ${ref.manifest.session_id} (${ref.manifest.event_count} events, ${where})?`,
    );
    if (!ok) {
      throw new CliError(
        process.stdin.isTTY ? "not deleted" : "not deleted: pass --yes to delete without a terminal",
        EXIT.usage,
      );
    }
  }
  deleteSession(ref);
  if (opts.json) printJson({ deleted: ref.manifest.session_id, path: ref.dir });
  else process.stdout.write(`Deleted ${ref.manifest.session_id} (${where})\n`);
}

function repairCommand(query: string, opts: CommonOpts): void {
  const project = projectFromOption(opts.project);
  const ref = resolveRef(project, query, opts.provider);
  const result = recoverSession(ref.dir, { write: true });
  const r = result.report;
  if (opts.json) {
    printJson({ session_id: ref.manifest.session_id, read_only_reason: result.readOnlyReason, report: r });
    return;
  }
  const lines = [
    `Repaired ${ref.manifest.session_id}${result.readOnlyReason ? ` (read only: ${result.readOnlyReason})` : ""}`,
    `  valid events: ${r.valid_events}`,
    `  torn final line: ${r.torn_tail ? `${r.torn_tail.bytes} bytes, ${r.torn_tail.reason}` : "none"}`,
    `  malformed lines kept and reported: ${r.malformed_lines.length}`,
    `  duplicate sequences: ${r.duplicate_sequences.length}, out of order: ${r.non_monotonic_sequences.length}`,
    `  status: ${result.manifest?.status ?? "no manifest"}${r.marked_incomplete ? ` (${r.marked_incomplete})` : ""}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

export function registerArchiveCommands(program: Command): void {
  const withCommon = (c: Command) =>
    c
      .option(
        "--project <dir>",
        "project directory (default: the enabled project above the current directory)",
      )
      .option("--provider <name>", "only sessions of this provider (claude, codex, gemini, antigravity)")
      .option("--json", "machine-readable output");

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
  withCommon(
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
