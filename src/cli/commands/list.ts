// `tapedeck list`: the project's sessions (or every registered project's), from their manifests only: its
// recordings and the sessions its replays and experiment runs made, each run marked with its type and baseline.
// A title (the first prompt), turns, tool errors, tokens and a failed turn come from counters the recorder keeps
// in the manifest, so no event is read.

import type { Command } from "commander";
import { printable } from "../../core/base/printable.ts";
import { type ScopedSession, sessionsInScope } from "../../core/read/session-scope.ts";
import { statusWord } from "../../core/read/session-status.ts";
import { inOneMeaning, totalTokens } from "../../core/read/usage-facts.ts";
import { usageFactsOf } from "../../providers/usage-facts.ts";
import { summarizeManifest } from "../../viewer/session-summary.ts";
import {
  CliError,
  checkProvider,
  EXIT,
  formatDuration,
  printJson,
  projectFromOption,
  say,
} from "../common.ts";
import { io } from "../io.ts";
import { withSessionOptions } from "../options.ts";
import { providerName } from "../providers.ts";
import type { SessionOpts } from "../session-arg.ts";
import { parseSince } from "../since.ts";

interface ListOpts extends SessionOpts {
  limit?: string;
  since?: string;
  allProjects?: boolean;
  /** --runs: only replays' and runs' sessions; --no-runs: none of them; neither: both kinds. */
  runs?: boolean;
}

const TITLE_WIDTH = 60;

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw new CliError(`--limit: "${printable(value)}" is not a positive number`, EXIT.usage);
  }
  return Number(value);
}

/** 1234 -> 1.2k, 12345678 -> 12.3M: a column that stays narrow. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The RUN cell: what made a replay's or run's session, and from which baseline; "—" for a recording. */
function runCell(s: ScopedSession): string {
  const m = s.manifest;
  if (s.origin !== "run" && !m.replay_of_session_id) return "—";
  const baseline = m.replay_of_session_id ? ` of ${shortId(m.replay_of_session_id)}` : "";
  const arm = m.arm && m.arm !== m.run_type ? ` (${m.arm})` : "";
  return `${m.run_type ?? "run"}${baseline}${arm}`;
}

/** `claude:8b013531-953b-…` -> `8b013531`: enough to tell baselines apart and to type. */
function shortId(id: string): string {
  return id.replace(/^[a-z]+:/, "").slice(0, 8);
}

function row(s: ScopedSession, withProject: boolean): string[] {
  const m = s.manifest;
  const sum = summarizeManifest(m as unknown as Record<string, unknown>);
  const end = Date.parse(m.ended_at ?? m.last_event_at ?? m.started_at);
  const t = sum.tokens;
  // Each token once: where input includes the cache reads (Codex, Gemini), they are not added again.
  const tokens = t ? compactCount(totalTokens(usageFactsOf(m.provider), t)) : "—";
  const status = statusWord(m);
  // Every cell comes from a manifest on disk: one line each, no control characters.
  const cells = [
    m.provider_session_id ?? m.session_id,
    providerName(m.provider),
    String(m.started_at).replace("T", " ").slice(0, 16),
    formatDuration(end - Date.parse(m.started_at)),
    String(sum.turns),
    String(sum.tool_errors),
    tokens,
    s.spooled_events > 0 ? `${status} +${s.spooled_events} spooled` : status,
    runCell(s),
    cut(sum.title ?? "—", TITLE_WIDTH),
  ];
  if (withProject) cells.splice(1, 0, s.project);
  return cells.map(printable);
}

function collect(opts: ListOpts): ScopedSession[] {
  return sessionsInScope({
    project: projectFromOption(opts.project),
    provider: checkProvider(opts.provider),
    allProjects: opts.allProjects === true,
    runs: opts.runs === undefined ? true : opts.runs ? "only" : false,
  });
}

function listCommand(opts: ListOpts): void {
  const limit = parseLimit(opts.limit);
  const since = opts.since === undefined ? undefined : parseSince(opts.since);
  let sessions = collect(opts);
  if (since !== undefined) sessions = sessions.filter((s) => Date.parse(s.manifest.started_at) >= since);
  if (limit !== undefined) sessions = sessions.slice(0, limit);
  if (opts.json) {
    printJson(
      sessions.map((s) => {
        const sum = summarizeManifest(s.manifest as unknown as Record<string, unknown>);
        return {
          ...s.manifest,
          path: s.dir,
          project: s.project,
          origin: s.origin,
          title: sum.title,
          turns: sum.turns,
          tool_calls: sum.tool_calls,
          tool_errors: sum.tool_errors,
          // The one meaning every command shows; the sums as recorded beside them.
          tokens: sum.tokens ? inOneMeaning(usageFactsOf(s.manifest.provider), sum.tokens) : null,
          recorded_tokens: sum.tokens,
          failed: sum.failed,
          failure: sum.failure,
        };
      }),
    );
    return;
  }
  if (sessions.length === 0) {
    const where = opts.allProjects ? "any registered project" : projectFromOption(opts.project);
    say(`No recorded sessions in ${printable(where)}${since !== undefined ? " since then" : ""}.\n`);
    return;
  }
  const withProject = opts.allProjects === true;
  const rows = sessions.map((s) => row(s, withProject));
  const header = [
    "SESSION",
    "PROVIDER",
    "STARTED (UTC)",
    "DURATION",
    "TURNS",
    "ERRORS",
    "TOKENS",
    "STATUS",
    "RUN",
    "TITLE",
  ];
  if (withProject) header.splice(1, 0, "PROJECT");
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // On a terminal the title takes what the other columns leave of its width, so no line wraps.
  const columns = io().stdout.isTTY ? io().stdout.columns : undefined;
  if (columns) {
    const room = columns - widths.slice(0, -1).reduce((a, w) => a + w + 2, 0);
    const titleWidth = Math.max(12, room);
    for (const r of rows) r[r.length - 1] = cut(r.at(-1)!, titleWidth);
  }
  const fmt = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  // One line per session and no colour: the table reads the same through `less -S`, grep or a file.
  say(`${[fmt(header), ...rows.map(fmt)].join("\n")}\n`);
}

export function register(program: Command): void {
  withSessionOptions(
    program
      .command("list")
      .description("list recorded sessions (reads manifests only)")
      .option("--limit <n>", "the newest n sessions only")
      .option("--since <when>", "sessions started since a date (2026-11-30) or for a duration (7d, 12h, 30m)")
      .option("--all-projects", "every project the registry knows, not only this one")
      .option("--runs", "only the sessions of replays and experiment runs")
      .option("--no-runs", "leave out the sessions of replays and experiment runs"),
  ).action(listCommand);
}
