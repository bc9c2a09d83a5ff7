// `tapedeck export --all --out DIR`: every session in scope, one file each, in the format asked. With
// --format html the files make a browsable site: a page per session (the same self-contained page as a
// single export), an index per project, and with --all-projects one over all of them, a folder per project.
// Everything comes from the archive as stored, already redacted, as every export does.
import { basename } from "node:path";
import { toJsonl } from "../../../core/read/export.ts";
import { type ScopedSession, sessionsInScope } from "../../../core/read/session-scope.ts";
import { inspectSession, readEvents } from "../../../core/read/sessions.ts";
import { listItem } from "../../../viewer/api.ts";
import { renderHtmlExport } from "../../../viewer/html-export.ts";
import { writeMarkdown } from "../../../viewer/markdown.ts";
import { loadPageAssets } from "../../../viewer/server.ts";
import {
  renderSiteIndex,
  type SiteIndex,
  type SiteSession,
  searchTextOf,
} from "../../../viewer/site-index.ts";
import { note } from "../../common.ts";
import { projectPrices } from "../../project-prices.ts";
import { type SessionOpts, sessionScope } from "../../session-arg.ts";
import { openOutDir } from "./out-dir.ts";

export type ExportFormat = "jsonl" | "md" | "html";

export interface ExportAllOpts extends SessionOpts {
  out: string;
  force: boolean;
  format: ExportFormat;
}

export interface ExportedFile {
  session_id: string;
  project: string;
  file: string;
  events: number;
  skipped: number;
}

export interface ExportAllSummary {
  out: string;
  format: ExportFormat;
  projects: number;
  sessions: number;
  events: number;
  skipped_lines: number;
  spooled_events: number;
  files: ExportedFile[];
  indexes: string[];
}

/** Progress every this many sessions: a long export says it is moving, a short one stays quiet. */
const PROGRESS_EVERY = 25;
const NAME_CHARS = 80;

/** A file or folder name from recorded text: letters, digits, `-` and `_` only, so never hidden nor `..`. */
function safeName(text: string, fallback: string): string {
  const name = text
    .replace(/[^A-Za-z0-9-]+/g, "_")
    .replace(/^[_-]+|[_-]+$/g, "")
    .replace(/-_|_-/g, "-")
    .slice(0, NAME_CHARS);
  return name || fallback;
}

/** `name`, or `name-2`, `name-3`… when taken. */
function unique(name: string, taken: Set<string>): string {
  let out = name;
  for (let n = 2; taken.has(out.toLowerCase()); n++) out = `${name}-${n}`;
  taken.add(out.toLowerCase());
  return out;
}

interface Placed {
  ref: ScopedSession;
  /** The folder of its project ("" when the export has one project's layout). */
  folder: string;
  file: string;
}

function place(
  sessions: ScopedSession[],
  perProject: boolean,
): { placed: Placed[]; folders: Map<string, string> } {
  const folders = new Map<string, string>();
  const takenFolders = new Set<string>(["index.html"]);
  const takenFiles = new Map<string, Set<string>>();
  const placed = sessions.map((ref) => {
    let folder = "";
    if (perProject) {
      folder = folders.get(ref.project) ?? unique(safeName(basename(ref.project), "project"), takenFolders);
      folders.set(ref.project, folder);
    }
    const taken = takenFiles.get(folder) ?? new Set(["index", "tapedeck-export"]);
    takenFiles.set(folder, taken);
    const m = ref.manifest;
    const file = unique(safeName(`${m.provider}-${m.provider_session_id ?? m.session_id}`, "session"), taken);
    return { ref, folder, file };
  });
  return { placed, folders };
}

function rendered(p: Placed, format: ExportFormat, assets: () => ReturnType<typeof loadPageAssets>) {
  const prices = projectPrices(p.ref.project);
  if (format === "jsonl") {
    const { events, skipped } = readEvents(p.ref.dir);
    return { text: toJsonl(p.ref.manifest, events), events: events.length, skipped };
  }
  if (format === "md") {
    const parts: string[] = [];
    const md = writeMarkdown(inspectSession(p.ref), (t) => parts.push(t), { prices });
    return { text: parts.join(""), events: md.events, skipped: md.bad_lines };
  }
  const html = renderHtmlExport(p.ref, { prices, assets: assets(), index: "index.html" });
  return { text: html.html, events: html.events, skipped: html.bad_lines };
}

