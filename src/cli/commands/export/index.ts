// `tapedeck export <session> --format jsonl|md`: a session's redacted record, to stdout or a new file.
import type { Command } from "commander";
import { toJsonl } from "../../../core/read/export.ts";
import { inspectSession, readEvents } from "../../../core/read/sessions.ts";
import { renderHtmlExport } from "../../../viewer/html-export.ts";
import { writeMarkdown } from "../../../viewer/markdown.ts";
import { CliError, EXIT, note } from "../../common.ts";
import { readableOrExplain } from "../../events-file.ts";
import { io } from "../../io.ts";
import { withSessionScope } from "../../options.ts";
import { projectPrices } from "../../project-prices.ts";
import { resolveSessionArg, type SessionOpts, withAllProjects } from "../../session-arg.ts";
import { writeExportFile } from "./export-file.ts";

interface ExportOpts extends SessionOpts {
  format: string;
  out?: string;
  force?: boolean;
}

function exportCommand(query: string, opts: ExportOpts): void {
  if (opts.format !== "jsonl" && opts.format !== "md" && opts.format !== "html") {
    throw new CliError(`unknown format "${opts.format}" (use jsonl, md or html)`, EXIT.usage);
  }
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

export function register(program: Command): void {
  // No --json: the formats are jsonl, md and html, and an option that is accepted and ignored misleads.
  withAllProjects(
    withSessionScope(
      program
        .command("export <session>")
        .description("export a session's redacted record as JSONL (manifest first), Markdown or HTML")
        .requiredOption("--format <jsonl|md|html>", "jsonl, md or html (one self-contained page)")
        .option("--out <file>", "destination file (default: stdout)")
        .option("--force", "replace an existing destination file"),
    ),
  ).action(exportCommand);
}
