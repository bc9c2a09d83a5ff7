// `tapedeck export <session> --format jsonl|md|html`: a session's redacted record, to stdout or a new file;
// `export --all --out DIR`: every session in scope, a file each (./all.ts), a browsable site for html.
import type { Command } from "commander";
import { toJsonl } from "../../../core/read/export.ts";
import { inspectSession, readEvents } from "../../../core/read/sessions.ts";
import { renderHtmlExport } from "../../../viewer/html-export.ts";
import { writeMarkdown } from "../../../viewer/markdown.ts";
import { CliError, EXIT, note, printJson } from "../../common.ts";
import { readableOrExplain } from "../../events-file.ts";
import { io } from "../../io.ts";
import { withSessionScope } from "../../options.ts";
import { projectPrices } from "../../project-prices.ts";
import { resolveSessionArg, type SessionOpts, withAllProjects } from "../../session-arg.ts";
import { type ExportAllSummary, type ExportFormat, exportAll } from "./all.ts";
import { writeExportFile } from "./export-file.ts";

interface ExportOpts extends SessionOpts {
  format: string;
  out?: string;
  force?: boolean;
  all?: boolean;
}

function exportCommand(query: string | undefined, opts: ExportOpts): void {
  if (opts.format !== "jsonl" && opts.format !== "md" && opts.format !== "html") {
    throw new CliError(`unknown format "${opts.format}" (use jsonl, md or html)`, EXIT.usage);
  }
  if (opts.all) {
    exportAllCommand(query, opts, opts.format);
    return;
  }
  if (query === undefined)
    throw new CliError("name a SESSION to export, or pass --all --out DIR", EXIT.usage);
  if (opts.json)
    throw new CliError(
      "--json summarizes an export of --all; one session's export is its own output",
      EXIT.usage,
    );
  const ref = resolveSessionArg(query, opts);
  const project = ref.project;
  readableOrExplain(ref.dir);
  const summary = inspectSession(ref);
  const toStdout = !opts.out || opts.out === "-";
  let exported: { events: number; skipped: number };
  let text = "";
  if (opts.format === "jsonl") {
    const { events, skipped } = readEvents(ref.dir);
    text = toJsonl(summary.manifest, events);
    exported = { events: events.length, skipped };
  } else if (opts.format === "html") {
    // One self-contained page (src/viewer/html-export.ts) from the archive as stored.
    const html = renderHtmlExport(ref, { prices: projectPrices(project) });
    text = html.html;
    exported = { events: html.events, skipped: html.bad_lines };
  } else {
    // Markdown is rendered turn by turn as the archive is read: to stdout as it comes, else gathered for the file.
    const parts: string[] = [];
    const prices = projectPrices(project);
    const md = writeMarkdown(summary, (t) => (toStdout ? io().stdout.write(t) : parts.push(t)), {
      prices,
    });
    text = parts.join("");
    exported = { events: md.events, skipped: md.bad_lines };
  }
  if (toStdout) {
    if (text) io().stdout.write(text);
  } else {
    writeExportFile(opts.out!, text, opts.force === true);
    note(`Exported ${exported.events} events to ${opts.out}\n`);
  }
  if (exported.skipped > 0) note(`Skipped ${exported.skipped} malformed line(s); see tapedeck inspect\n`);
  if (summary.spool.events > 0)
    note(
      `${summary.spool.events} event(s) wait in the spool and are not in this export yet; see tapedeck inspect\n`,
    );
}

function exportAllCommand(query: string | undefined, opts: ExportOpts, format: ExportFormat): void {
  if (query !== undefined)
    throw new CliError("--all exports every session: give no SESSION with it", EXIT.usage);
  if (!opts.out || opts.out === "-")
    throw new CliError("--all writes a file per session: give --out DIR", EXIT.usage);
  const summary = exportAll({ ...opts, out: opts.out, force: opts.force === true, format });
  if (opts.json) printJson(summary);
  else note(doneLine(summary));
  if (summary.skipped_lines > 0)
    note(`Skipped ${summary.skipped_lines} malformed line(s); see tapedeck inspect\n`);
  if (summary.spooled_events > 0)
    note(
      `${summary.spooled_events} event(s) wait in a spool and are not in this export yet; see tapedeck inspect\n`,
    );
}

function doneLine(s: ExportAllSummary): string {
  if (s.sessions === 0)
    return `No sessions to export; ${s.out} holds ${s.indexes.length ? "an empty index" : "nothing"}\n`;
  const where = s.indexes.length ? `; open ${s.out}/index.html` : "";
  return `Exported ${s.sessions} session${s.sessions === 1 ? "" : "s"} (${s.events} events) of ${s.projects} project${s.projects === 1 ? "" : "s"} to ${s.out}${where}\n`;
}

export function register(program: Command): void {
  withAllProjects(
    withSessionScope(
      program
        .command("export [session]")
        .description(
          "export a session's redacted record as JSONL (manifest first), Markdown or HTML; --all: every session into a directory",
        )
        .requiredOption("--format <jsonl|md|html>", "jsonl, md or html (one self-contained page)")
        .option("--out <path>", "destination file (default: stdout); with --all, a directory")
        .option(
          "--all",
          "every session in scope, a file each in --out DIR; for html a browsable site with an index per project, searchable offline (--all-projects: a folder per project and an index over all)",
        )
        .option("--json", "with --all, print a summary of what was written as JSON")
        .option(
          "--force",
          "replace an existing destination file; with --all, write into a non-empty directory no tapedeck export made",
        ),
    ),
  ).action(exportCommand);
}
