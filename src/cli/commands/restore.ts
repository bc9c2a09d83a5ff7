// `tapedeck restore SESSION [--from mirror|archive|auto] [--force] [--dry-run] [--json]` and the
// `doctor --transcripts` report: a Claude Code transcript back from the proxy mirror, the hook archive, or
// both (src/providers/claude/transcript-restore.ts; what cannot come back: docs/restore.md).

import { join } from "node:path";
import type { Command } from "commander";
import { tapedeckDir } from "../../core/archive/paths.ts";
import { readRegularFileSync } from "../../core/base/fsutil.ts";
import { printable } from "../../core/base/printable.ts";
import { readEvents, type SessionRef } from "../../core/read/sessions.ts";
import { RestoreError } from "../../providers/claude/mirror/restore.ts";
import { loadMirrorSettings } from "../../providers/claude/mirror/settings.ts";
import type { ArchivedEvent } from "../../providers/claude/transcript-rebuild.ts";
import {
  claudeHomeDir,
  planRestore,
  type RestorePlan,
  type RestoreSource,
  writeRestore,
} from "../../providers/claude/transcript-restore.ts";
import { CliError, EXIT, formatBytes, printJson, projectFromOption, say } from "../common.ts";
import { resolveRef } from "../session-arg.ts";

interface RestoreOpts {
  project?: string;
  from?: string;
  claudeHome?: string;
  mirrorDir?: string;
  force?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

const SOURCES: readonly RestoreSource[] = ["mirror", "archive", "auto"];
/** The control log is one short line per switch; a planted huge file is not read. */
const MAX_CONTROL_LOG_BYTES = 4 * 1024 * 1024;

/** Every recording switch of Claude in this project (start/stop), for the gaps a rebuild cannot fill. */
function controlChanges(project: string): { at: string; action: string }[] {
  let text: string;
  try {
    text = readRegularFileSync(join(tapedeckDir(project), "control.jsonl"), MAX_CONTROL_LOG_BYTES).toString(
      "utf8",
    );
  } catch {
    return [];
  }
  const out: { at: string; action: string }[] = [];
  for (const line of text.split("\n")) {
    try {
      const c = JSON.parse(line) as { at?: unknown; action?: unknown; provider?: unknown };
      if (c.provider === "claude" && typeof c.at === "string" && typeof c.action === "string")
        out.push({ at: c.at, action: c.action });
    } catch {
      // a torn or empty line
    }
  }
  return out;
}

function mirrorDirOf(explicit: string | undefined): string {
  return explicit ?? loadMirrorSettings().settings.dir;
}

function archivedSession(ref: SessionRef) {
  const m = ref.manifest;
  return {
    sessionId: m.provider_session_id ?? "",
    projectRoot: m.project_root,
    branch: m.repository_branch,
    events: readEvents(ref.dir).events as unknown as ArchivedEvent[],
  };
}

function renderPlan(plan: RestorePlan, written?: { backup?: string }, dryRun = false): string {
  const types = Object.entries(plan.by_type)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");
  const c = plan.current;
  const lines = [
    `${dryRun ? "Would write" : "Restored"} ${plan.records.length} records (${formatBytes(plan.bytes)}) to ${plan.path}`,
    `  records: ${types}`,
    `  from: ${plan.used.mirror_turns} turn(s) of the mirror${plan.used.mirror_files ? ` (${plan.used.mirror_files} file(s))` : ""}, ${plan.used.archive_turns} turn(s) rebuilt from the hook archive`,
    `  current transcript: ${c.finding}: ${c.detail}`,
  ];
  if (c.found.exists) {
    lines.push(
      `  differences: prompts ${c.found.prompts} -> ${plan.by_type["user:prompt"] ?? 0}, tool results ${c.found.tool_results} -> ${plan.by_type["user:tool_result"] ?? 0}, bytes ${c.found.bytes} -> ${plan.bytes}`,
    );
  }
  if (written?.backup) lines.push(`  the previous transcript was kept as ${written.backup}`);
  if (plan.not_rebuilt.length > 0) {
    lines.push(
      "  not rebuilt (the hooks never see it; see docs/restore.md):",
      ...plan.not_rebuilt.map((n) => `    - ${n}`),
    );
  }
  if (plan.redacted_events > 0) {
    lines.push(
      `  ${plan.redacted_events} recorded event(s) had values redacted: they stay redacted in the transcript`,
    );
  }
  for (const g of plan.gaps)
    lines.push(
      `  gap: ${g.reason}${g.from ? ` from ${g.from}` : ""}${g.to ? ` until ${g.to}` : " to the end"}`,
    );
  if (!dryRun) lines.push(`Resume with: claude --resume ${plan.session_id}`);
  // The path is made of the recorded cwd, the types, reasons and ids are the archive's: each line one line.
  return `${lines.map(printable).join("\n")}\n`;
}

function planJson(plan: RestorePlan) {
  const { records: _records, current, ...rest } = plan;
  return {
    ...rest,
    records: plan.records.length,
    current: { finding: current.finding, detail: current.detail, found: current.found },
  };
}

function restoreCommand(query: string, opts: RestoreOpts): void {
  const from = (opts.from ?? "auto") as RestoreSource;
  if (!SOURCES.includes(from))
    throw new CliError(`unknown source "${opts.from}" (use mirror, archive or auto)`, EXIT.usage);
  const project = projectFromOption(opts.project);
  const ref = resolveRef(project, query, "claude");
  try {
    const plan = planRestore({
      from,
      session: archivedSession(ref),
      claudeHome: claudeHomeDir(opts.claudeHome),
      mirrorDir: mirrorDirOf(opts.mirrorDir),
      controlChanges: controlChanges(project),
    });
    if (opts.dryRun) {
      if (opts.json) printJson({ dry_run: true, ...planJson(plan) });
      else say(renderPlan(plan, undefined, true));
      return;
    }
    const written = writeRestore(plan, { force: opts.force });
    if (opts.json)
      printJson({ dry_run: false, ...planJson(plan), ...(written.backup ? { backup: written.backup } : {}) });
    else say(renderPlan(plan, written));
  } catch (error) {
    if (error instanceof RestoreError) {
      const code =
        error.code === "not_found"
          ? EXIT.notFound
          : error.code === "exists" || error.code === "unsafe_id"
            ? EXIT.usage
            : EXIT.failed;
      throw new CliError(error.message, code);
    }
    throw error;
  }
}

export function registerRestoreCommand(program: Command): void {
  program
    .command("restore <session>")
    .description(
      "put a Claude Code transcript back so `claude --resume` works: from the proxy mirror, the hook archive, or both (auto)",
    )
    .option(
      "--project <dir>",
      "the project the session was recorded in (default: the enabled project at or above the cwd)",
    )
    .option(
      "--from <source>",
      "mirror (faithful copy), archive (rebuilt from the hooks) or auto (mirror, archive for what it lacks)",
      "auto",
    )
    .option("--claude-home <dir>", "Claude's config directory (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
    .option("--mirror-dir <dir>", "mirror root (default: the configured one)")
    .option(
      "--force",
      "replace an existing transcript, even one holding more than the archive (a backup is kept)",
    )
    .option(
      "--dry-run",
      "show what would be written (records by type, bytes) and how it differs from the current one",
    )
    .option("--json", "machine-readable output")
    .addHelpText(
      "after",
      "\nExit codes: 0 restored (or dry run), 1 failed or unsafe path, 2 an existing transcript needs --force, 3 no such session or nothing to restore.",
    )
    .action(restoreCommand);
}
