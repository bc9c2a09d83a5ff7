// `tapedeck import claude|codex|gemini|all`: the sessions the agents kept in their own files before tapedeck
// recorded them, into this project's archive (docs/import.md). The work is src/import/'s (import.ts: plan,
// the decision, run, register, re-index); this file parses, asks, shows progress and formats. Exit 0 imported or
// already up to date, 1 a session failed, 2 used wrongly (or another project's import not confirmed), 3 no
// session of the agent was found for the project.
import { Argument, type Command } from "commander";
import { storedId } from "../../core/archive/identity.ts";
import { fields, printable } from "../../core/base/printable.ts";
import { safePath } from "../../import/cursor.ts";
import { importHistory, type OtherProjects } from "../../import/import.ts";
import {
  foundNothing,
  type ImportPlan,
  importableProviders,
  type PlannedSession,
} from "../../import/plan.ts";
import type { ImportProgress, ImportResult } from "../../import/run.ts";
import { CliError, confirm, EXIT, formatBytes, note, printJson, projectFromOption, say } from "../common.ts";
import { io, setExitCode } from "../io.ts";
import { PROJECT_HELP } from "../options.ts";
import { providerName } from "../providers.ts";
import { parseSince } from "../since.ts";

interface ImportOpts {
  project?: string;
  allProjects?: boolean;
  since?: string;
  dryRun?: boolean;
  json?: boolean;
  yes?: boolean;
  includeDeleted?: boolean;
}

export const IMPORT_DESCRIPTION =
  "import the sessions Claude Code, Codex or Gemini kept before tapedeck recorded (their own files), redacted, into this project's archive";

function providersOf(source: string): string[] {
  return source === "all" ? importableProviders() : [source];
}

async function importCommand(source: string, opts: ImportOpts): Promise<void> {
  if (opts.project !== undefined && opts.allProjects) {
    throw new CliError("--project and --all-projects exclude each other", EXIT.usage);
  }
  const here = projectFromOption(opts.project);
  const progress = progressLine();
  const outcome = await importHistory(
    {
      providers: providersOf(source),
      project: here,
      here,
      allProjects: !!opts.allProjects,
      ...(opts.since !== undefined ? { sinceMs: parseSince(opts.since) } : {}),
      env: process.env,
      projectGiven: opts.project !== undefined,
      includeDeleted: opts.includeDeleted === true,
      dryRun: !!opts.dryRun,
    },
    {
      confirm: (others) => confirmOtherProjects(others, opts),
      onProgress: progress.show,
      onIndexError: (project, error) =>
        note(
          fields`tapedeck: the search index of ${project} was not updated (${error.message}); search will\n`,
        ),
    },
  );
  progress.done();
  const result = outcome.status === "imported" ? outcome.result : undefined;
  if (outcome.status !== "declined") report(opts, source, here, outcome.plan, result);
  if (outcome.status === "refused") {
    throw new CliError(
      `nothing imported: ${outcome.reason}; run it from a project's directory, or pass --project DIR`,
      EXIT.usage,
    );
  }
  if (outcome.status === "declined") throw new CliError("nothing imported", EXIT.usage);
  if (outcome.status === "nothing") setExitCode(EXIT.notFound);
  if (result && result.failed > 0) setExitCode(EXIT.failed);
}

/** Writing into a project other than this one is the user's call: asked on a terminal, else --yes. */
async function confirmOtherProjects(others: OtherProjects, opts: ImportOpts): Promise<boolean> {
  if (opts.yes) return true;
  note(
    `tapedeck: ${others.sessions} session(s) belong to ${others.projects.length} other project(s); each gets a git-ignored .tapedeck/:\n`,
  );
  // A project here is a recorded cwd: each on its own line, whatever it holds.
  for (const p of others.projects) note(fields`  ${p}\n`);
  if (!io().stdin.isTTY) {
    throw new CliError(
      "nothing imported: pass --yes to import into other projects without a terminal",
      EXIT.usage,
    );
  }
  return confirm(`Import into ${others.projects.length} other project(s)?`);
}

/** One line on a terminal's stderr, redrawn at most ten times a second; nothing elsewhere. */
function progressLine(): { show: (p: ImportProgress) => void; done: () => void } {
  if (!io().stderr.isTTY) return { show: () => {}, done: () => {} };
  let last = 0;
  let shown = false;
  return {
    show: (p) => {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      const pct = p.bytesTotal > 0 ? Math.floor((100 * p.bytesDone) / p.bytesTotal) : 100;
      io().stderr.write(
        `\r\x1b[Kimporting ${p.sessionsDone}/${p.sessionsTotal} sessions · ${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)} (${pct}%)`,
      );
    },
    done: () => {
      if (shown) io().stderr.write("\r\x1b[K");
    },
  };
}

function plannedRow(s: PlannedSession): Record<string, unknown> {
  return {
    provider: s.provider,
    session_id: `${s.provider}:${storedId(s.session.sessionId)}`,
    project: s.project,
    source: safePath(s.files[0]!.file.path),
    status: s.status,
    resumed: s.resumed,
    files: s.files.length,
    bytes: s.bytes,
    first_at: s.session.firstAt ?? null,
    last_at: s.session.lastAt ?? null,
  };
}

