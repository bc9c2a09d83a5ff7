// `tapedeck search QUERY`: ranked hits across the recorded sessions of this
// project (or of every project the registry knows), from the derived index,
// which is brought up to date first. Exit 0 with hits, 1 with none, 2 for a
// bad query or option.
import type { Command } from "commander";
import { EVENT_KINDS } from "../../core/archive/kinds.ts";
import { fields, printable } from "../../core/base/printable.ts";
import { registeredProjects } from "../../core/read/registry-projects.ts";
import { MARK_CLOSE, MARK_OPEN } from "../../memory/index/index-text.ts";
import { parseQuery } from "../../memory/index/query.ts";
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  type SearchFilters,
  type SearchHit,
  searchProject,
  splitMarks,
} from "../../memory/index/search.ts";
import { MemoryDbError } from "../../memory/index/sqlite.ts";
import { CliError, checkProvider, EXIT, note, printJson, projectFromOption } from "../common.ts";
import { progressPrinter } from "../index-progress.ts";
import { io, setExitCode } from "../io.ts";
import { offerWords, PROJECT_HELP } from "../options.ts";
import { parseSince } from "../since.ts";

interface SearchOpts {
  project?: string;
  allProjects?: boolean;
  provider?: string;
  kind?: string;
  since?: string;
  session?: string;
  limit?: string;
  json?: boolean;
}

export const SEARCH_DESCRIPTION =
  'search every recorded session of this project: words, "phrases", prefix*, OR, -word, kind:K, provider:P, session:S (see docs/memory.md)';

async function searchCommand(text: string, opts: SearchOpts): Promise<void> {
  const query = parseQuery(text);
  const filters: SearchFilters = {
    providers: opts.provider === undefined ? undefined : [checkProvider(opts.provider)!],
    kinds: opts.kind === undefined ? undefined : parseKinds(opts.kind),
    sessions: opts.session === undefined ? undefined : [opts.session],
    since: opts.since === undefined ? undefined : sinceTimestamp(opts.since),
  };
  const limit = parseLimit(opts.limit);
  const projects = opts.allProjects
    ? allProjects(projectFromOption(opts.project))
    : [projectFromOption(opts.project)];
  const hits: SearchHit[] = [];
  const progress = progressPrinter();
  for (const project of projects) {
    let found: ReturnType<typeof searchProject>;
    try {
      found = searchProject(project, query, filters, limit, {
        onProgress: progress,
        onNotice: (t) => note(fields`tapedeck: ${t}\n`),
      });
    } catch (error) {
      // One project's unusable index must not hide the others' hits.
      if (projects.length === 1 || !(error instanceof MemoryDbError)) throw error;
      note(fields`tapedeck: skipped ${project}: ${error.message}\n`);
      continue;
    }
    if (found.stale) {
      note(
        fields`tapedeck: the index of ${project} is being updated by another process; the newest events may be missing\n`,
      );
    }
    hits.push(...found.hits);
  }
  progress.done();
  // Each project's hits are ranked by their own index; across projects, by score.
  if (projects.length > 1) hits.sort((a, b) => b.score - a.score || b.timestamp.localeCompare(a.timestamp));
  const shown = hits.slice(0, limit);
  if (opts.json) printJson(shown.map(jsonHit));
  else printHits(shown, projects.length > 1);
  if (shown.length === 0) {
    if (!opts.json) note("tapedeck: no matches\n");
    setExitCode(EXIT.failed);
  }
}

function parseKinds(value: string): string[] {
  const kinds = value
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  for (const k of kinds) {
    if (!(EVENT_KINDS as readonly string[]).includes(k)) {
      throw new CliError(`unknown kind "${k}" (kinds: ${EVENT_KINDS.join(", ")})`, EXIT.usage);
    }
  }
  if (kinds.length === 0) throw new CliError("--kind needs a value", EXIT.usage);
  return kinds;
}

/** The earliest instant a Date can hold: an age past it (`--since 999999w`) means every event. */
const EARLIEST_MS = -8.64e15;

/**
 * `--since` read as list, otel export and import read it (cli/since.ts: 2w, 7d, 12h, 30m or a date), as the ISO
 * time the index compares event timestamps with.
 */
function sinceTimestamp(value: string): string {
  return new Date(Math.max(parseSince(value), EARLIEST_MS)).toISOString();
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= MAX_LIMIT)) throw new CliError(`--limit must be 1 to ${MAX_LIMIT}`, EXIT.usage);
  return n;
}

/** The registry's projects still on disk (the current one too); the gone ones are named on stderr. */
function allProjects(current: string): string[] {
  const { present, missing } = registeredProjects();
  if (missing.length > 0) {
    note(
      `tapedeck: skipped ${missing.length} registered project(s) no longer on disk: ${missing.map(printable).join(", ")}\n`,
    );
  }
  return [...new Set([current, ...present])];
}

function jsonHit(h: SearchHit) {
  const { text, matches } = splitMarks(h.snippet);
  return { ...h, snippet: text, matches };
}

function printHits(hits: SearchHit[], withProject: boolean): void {
  // Highlight only on a terminal: piped output stays plain text for grep and friends.
  const tty = io().stdout.isTTY === true;
  const lines: string[] = [];
  for (const h of hits) {
    const id = h.provider_session_id ?? h.session_id;
    const head = [h.provider, id, `#${h.sequence}`, h.kind, h.timestamp.replace("T", " ").slice(0, 19)];
    if (withProject) head.unshift(h.project);
    lines.push(head.map(printable).join("  "));
    lines.push(`  ${highlight(h.snippet, tty)}`);
  }
  if (lines.length > 0) io().stdout.write(`${lines.join("\n")}\n`);
}

/** Recorded text made safe for the terminal piece by piece, the markers then turned into bold inverse (or dropped). */
export function highlight(snippet: string, tty: boolean): string {
  const pieces = snippet.split(new RegExp(`([${MARK_OPEN}${MARK_CLOSE}])`));
  return pieces
    .map((p) => {
      if (p === MARK_OPEN) return tty ? "\x1b[1;7m" : "";
      if (p === MARK_CLOSE) return tty ? "\x1b[0m" : "";
      return printable(p);
    })
    .join("");
}

export function register(program: Command): void {
  const command = program
    .command("search <query>")
    .description(SEARCH_DESCRIPTION)
    .option("--project <dir>", PROJECT_HELP)
    .option("--all-projects", "every project the registry knows (projects no longer on disk are skipped)")
    .option("--provider <name>", "only this provider's events (claude, codex, gemini, antigravity)")
    .option(
      "--kind <kinds>",
      "only these event kinds, comma-separated (user_prompt, assistant_message, tool_call, …)",
    )
    .option("--since <date>", "only events at or after this date/time (ISO) or age (30m, 12h, 7d, 2w)")
    .option("--session <id>", "only this session (id, provider id, directory name, or a prefix)")
    .option("--limit <n>", `at most this many hits (default ${DEFAULT_LIMIT})`)
    .option("--json", "machine-readable output: hits with the snippet as plain text and the match offsets")
    .addHelpText(
      "after",
      "\nQuote a query of several words for the shell; one that starts with - goes after --:\n" +
        "  tapedeck search 'flaky test -windows'    tapedeck search -- '-draft notes'\n" +
        "Exit status: 0 with hits, 1 with none, 2 for a bad query or option.",
    );
  offerWords(command, "--kind", EVENT_KINDS, true).action(searchCommand);
}
