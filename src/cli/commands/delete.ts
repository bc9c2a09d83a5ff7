// `tapedeck delete <session>`: removes a recorded session (asks first) and its registry entry.
import { relative } from "node:path";
import type { Command } from "commander";
import { deleteSession } from "../../core/archive.ts";
import { printable } from "../../core/printable.ts";
import { sessionLiveness } from "../../core/recovery.ts";
import { forgetSession } from "../../core/registry.ts";
import { CliError, confirm, EXIT, note, printJson, projectFromOption, say } from "../common.ts";
import { withSessionOptions } from "../options.ts";
import { resolveRef, type SessionOpts } from "../session-arg.ts";

interface DeleteOpts extends SessionOpts {
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

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? "error";
}

export function register(program: Command): void {
  withSessionOptions(
    program
      .command("delete <session>")
      .description("delete a recorded session (asks first)")
      .option("-y, --yes", "do not ask for confirmation")
      .option("--force", "delete even if the session is still being recorded"),
  ).action(deleteCommand);
}
