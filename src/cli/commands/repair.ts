// `tapedeck repair <session>`: recovers an interrupted session (torn final line, malformed lines, counters,
// the spool); a repair that leaves events in the spool is a failure, never a quiet success.
import type { Command } from "commander";
import { recoverSession } from "../../core/archive/recovery.ts";
import { summarizeSpool } from "../../core/archive/spool.ts";
import { printable } from "../../core/base/printable.ts";
import { EXIT, printJson, say } from "../common.ts";
import { setExitCode } from "../io.ts";
import { withSessionOptions } from "../options.ts";
import { resolveSessionArg, type SessionOpts } from "../session-arg.ts";

function repairCommand(query: string, opts: SessionOpts): void {
  const ref = resolveSessionArg(query, opts);
  const result = recoverSession(ref.dir, { write: true });
  const r = result.report;
  // Events still in the spool (lock held, unsafe spool) mean the repair is not done: never a quiet success.
  const left = summarizeSpool(ref.dir);
  if (left.events > 0 || left.unsafe || result.readOnlyReason) setExitCode(EXIT.failed);
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
  // The status, reasons and paths are the archive's and the manifest's: each line stays one line.
  say(`${lines.map(printable).join("\n")}\n`);
}

export function register(program: Command): void {
  withSessionOptions(
    program
      .command("repair <session>")
      .description(
        "recover an interrupted session: drop a torn final line, report malformed lines, rebuild counters",
      ),
  ).action(repairCommand);
}
