// `tapedeck list`: the project's recorded sessions, from their manifests only.
import type { Command } from "commander";
import { listSessions } from "../../core/archive.ts";
import { printable } from "../../core/printable.ts";
import { checkProvider, formatBytes, formatDuration, printJson, projectFromOption, say } from "../common.ts";
import { withSessionOptions } from "../options.ts";
import { providerName } from "../providers.ts";
import type { SessionOpts } from "../session-arg.ts";

function listCommand(opts: SessionOpts): void {
  const project = projectFromOption(opts.project);
  const sessions = listSessions(project, checkProvider(opts.provider));
  if (opts.json) {
    printJson(sessions.map((s) => ({ ...s.manifest, path: s.dir })));
    return;
  }
  if (sessions.length === 0) {
    say(`No recorded sessions in ${project}.\n`);
    return;
  }
  const rows = sessions.map((s) => {
    const m = s.manifest;
    const end = Date.parse(m.ended_at ?? m.last_event_at ?? m.started_at);
    // Every cell comes from a manifest on disk: one line each, no control characters.
    return [
      m.provider_session_id ?? m.session_id,
      providerName(m.provider),
      String(m.started_at).replace("T", " ").slice(0, 19),
      formatDuration(end - Date.parse(m.started_at)),
      s.spooled_events > 0 ? `${m.event_count} +${s.spooled_events} spooled` : String(m.event_count),
      formatBytes(m.byte_count),
      String(m.status),
    ].map(printable);
  });
  const header = ["SESSION", "PROVIDER", "STARTED (UTC)", "DURATION", "EVENTS", "SIZE", "STATUS"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  say(`${[fmt(header), ...rows.map(fmt)].join("\n")}\n`);
}

export function register(program: Command): void {
  withSessionOptions(
    program.command("list").description("list recorded sessions (reads manifests only)"),
  ).action(listCommand);
}
