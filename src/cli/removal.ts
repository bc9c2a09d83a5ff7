// The preview, confirmation and report that `tapedeck delete` and `tapedeck prune` share: the same list of
// sessions and bytes is shown, asked about, and then removed (src/core/read/retention.ts re-checks each one).
import { relative } from "node:path";
import { fields } from "../core/base/printable.ts";
import type { Candidate, Plan, Protected, Removal } from "../core/read/retention.ts";
import { statusWord } from "../core/read/session-status.ts";
import { CliError, confirm, EXIT, formatBytes, printJson, say } from "./common.ts";
import { io } from "./io.ts";

export interface RemovalOpts {
  yes?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

function row(project: string, c: Candidate): Record<string, unknown> {
  const m = c.ref.manifest;
  return {
    session_id: m.session_id,
    provider: m.provider,
    status: m.status,
    // The word list shows (failed outranks complete): the same session reads the same everywhere.
    shown_status: statusWord(m),
    last_event_at: m.last_event_at ?? m.ended_at ?? m.started_at,
    bytes: c.bytes,
    path: relative(project, c.ref.dir) || c.ref.dir,
  };
}

function keptRow(k: Protected): Record<string, unknown> {
  return { session_id: k.ref.manifest.session_id, provider: k.ref.manifest.provider, reason: k.reason };
}

function preview(plan: Plan, verb: string): void {
  for (const c of plan.remove) {
    const m = c.ref.manifest;
    const when = (m.last_event_at ?? m.ended_at ?? m.started_at).slice(0, 10);
    say(fields`  ${m.session_id}  ${m.provider}  ${statusWord(m)}  ${when}  ${formatBytes(c.bytes)}\n`);
  }
  for (const k of plan.kept) say(fields`  kept: ${k.ref.manifest.session_id} (${k.reason})\n`);
  say(`${verb} ${plan.remove.length} session(s), ${formatBytes(plan.bytes)}\n`);
}

/**
 * Shows the plan, asks (or takes --yes), removes. Without a terminal and without --yes it refuses with exit 2
 * after the preview: a script that forgot --yes learns what it would have removed, and nothing goes.
 */
export async function confirmAndRemove(
  project: string,
  plan: Plan,
  opts: RemovalOpts,
  remove: (plan: Plan) => Removal,
): Promise<void> {
  const sessions = plan.remove.map((c) => row(project, c));
  const kept = plan.kept.map(keptRow);
  if (opts.dryRun || plan.remove.length === 0) {
    if (opts.json)
      printJson({ project, dry_run: !!opts.dryRun, sessions, kept, bytes: plan.bytes, removed: [] });
    else preview(plan, opts.dryRun ? "Would remove" : "Nothing to remove:");
    return;
  }
  if (!opts.json) preview(plan, "Will remove");
  if (!opts.yes) {
    if (!io().stdin.isTTY) {
      throw new CliError("nothing removed: pass --yes to remove without a terminal", EXIT.usage);
    }
    if (!(await confirm(`Remove ${plan.remove.length} session(s), ${formatBytes(plan.bytes)}?`))) {
      throw new CliError("nothing removed", EXIT.usage);
    }
  }
  const result = remove(plan);
  if (opts.json) {
    printJson({
      project,
      dry_run: false,
      sessions,
      kept: [...kept, ...result.failed.map(keptRow)],
      bytes: result.bytes,
      removed: result.removed.map((c) => c.ref.manifest.session_id),
    });
  } else {
    for (const f of result.failed) say(fields`  kept: ${f.ref.manifest.session_id} (${f.reason})\n`);
    say(`Removed ${result.removed.length} session(s), ${formatBytes(result.bytes)}\n`);
  }
  if (result.failed.length > 0 && result.removed.length === 0) {
    throw new CliError("no session was removed", EXIT.failed);
  }
}

/** `--older-than 30d`, checked: a typo must not select everything or nothing silently. */
export function ageOption(
  text: string | undefined,
  parse: (t: string) => number | undefined,
): number | undefined {
  if (text === undefined) return undefined;
  const ms = parse(text);
  if (ms === undefined)
    throw new CliError(`--older-than "${text}": use a number and m, h, d or w (30d)`, EXIT.usage);
  return ms;
}
