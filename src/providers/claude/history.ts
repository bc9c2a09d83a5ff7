// Claude Code's past sessions for `tapedeck import`: where they are and what the records say (history-map.ts).
//
// Layout (2.1.x, measured): `<config>/projects/<cwd slug>/<session id>.jsonl`, and each subagent's own
// transcript in `<session id>/subagents/agent-<agent id>.jsonl` with `agent-<agent id>.meta.json` beside it
// (`{agentType, toolUseId, finished, ...}`). `<config>` is CLAUDE_CONFIG_DIR (ccusage also accepts a
// comma-separated list there), else both `~/.config/claude` (newer installs) and `~/.claude`. The slug loses
// information (every non-alphanumeric character becomes `-`), so a session's project is the `cwd` its records
// carry, never the directory name.
import { basename, join } from "node:path";
import type { DiscoverOptions, HistoryFile, HistoryReader, HistorySession, HistorySkip } from "../history.ts";
import { byFirstAt, isoTime, shortString } from "../history.ts";
import { agentHome, lastTimestampOf, listOwnEntries, peekRecords, readAgentJson } from "../history-files.ts";
import { capabilities } from "../hook-normalizer.ts";
import { isRecord } from "../shared.ts";
import { ClaudeHistoryMapper } from "./history-map.ts";

/** A session id as Claude names its files (a UUID); anything else in the directory is not a transcript. */
const SESSION_FILE = /^([A-Za-z0-9][A-Za-z0-9._-]{0,127})\.jsonl$/;
const AGENT_FILE = /^agent-([A-Za-z0-9][A-Za-z0-9._-]{0,127})\.jsonl$/;
const META_BYTES = 64 * 1024;

export const CLAUDE_HISTORY_CAPABILITIES = capabilities({
  omitKinds: ["session_end"],
  features: [
    "turn_usage:claude-transcript",
    "turn_id:promptId",
    "agent_id:transcript",
    "tool_use_id:transcript",
    "turn_failure:api-error-record",
  ],
});

/** What only Claude's hooks report: the transcript has no record of it. */
export const CLAUDE_NOT_CAPTURED: readonly string[] = Object.freeze([
  "session_end",
  "compaction:pre",
  "permission_request",
  "notification",
  "instructions_loaded",
  "cwd_changed",
  "tool_result:duration_ms",
  "agent_pid",
]);

function configDirs(env: Record<string, string | undefined>): string[] {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  if (configured) {
    return configured
      .split(",")
      .map((d) => d.trim())
      .filter((d) => d !== "");
  }
  if (!env.HOME) return [];
  return [join(env.HOME, ".config", "claude"), join(env.HOME, ".claude")];
}

function discoverClaude(options: DiscoverOptions): HistorySession[] {
  const { skip } = options;
  const homes = new Set<string>();
  for (const dir of configDirs(options.env)) {
    const home = agentHome(dir, skip);
    if (home) homes.add(home);
  }
  const sessions = new Map<string, HistorySession>();
  for (const home of homes) {
    const projects = join(home, "projects");
    for (const slug of listOwnEntries(projects, skip, (_n, isDir) => isDir)) {
      if (!slug.dir) continue;
      for (const found of sessionsIn(slug.path, skip)) {
        // The same session under two config dirs (a copied ~/.claude): the first one found is read.
        if (sessions.has(found.sessionId))
          skip({ source: found.files[0]!.path, reason: "same session found earlier" });
        else sessions.set(found.sessionId, found);
      }
    }
  }
  return [...sessions.values()];
}

function sessionsIn(slugDir: string, skip: (s: HistorySkip) => void): HistorySession[] {
  const entries = listOwnEntries(slugDir, skip, (name, isDir) =>
    isDir ? SESSION_FILE.test(`${name}.jsonl`) : name.endsWith(".jsonl"),
  );
  const out: HistorySession[] = [];
  const dirs = new Set(entries.filter((e) => e.dir).map((e) => e.name));
  const mains = new Set<string>();
  for (const entry of entries) {
    if (entry.dir) continue;
    const id = SESSION_FILE.exec(entry.name)?.[1];
    if (!id) {
      skip({ source: entry.path, reason: "not named like a session" });
      continue;
    }
    mains.add(id);
    const session = look(id, { path: entry.path, role: "main" }, basename(slugDir), skip);
    if (!session) continue;
    if (dirs.has(id)) session.files.push(...subagentFiles(join(slugDir, id), skip));
    out.push(session);
  }
  // Subagents whose session transcript is gone: still that session's.
  for (const id of dirs) {
    if (mains.has(id)) continue;
    const subs = subagentFiles(join(slugDir, id), skip);
    const first = subs[0];
    if (!first) continue;
    const session = look(id, first, basename(slugDir), skip);
    if (session) {
      session.files.push(...subs.slice(1));
      out.push(session);
    }
  }
  return out;
}

