// Gemini CLI's past sessions for `tapedeck import`: `<home>/.gemini/tmp/<project slug>/chats/session-<time>-<id
// prefix>.jsonl`, where `<home>` is GEMINI_CLI_HOME or HOME (0.61). Which project a slug stands for is in the
// slug directory's `.project_root` file (the project's path), else in `~/.gemini/projects.json`
// (`{"projects": {"<path>": "<slug>"}}`). A resume appends to the same file (its start, in a later minute, to a
// file of its own: joinFiles). What the records become:
// history-map.ts.
import { join } from "node:path";
import type { DiscoverOptions, HistoryFile, HistoryReader, HistorySession, HistorySkip } from "../history.ts";
import { byFirstAt, isoTime, shortString } from "../history.ts";
import {
  agentHome,
  lastTimestampOf,
  listOwnEntries,
  peekRecords,
  readAgentJson,
  readAgentText,
} from "../history-files.ts";
import { capabilities } from "../hook-normalizer.ts";
import { isRecord } from "../shared.ts";
import { GeminiHistoryMapper } from "./history-map.ts";

const SMALL_FILE = 1024 * 1024;

export const GEMINI_HISTORY_CAPABILITIES = capabilities({
  omitKinds: ["session_end", "subagent_start", "subagent_stop"],
  features: [
    "turn_usage:gemini-chat",
    "tool_use_id:chat-tool-call-id",
    "tool_error:llm-content",
    "compaction:state_snapshot",
  ],
});

/** What only Gemini's hooks report. */
export const GEMINI_NOT_CAPTURED: readonly string[] = Object.freeze([
  "session_end",
  "notification",
  "turn_usage:unfinished-responses",
]);

function geminiDir(env: Record<string, string | undefined>): string | undefined {
  const home = env.GEMINI_CLI_HOME?.trim() || env.HOME;
  return home ? join(home, ".gemini") : undefined;
}

/** slug -> project path, from projects.json. */
function projectsBySlug(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const parsed = readAgentJson(join(dir, "projects.json"), SMALL_FILE);
  const projects = isRecord(parsed) && isRecord(parsed.projects) ? parsed.projects : {};
  for (const [path, slug] of Object.entries(projects)) {
    if (typeof slug === "string" && path.startsWith("/")) out.set(slug, path);
  }
  return out;
}

function projectOf(slugDir: string, slug: string, known: Map<string, string>): string | null {
  const text = readAgentText(join(slugDir, ".project_root"), 8192)?.trim();
  if (text?.startsWith("/") && !text.includes("\n")) return text;
  return known.get(slug) ?? null;
}

function discoverGemini(options: DiscoverOptions): HistorySession[] {
  const dir = agentHome(geminiDir(options.env), options.skip);
  if (!dir) return [];
  const known = projectsBySlug(dir);
  const sessions = new Map<string, HistorySession>();
  for (const slug of listOwnEntries(join(dir, "tmp"), options.skip, (_n, isDir) => isDir)) {
    if (!slug.dir) continue;
    const cwd = projectOf(slug.path, slug.name, known);
    const chats = join(slug.path, "chats");
    if (!listOwnEntries(slug.path, options.skip, (name) => name === "chats").some((e) => e.dir)) continue;
    for (const chat of listOwnEntries(
      chats,
      options.skip,
      (name) => name.endsWith(".jsonl") || name.endsWith(".json"),
    )) {
      if (chat.dir) continue;
      const session = chat.name.endsWith(".json")
        ? lookDocument(chat.path, cwd, options.skip)
        : look(chat.path, cwd, options.skip);
      if (!session) continue;
      const earlier = sessions.get(session.sessionId);
      if (!earlier) sessions.set(session.sessionId, session);
      else joinFiles(earlier, session);
    }
  }
  return [...sessions.values()];
}

/**
 * One session in two files, read as one: a copy, or a resume that started in a later minute than the resumed
 * file's name (Gemini 0.61 writes that start's header into a file named for its own minute). Earliest first:
 * the first is the session's own, each other is read where the session reaches its first time, so a resume's
 * start sits before the turn it began.
 */
function joinFiles(session: HistorySession, other: HistorySession): void {
  session.files.push(...other.files);
  session.files.sort(byFirstAt);
  if (other.firstAt !== undefined && (session.firstAt === undefined || other.firstAt < session.firstAt))
    session.firstAt = other.firstAt;
  if ((other.lastAt ?? "") > (session.lastAt ?? "")) session.lastAt = other.lastAt;
}

function look(path: string, cwd: string | null, skip: (s: HistorySkip) => void): HistorySession | undefined {
  let id: string | undefined;
  let firstAt: string | undefined;
  const opened = peekRecords(path, skip, (record) => {
    id = shortString(record.sessionId);
    firstAt = isoTime(record.startTime) ?? isoTime(record.timestamp);
    return false;
  });
  if (!opened) return undefined;
  if (id === undefined) {
    skip({ source: path, reason: "no session header first (not a chat file Gemini CLI 0.6x writes)" });
    return undefined;
  }
  const file: HistoryFile = { path, role: "main" };
  const session: HistorySession = { provider: "gemini", sessionId: id, cwd, files: [file] };
  if (firstAt !== undefined) {
    file.firstAt = firstAt;
    session.firstAt = firstAt;
  }
  const lastAt = isoTime(lastTimestampOf(path));
  if (lastAt !== undefined) session.lastAt = lastAt;
  return session;
}

/** A chat file is small (a session's text); a document past this is not read whole. */
export const GEMINI_DOCUMENT_BYTES = 256 * 1024 * 1024;

/** An older chat file (one JSON document): its id and times from the document itself. */
function lookDocument(
  path: string,
  cwd: string | null,
  skip: (s: HistorySkip) => void,
): HistorySession | undefined {
  const doc = readAgentJson(path, GEMINI_DOCUMENT_BYTES);
  const id = isRecord(doc) ? shortString(doc.sessionId) : undefined;
  if (!isRecord(doc) || id === undefined || !Array.isArray(doc.messages)) {
    skip({
      source: path,
      reason:
        doc === undefined
          ? "not JSON, unreadable or larger than 256 MiB: not a chat file Gemini CLI wrote"
          : "a JSON document without sessionId and messages: not a chat file Gemini CLI wrote",
    });
    return undefined;
  }
  const file: HistoryFile = { path, role: "main", format: "json" };
  const session: HistorySession = { provider: "gemini", sessionId: id, cwd, files: [file] };
  const firstAt = isoTime(doc.startTime);
  if (firstAt !== undefined) {
    file.firstAt = firstAt;
    session.firstAt = firstAt;
  }
  const times = doc.messages.map((m) => (isRecord(m) ? isoTime(m.timestamp) : undefined)).filter(Boolean);
  const lastAt = isoTime(doc.lastUpdated) ?? (times[times.length - 1] as string | undefined);
  if (lastAt !== undefined) session.lastAt = lastAt;
  return session;
}

export const geminiHistory: HistoryReader = {
  discover: discoverGemini,
  mapper: (session, file, state) => new GeminiHistoryMapper(session, file, session.cwd, state),
  capabilities: GEMINI_HISTORY_CAPABILITIES,
  notCaptured: GEMINI_NOT_CAPTURED,
  ownHooks: ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "PreCompress"],
  ownStartSources: ["import", "resume"],
};
