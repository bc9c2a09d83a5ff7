// In a folder of its own: esbuild names the chunk of an index.ts after its folder, and each command's chunk
// carries the command's name (dist/cli-chunks/index-*.js).
// `tapedeck index update|rebuild|status`: the derived search index of this
// project (.tapedeck/index.sqlite). Deleting it loses nothing: it is built
// again from the recordings.
import type { Command } from "commander";
import { printable } from "../../../core/base/printable.ts";
import { deleteIndex, indexStatus, type UpdateResult, updateIndex } from "../../../memory/index/index.ts";
import { CliError, EXIT, formatBytes, note, printJson, projectFromOption, say } from "../../common.ts";
import { progressPrinter } from "../../index-progress.ts";
import { PROJECT_HELP } from "../../options.ts";

interface IndexOpts {
  project?: string;
  json?: boolean;
}

const ACTIONS = ["update", "rebuild", "status"] as const;

function indexCommand(action: string, opts: IndexOpts): void {
  if (!(ACTIONS as readonly string[]).includes(action)) {
    throw new CliError(`unknown action "${action}" (use ${ACTIONS.join(", ")})`, EXIT.usage);
  }
  const project = projectFromOption(opts.project);
  if (action === "status") {
    const s = indexStatus(project);
    if (opts.json) printJson(s);
    else {
      say(
        s.exists
          ? `${printable(s.path)}: ${s.events} events from ${s.sessions} sessions, ${formatBytes(s.bytes)}; ` +
              (s.behind_bytes > 0
                ? `${formatBytes(s.behind_bytes)} of ${s.behind_sessions} session(s) not indexed yet (tapedeck index update)\n`
                : "up to date\n")
          : `${printable(s.path)}: not built yet (${formatBytes(s.behind_bytes)} to index; tapedeck index update)\n`,
      );
    }
    return;
  }
  if (action === "rebuild") deleteIndex(project);
  const progress = progressPrinter();
  const started = Date.now();
  const result = updateIndex(project, {
    onProgress: progress,
    onNotice: (t) => note(`tapedeck: ${printable(t)}\n`),
  });
  progress.done();
  if (opts.json) printJson({ action, ...result, ms: Date.now() - started });
  else say(summary(action, result, Date.now() - started));
}

function summary(action: string, r: UpdateResult, ms: number): string {
  const parts = [`${r.events} events from ${formatBytes(r.bytes)} indexed in ${(ms / 1000).toFixed(1)} s`];
  parts.push(`${r.sessions} session(s)`);
  if (r.reindexed) parts.push(`${r.reindexed} changed and indexed again`);
  if (r.removed) parts.push(`${r.removed} gone and dropped`);
  if (r.skipped) parts.push(`${r.skipped} line(s) that are not events skipped`);
  return `${action === "rebuild" ? "Rebuilt" : "Updated"}: ${parts.join("; ")}\n`;
}

export function register(program: Command): void {
  program
    .command("index <action>")
    .description(
      "the derived search index (.tapedeck/index.sqlite): update (new events only), rebuild (from nothing), status",
    )
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(indexCommand);
}