/** How deep subagents' folders go: `subagents/`, then a workflow's `workflows/<run>/`, and a little more. */
const SUBAGENT_DEPTH = 4;

/**
 * Every subagent's transcript of a session: `subagents/agent-<id>.jsonl` and, at any depth below it, those of
 * Claude's workflows (`subagents/workflows/<run>/agent-<id>.jsonl`): all the session's, each with its own id.
 */
function subagentFiles(sessionDir: string, skip: (s: HistorySkip) => void): HistoryFile[] {
  const entries = listOwnEntries(sessionDir, skip, (name) => name === "subagents");
  if (!entries.some((e) => e.dir)) return [];
  const files: HistoryFile[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of listOwnEntries(dir, skip, (name, isDir) => isDir || name.endsWith(".jsonl"))) {
      if (entry.dir) {
        if (depth < SUBAGENT_DEPTH) walk(entry.path, depth + 1);
        continue;
      }
      const agentId = AGENT_FILE.exec(entry.name)?.[1];
      if (!agentId) {
        skip({ source: entry.path, reason: "not named like a subagent's transcript (agent-<id>.jsonl)" });
        continue;
      }
      const file: HistoryFile = {
        path: entry.path,
        role: "subagent",
        agentId,
        meta: join(dir, `agent-${agentId}.meta.json`),
      };
      peekRecords(entry.path, skip, (record) => {
        file.firstAt = isoTime(record.timestamp);
        return file.firstAt === undefined;
      });
      files.push(file);
    }
  };
  walk(join(sessionDir, "subagents"), 1);
  return files.sort(byFirstAt);
}

/** The session's cwd and first time from its first records, its last time from the file's tail. */
function look(
  id: string,
  file: HistoryFile,
  folder: string,
  skip: (s: HistorySkip) => void,
): HistorySession | undefined {
  let cwd: string | null = null;
  let firstAt: string | undefined;
  const opened = peekRecords(file.path, skip, (record) => {
    firstAt ??= isoTime(record.timestamp);
    const recorded = shortString(record.cwd, 4096);
    if (recorded?.startsWith("/")) cwd = recorded;
    return cwd === null || firstAt === undefined;
  });
  if (!opened) return undefined;
  const session: HistorySession = { provider: "claude", sessionId: id, cwd, files: [file], folder };
  if (firstAt !== undefined) session.firstAt = firstAt;
  const lastAt = isoTime(lastTimestampOf(file.path));
  if (lastAt !== undefined) session.lastAt = lastAt;
  return session;
}

/** A subagent's type from its meta file (a small JSON file Claude writes beside the transcript), if readable. */
function agentTypeOf(file: HistoryFile): string | undefined {
  if (!file.meta) return undefined;
  const meta = readAgentJson(file.meta, META_BYTES);
  return isRecord(meta) ? shortString(meta.agentType) : undefined;
}

/**
 * Claude's folder for a project: its cwd with every character but a letter or digit made `-` (lossy: `a.b` and
 * `a-b` share one). A folder that is no such name (not made from an absolute path) names no project.
 */
export function claudeSlug(dir: string): string {
  return dir.replace(/[^a-zA-Z0-9]/g, "-");
}

function folderFits(session: HistorySession, dir: string): boolean | undefined {
  if (session.folder === undefined || !session.folder.startsWith("-")) return undefined;
  return session.folder === claudeSlug(dir);
}

export const claudeHistory: HistoryReader = {
  discover: discoverClaude,
  folderFits,
  mapper: (session, file, state, run) =>
    new ClaudeHistoryMapper(
      session,
      file,
      file.role === "subagent" ? agentTypeOf(file) : undefined,
      state,
      run,
    ),
  capabilities: CLAUDE_HISTORY_CAPABILITIES,
  notCaptured: CLAUDE_NOT_CAPTURED,
  ownHooks: [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "StopFailure",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
  ],
  ownStartSources: ["import"],
};
