// `tapedeck du`: the disk tapedeck holds, per project (archive, spool, index, memory, experiments, other),
// provider and session, largest first, in apparent bytes as `du -b` counts them; and the user's own
// tapedeck data (the proxy's transcript mirror, the session registry and run files).
import type { Command } from "commander";
import { tapedeckHome } from "../../core/archive/session-registry.ts";
import { fields, printable } from "../../core/base/printable.ts";
import { type ProjectUsage, projectUsage } from "../../core/read/disk-usage.ts";
import { treeBytes } from "../../core/read/retention.ts";
import { loadMirrorSettings } from "../../providers/claude/mirror/settings.ts";
import { knownProjects } from "../all-projects.ts";
import { formatBytes, printJson, projectFromOption, say } from "../common.ts";
import { PROJECT_HELP } from "../options.ts";

interface DuOpts {
  project?: string;
  allProjects?: boolean;
  json?: boolean;
  top?: string;
}

function userUsage(): Array<{ what: string; path: string; bytes: number }> {
  let mirror: string | undefined;
  try {
    mirror = loadMirrorSettings().settings.dir;
  } catch {
    // an unreadable proxy config: the mirror is not counted (doctor and the proxy report the file)
  }
  const out = [
    { what: "tapedeck home (registry, run files)", path: tapedeckHome(), bytes: treeBytes(tapedeckHome()) },
  ];
  if (mirror) out.push({ what: "transcript mirror", path: mirror, bytes: treeBytes(mirror) });
  return out;
}

function render(u: ProjectUsage, top: number): string {
  // The project, a provider and a session id are the registry's and the manifests': one line each.
  const lines = [`${printable(u.project)}  ${formatBytes(u.total_bytes)} (${u.total_bytes} bytes)`];
  const kinds = Object.entries(u.kinds).sort((a, b) => b[1] - a[1]);
  for (const [kind, bytes] of kinds)
    lines.push(`  ${printable(kind).padEnd(12)} ${formatBytes(bytes).padStart(10)}`);
  if (u.providers.length > 0) {
    lines.push("  by provider:");
    for (const p of u.providers)
      lines.push(`    ${printable(p.provider).padEnd(12)} ${formatBytes(p.bytes).padStart(10)}`);
  }
  if (u.sessions.length > 0) {
    lines.push(`  largest sessions (${Math.min(top, u.sessions.length)} of ${u.sessions.length}):`);
    for (const s of u.sessions.slice(0, top)) {
      lines.push(`    ${formatBytes(s.bytes).padStart(10)}  ${fields`${s.provider}  ${s.session_id}`}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function duCommand(opts: DuOpts): void {
  const top = opts.top && /^[0-9]{1,6}$/.test(opts.top) ? Number(opts.top) : 10;
  const projects = (opts.allProjects ? knownProjects() : [projectFromOption(opts.project)]).map(projectUsage);
  projects.sort((a, b) => b.total_bytes - a.total_bytes);
  const user = userUsage();
  if (opts.json) {
    printJson({ projects, user, total_bytes: projects.reduce((n, p) => n + p.total_bytes, 0) });
    return;
  }
  for (const p of projects) say(render(p, top));
  for (const u of user) say(fields`${u.what}: ${u.path}  ${formatBytes(u.bytes)}\n`);
}

export function register(program: Command): void {
  program
    .command("du")
    .description(
      "disk used by tapedeck: per project, provider and session (archive, spool, index, memory, experiments), largest first",
    )
    .option("--project <dir>", PROJECT_HELP)
    .option("--all-projects", "every project this user's tapedeck has recorded (from the session registry)")
    .option("--top <n>", "sessions listed per project (default 10; --json lists all)")
    .option("--json", "machine-readable output (bytes)")
    .action(duCommand);
}
