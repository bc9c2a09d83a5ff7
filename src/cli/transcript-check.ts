// The transcript state of recorded Claude sessions, for `doctor --transcripts` and `inspect`: each session's
// archive against Claude Code's transcript (transcript-watch.ts), with the command that restores a lost one.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { listSessions, readEvents, type SessionRef } from "../core/archive.ts";
import { readJsonOrUndefined } from "../core/fsutil.ts";
import { sessionDirName } from "../core/paths.ts";
import { printable } from "../core/printable.ts";
import { type RegistryEntry, tapedeckHome } from "../core/registry.ts";
import type { ArchivedEvent } from "../providers/claude/transcript-rebuild.ts";
import {
  claudeHomeDir,
  expectationFromArchive,
  sessionCwd,
  transcriptPathFor,
} from "../providers/claude/transcript-restore.ts";
import {
  compareTranscript,
  observeTranscript,
  type TranscriptComparison,
  type TranscriptExpectation,
} from "../providers/claude/transcript-watch.ts";
import type { JsonObject } from "../proxy/mirror/accumulator.ts";
import { readMirrorSession } from "../proxy/mirror/restore.ts";
import { mirrorDirName } from "../proxy/mirror/writer.ts";

export interface TranscriptState {
  session_id: string;
  project: string;
  path: string;
  finding: TranscriptComparison["finding"];
  detail: string;
  comparison: TranscriptComparison;
  /** The command that puts it back, when it is lost or damaged. */
  restore_command: string | null;
  mirror: boolean;
}

const LOST = new Set(["missing", "stub", "shrunk", "fewer"]);

export function isLost(state: TranscriptState): boolean {
  return LOST.has(state.finding);
}

function hasMirror(mirrorDir: string | undefined, id: string): boolean {
  if (!mirrorDir) return false;
  try {
    return readdirSync(join(mirrorDir, mirrorDirName(id))).some((n) => n.endsWith(".jsonl"));
  } catch {
    return false;
  }
}

/** The transcript state of one Claude session; undefined for another provider's. */
export function transcriptState(
  ref: SessionRef,
  project: string,
  opts: { claudeHome?: string; mirrorDir?: string } = {},
): TranscriptState | undefined {
  const m = ref.manifest;
  if (m.provider !== "claude" || !m.provider_session_id) return undefined;
  const id = m.provider_session_id;
  const events = readEvents(ref.dir).events as unknown as ArchivedEvent[];
  const cwd = sessionCwd({ sessionId: id, projectRoot: m.project_root, branch: m.repository_branch, events });
  const path = transcriptPathFor(claudeHomeDir(opts.claudeHome), cwd, sessionDirName(id));
  const mirror = hasMirror(opts.mirrorDir, id);
  const expected = expectationFromArchive(events);
  if (mirror && opts.mirrorDir) addMirroredToolCalls(expected, opts.mirrorDir, id);
  const comparison = compareTranscript(expected, observeTranscript(path));
  const lost = LOST.has(comparison.finding);
  const force = comparison.found.exists ? " --force" : "";
  return {
    session_id: id,
    project,
    path,
    finding: comparison.finding,
    detail: comparison.detail,
    comparison,
    restore_command: lost
      ? `tapedeck restore ${id} --project ${shellWord(project)} --from ${mirror ? "auto" : "archive"}${force}`
      : null,
    mirror,
  };
}

/**
 * The mirror's main-thread tool calls join the expectation: a call the model made there must be in the
 * transcript, also one made while recording was off. (Its prompt count does not: the mirror also holds the
 * user message of a compaction request, which the transcript keeps as no prompt.)
 */
function addMirroredToolCalls(expected: TranscriptExpectation, mirrorDir: string, id: string): void {
  let records: readonly JsonObject[];
  try {
    records = readMirrorSession(mirrorDir, id).records;
  } catch {
    return;
  }
  const ids = new Set(expected.tool_use_ids);
  for (const r of records) {
    if (r.type !== "assistant") continue;
    const content = (r.message as JsonObject).content;
    for (const b of Array.isArray(content) ? content : []) {
      const block = b as JsonObject;
      if (block?.type === "tool_use" && typeof block.id === "string") ids.add(block.id);
    }
  }
  expected.tool_use_ids = [...ids].slice(0, 2000);
  expected.tool_calls = Math.max(expected.tool_calls, ids.size);
}

function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The projects this user recorded Claude sessions in, from the session registry. */
export function registeredProjects(env: Record<string, string | undefined> = process.env): string[] {
  const dir = join(tapedeckHome(env), "registry", sessionDirName("claude"));
  const projects = new Set<string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  for (const name of names) {
    const entry = readJsonOrUndefined<RegistryEntry>(join(dir, name));
    if (entry && typeof entry.project_root === "string") projects.add(entry.project_root);
  }
  return [...projects].sort();
}

/** Every recorded Claude session of these projects whose transcript is lost or damaged. */
export function lostTranscripts(
  projects: readonly string[],
  opts: { claudeHome?: string; mirrorDir?: string } = {},
): { checked: number; lost: TranscriptState[] } {
  let checked = 0;
  const lost: TranscriptState[] = [];
  for (const project of projects) {
    let sessions: SessionRef[] = [];
    try {
      sessions = listSessions(project, "claude");
    } catch {
      continue;
    }
    for (const ref of sessions) {
      const state = transcriptState(ref, project, opts);
      if (!state) continue;
      checked++;
      if (isLost(state)) lost.push(state);
    }
  }
  return { checked, lost };
}

export function renderLost(result: { checked: number; lost: TranscriptState[] }): string {
  if (result.lost.length === 0) {
    return `Transcripts: ${result.checked} recorded Claude session(s) checked, none lost or damaged.\n`;
  }
  const lines = [
    `Transcripts: ${result.lost.length} of ${result.checked} recorded Claude session(s) lost or damaged:`,
    ...result.lost.flatMap((s) => [
      `  ✗ ${printable(s.session_id)}  ${s.finding}: ${printable(s.detail)}`,
      `      ${printable(s.path)}`,
      `      restore: ${printable(s.restore_command ?? "")}`,
    ]),
  ];
  return `${lines.join("\n")}\n`;
}

/** The line `inspect` prints for a Claude session. */
export function renderTranscriptLine(state: TranscriptState): string {
  const restore = state.restore_command ? `\n              restore: ${state.restore_command}` : "";
  return `Transcript    ${state.finding}: ${printable(state.detail)}${printable(restore)}`;
}

/** What `inspect` adds for a Claude session; never fails the inspect it is part of. */
export function inspectTranscript(
  ref: SessionRef,
  project: string,
):
  | { line: string; json: { transcript: Omit<TranscriptState, "comparison"> & { found: unknown } } }
  | undefined {
  try {
    const state = transcriptState(ref, project);
    if (!state) return undefined;
    const { comparison, ...rest } = state;
    return { line: renderTranscriptLine(state), json: { transcript: { ...rest, found: comparison.found } } };
  } catch {
    return undefined;
  }
}
