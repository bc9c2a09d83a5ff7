// `tapedeck delete <session...> | --older-than AGE`: removes recorded sessions after a preview (sessions and
// bytes) and a confirmation; the selection and the removal are the retention rule's (src/core/read/retention.ts).
import type { Command } from "commander";
import { parseAge, planRemoval, removeSessions, treeBytes } from "../../core/read/retention.ts";
import { CliError, checkProvider, EXIT, projectFromOption } from "../common.ts";
import { withSessionOptions } from "../options.ts";
import { ageOption, confirmAndRemove } from "../removal.ts";
import { resolveSessionArg, type SessionOpts } from "../session-arg.ts";

interface DeleteOpts extends SessionOpts {
  yes?: boolean;
  force?: boolean;
  olderThan?: string;
  includeReferenced?: boolean;
  dryRun?: boolean;
}

async function deleteCommand(queries: string[], opts: DeleteOpts): Promise<void> {
  const project = projectFromOption(opts.project);
  const provider = checkProvider(opts.provider);
  const olderThanMs = ageOption(opts.olderThan, parseAge);
  if (queries.length === 0 && olderThanMs === undefined) {
    throw new CliError("name the sessions to delete, or select them with --older-than", EXIT.usage);
  }
  // Each argument resolves as elsewhere (id, archive id, unique prefix, last; a replay's session too); an
  // unknown one is exit 3.
  const refs = queries.map((q) => resolveSessionArg(q, { project, provider }));
  const ids = queries.length > 0 ? [...new Set(refs.map((r) => r.manifest.session_id))] : undefined;
  const plan = planRemoval(project, {
    ids,
    ...(refs.length > 0 ? { refs: [...new Map(refs.map((r) => [r.dir, r])).values()] } : {}),
    olderThanMs,
    provider,
    includeReferenced: opts.includeReferenced || (opts.force && ids !== undefined),
  });
  if (ids && plan.kept.length > 0 && !opts.force) {
    const k = plan.kept[0]!;
    const hint = k.reason.includes("--include-referenced") ? "" : "; stop the agent first or pass --force";
    throw new CliError(`${k.ref.manifest.session_id} is kept: ${k.reason}${hint}`);
  }
  // --force (named sessions only): removed even while being recorded, as delete always allowed.
  const force = !!opts.force && ids !== undefined;
  const shown = force
    ? {
        ...plan,
        remove: [...plan.remove, ...plan.kept.map((k) => ({ ref: k.ref, bytes: treeBytes(k.ref.dir) }))],
        kept: [],
      }
    : plan;
  const bytes = shown.remove.reduce((n, c) => n + c.bytes, 0);
  await confirmAndRemove(project, { ...shown, bytes }, opts, (p) => removeSessions(project, p, { force }));
}

export function register(program: Command): void {
  withSessionOptions(
    program
      .command("delete [sessions...]")
      .description("delete recorded sessions: by name, or --older-than (preview, then asks)")
      .option("--older-than <age>", "only sessions whose last event is older than this (30d, 12h, 2w)")
      .option("--include-referenced", "also sessions a replay or experiment was made from")
      .option("--dry-run", "show what would be removed, remove nothing")
      .option("-y, --yes", "do not ask for confirmation (required without a terminal)")
      .option("--force", "delete named sessions even while they are being recorded"),
  ).action(deleteCommand);
}