function report(
  opts: ImportOpts,
  source: string,
  here: string,
  plan: ImportPlan,
  result: ImportResult | undefined,
): void {
  if (opts.json) {
    const base = result ?? {
      imported: [],
      skipped: plan.skipped,
      sessions: 0,
      events: 0,
      unchanged: plan.unchanged,
      elsewhere: plan.elsewhere,
      failed: 0,
    };
    const { projects: _p, ...fields } = base as ImportResult;
    printJson({
      ...fields,
      dry_run: !!opts.dryRun,
      ...(opts.dryRun ? { would_import: plan.sessions.map(plannedRow) } : {}),
    });
    return;
  }
  const who = source === "all" ? "agent" : providerName(source);
  // A refused folder gets its reason from the caller, not a "found nothing" that reads as an empty history.
  if (foundNothing(plan) && plan.refused === undefined)
    note(fields`tapedeck: no ${who} sessions found for ${here}\n`);
  else if (opts.dryRun) sayPlan(plan);
  else if (result) sayResult(result, here);
  if (plan.elsewhere > 0 && !opts.allProjects) {
    note(
      `tapedeck: ${plan.elsewhere} session(s) of other projects left out (--all-projects, or --project DIR)\n`,
    );
  }
  sayskipped(result?.skipped ?? plan.skipped);
}

/** `2026-12-01 10:00 → 2026-12-02 11:00`; one end when the other is unknown, nothing when both are. */
function range(first: string | undefined | null, last: string | undefined | null): string {
  const day = (t: string | undefined | null) => (t ? t.replace("T", " ").slice(0, 16) : "");
  const [a, b] = [day(first), day(last)];
  return a && b ? `${a} → ${b}` : a || b;
}

function sayPlan(plan: ImportPlan): void {
  if (plan.sessions.length === 0) {
    // Everything found was imported before: an empty plan printed `0 session(s), 0 B, ? → ?`.
    say(`Nothing to import: ${plan.unchanged} session(s) imported before and unchanged since\n`);
    return;
  }
  const bytes = plan.sessions.reduce((n, s) => n + s.bytes, 0);
  const firsts = plan.sessions
    .map((s) => s.session.firstAt)
    .filter(Boolean)
    .sort();
  const lasts = plan.sessions
    .map((s) => s.session.lastAt)
    .filter(Boolean)
    .sort();
  say(
    `Would import ${plan.sessions.length} session(s), ${[formatBytes(bytes), range(firsts[0], lasts.at(-1))].filter(Boolean).join(", ")}:\n`,
  );
  for (const s of plan.sessions) {
    const row = [
      providerName(s.provider),
      storedId(s.session.sessionId),
      s.resumed ? `${s.status}, resuming an interrupted import` : s.status,
      formatBytes(s.bytes),
      range(s.session.firstAt, s.session.lastAt) || "no time recorded",
      s.project,
    ];
    say(`  ${row.map(printable).join("  ")}\n`);
  }
  if (plan.unchanged > 0) say(`${plan.unchanged} session(s) imported before and unchanged since\n`);
}

function sayResult(result: ImportResult, here: string): void {
  for (const s of result.imported) {
    const where = s.project === here ? "" : `  ${s.project}`;
    const extra = [
      s.error !== null ? `stopped part-way (${s.error})` : "",
      s.resumed ? "resumed where an interrupted import stopped" : "",
      s.malformed_lines > 0 ? `${s.malformed_lines} malformed line(s) skipped` : "",
      s.torn_tail ? "an incomplete last line left for later" : "",
    ]
      .filter(Boolean)
      .join(", ");
    say(
      `  ${printable(`${providerName(s.provider)}  ${s.provider_session_id}  ${s.status}  ${s.events} events${extra ? ` (${extra})` : ""}${where}`)}\n`,
    );
  }
  const bytes = result.imported.reduce((n, s) => n + s.bytes, 0);
  say(`Imported ${result.sessions} session(s), ${result.events} event(s), ${formatBytes(bytes)} read`);
  say(result.unchanged > 0 ? `; ${result.unchanged} unchanged since the last import\n` : "\n");
  if (result.failed > 0) {
    say(
      `${result.failed} session(s) stopped part-way (see below); what they got is kept, and tapedeck import again resumes them\n`,
    );
  }
  if (result.sessions > 0) say("tapedeck list shows them; tapedeck show SESSION opens one\n");
}

/** Skips by reason (the JSON has each source). */
function sayskipped(skipped: Array<{ source: string; reason: string }>): void {
  if (skipped.length === 0) return;
  const byReason = new Map<string, string[]>();
  for (const s of skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.source]);
  note(`tapedeck: skipped ${skipped.length}:\n`);
  for (const [reason, sources] of byReason) {
    // A reason may name a recorded cwd (`project not found: …`), a source the agent's file path.
    const example = sources.length === 1 ? fields`: ${sources[0]}` : fields` (e.g. ${sources[0]})`;
    note(`  ${sources.length} × ${printable(reason)}${example}\n`);
  }
}

export function register(program: Command): void {
  program
    .command("import")
    .description(IMPORT_DESCRIPTION)
    .addArgument(
      new Argument("<source>", "whose files: an agent, or all").choices([...importableProviders(), "all"]),
    )
    .option("--project <dir>", `${PROJECT_HELP}; only sessions whose recorded cwd is in it`)
    .option(
      "--all-projects",
      "every session, each into the project of its cwd (asks before writing into others)",
    )
    .option("--since <when>", "only sessions active since: a duration (7d, 12h) or a date (2026-11-30)")
    .option("--dry-run", "list what would be imported (sessions, bytes, dates) and write nothing")
    .option("--json", "machine-readable output")
    .option("--yes", "import into other projects without asking (--all-projects)")
    .option(
      "--include-deleted",
      "also the sessions deleted or pruned from the archive (tapedeck delete, prune)",
    )
    .action(importCommand);
}