function siteSession(p: Placed, href: string): SiteSession {
  const item = listItem(p.ref, 0);
  return {
    title: item.title ?? item.provider_session_id ?? item.session_id,
    session_id: item.session_id,
    provider: item.provider,
    status: item.status,
    started_at: item.started_at,
    turns: item.turns,
    tokens: item.tokens,
    project: basename(p.ref.project),
    href,
    text: searchTextOf(readEvents(p.ref.dir).events),
  };
}

function writeIndexes(
  dir: ReturnType<typeof openOutDir>,
  placed: Placed[],
  folders: Map<string, string>,
  perProject: boolean,
): string[] {
  const entries = placed.map((p) => ({ p, site: siteSession(p, `${p.file}.html`) }));
  const written: string[] = [];
  const projects = [...new Set(placed.map((p) => p.ref.project))];
  if (!perProject) {
    const name = basename(projects[0] ?? "project");
    dir.write(
      "index.html",
      renderSiteIndex({ heading: `tapedeck · ${name}`, projects: [], sessions: entries.map((e) => e.site) }),
    );
    return ["index.html"];
  }
  const top: SiteIndex = { heading: "tapedeck · all projects", projects: [], sessions: [] };
  for (const project of projects) {
    const folder = folders.get(project)!;
    const own = entries.filter((e) => e.p.ref.project === project).map((e) => e.site);
    const index: SiteIndex = {
      heading: `tapedeck · ${basename(project)}`,
      up: "../index.html",
      projects: [],
      sessions: own,
    };
    dir.write(`${folder}/index.html`, renderSiteIndex(index));
    written.push(`${folder}/index.html`);
    top.projects.push({ name: basename(project), href: `${folder}/index.html`, sessions: own.length });
    top.sessions.push(...own.map((s) => ({ ...s, href: `${folder}/${s.href}` })));
  }
  dir.write("index.html", renderSiteIndex(top));
  return ["index.html", ...written];
}

export function exportAll(opts: ExportAllOpts): ExportAllSummary {
  const scope = sessionScope(opts);
  const perProject = scope.allProjects === true;
  const sessions = sessionsInScope(scope);
  const dir = openOutDir(opts.out, opts.force, opts.format);
  const { placed, folders } = place(sessions, perProject);
  let assets: ReturnType<typeof loadPageAssets> | undefined;
  const pageAssets = () => (assets ??= loadPageAssets());
  const ext = opts.format;
  const summary: ExportAllSummary = {
    out: opts.out,
    format: opts.format,
    projects: new Set(sessions.map((s) => s.project)).size,
    sessions: 0,
    events: 0,
    skipped_lines: 0,
    spooled_events: 0,
    files: [],
    indexes: [],
  };
  if (placed.length > PROGRESS_EVERY) note(`Exporting ${placed.length} sessions to ${opts.out}…\n`);
  for (const [i, p] of placed.entries()) {
    const out = rendered(p, opts.format, pageAssets);
    const rel = `${p.folder ? `${p.folder}/` : ""}${p.file}.${ext}`;
    dir.write(rel, out.text);
    summary.files.push({
      session_id: p.ref.manifest.session_id,
      project: p.ref.project,
      file: rel,
      events: out.events,
      skipped: out.skipped,
    });
    summary.sessions += 1;
    summary.events += out.events;
    summary.skipped_lines += out.skipped;
    summary.spooled_events += p.ref.spooled_events;
    if ((i + 1) % PROGRESS_EVERY === 0 && i + 1 < placed.length) note(`  ${i + 1}/${placed.length}\n`);
  }
  if (opts.format === "html") summary.indexes = writeIndexes(dir, placed, folders, perProject);
  return summary;
}
