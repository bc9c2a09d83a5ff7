// Puts a mirrored session back where Claude Code looks for it,
// `<claudeHome>/projects/<slug>/<session-id>.jsonl`, so that
// `claude --resume <id>` works again after Claude Code lost or stubbed its
// own transcript.
//
// What resume needs from a transcript (from Claude Code 2.1.332's own files):
// `user`/`assistant` records linked by parentUuid from a root (parentUuid
// null) to a leaf, each with sessionId and cwd; a `last-prompt` record naming
// the leaf; and the `attachment` records whose `rendered` text it replays as
// the system-role context of each turn (without them a resumed request
// carries an empty system message). Everything else (api-request,
// cost-state, hook results, ...) is harness bookkeeping that resume rebuilds
// or does without. So the restore:
//   - concatenates the main-thread mirror files oldest first: user, assistant
//     and mirrored system-context attachment records (subagent files
//     stay out: Claude Code keeps those in a separate sidechain file),
//   - relinks the records into one linear chain in file order,
//   - sets cwd (the project, which the proxy never saw) and sessionId,
//   - splits each assistant message into one record per content block, as
//     Claude Code writes them (same message.id, apiBlockIndex = block index),
//   - drops what the API would reject on resume: thinking without a signature
//     and tool inputs that never finished (both only in interrupted partials),
//     tool_use without a mirrored tool_result and tool_result without a
//     mirrored tool_use (mirror started mid-session, or a divergent history),
//     and records left empty by that,
//   - drops the mirror's null placeholders (absent is what Claude Code's
//     readers already handle: older transcripts lack those keys),
//   - adds sourceToolAssistantUUID to tool results and a final `last-prompt`.
import { constants as bufferConstants } from "node:buffer";
import {
  constants,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  unlinkSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { sessionDirName } from "../../../core/archive/paths.ts";
import {
  DIR_MODE,
  lstatOrUndefined,
  ownedByUser,
  readRegularFileSync,
  writeTempSibling,
} from "../../../core/base/fsutil.ts";
import { type Json, type JsonObject, setOwn } from "../../../core/base/json.ts";
import { readAgentFileText } from "../../agent-file.ts";
import { isRecord } from "../../shared.ts";
import { syntheticUuid } from "./envelope.ts";
import { loadMirrorSettings } from "./settings.ts";
import { compareMirrorFiles, fileStamp, legacyMirrorDirName, mirrorDirName } from "./writer.ts";

export interface RestoreOptions {
  sessionId: string;
  /** The project the session ran in; its realpath names the transcript directory. */
  projectDir: string;
  /** Default `~/.claude`. */
  claudeHome?: string;
  /** Default: the configured mirror root (TAPEDECK_MIRROR_DIR, config file, `~/.claude/session-mirrors`). */
  mirrorDir?: string;
  /** Replace an existing transcript, after backing it up to `<path>.bak-<timestamp>`. */
  force?: boolean;
  now?: () => number;
}

export interface RestoreResult {
  path: string;
  /** Lines written, including the closing `last-prompt` record. */
  records: number;
  backup?: string;
  /** Mirror files read. */
  files: number;
  /** Lines of the mirror that were not valid JSON records (a torn last line, say). */
  skippedLines: number;
}

export class RestoreError extends Error {
  override name = "RestoreError";
  constructor(
    readonly code: "unsafe_id" | "not_found" | "exists" | "unsafe_path",
    message: string,
  ) {
    super(message);
  }
}

/** Claude Code's project slug: the realpath with every non-alphanumeric character turned into `-`. */
export function claudeProjectSlug(projectDir: string): string {
  return realpathSync(projectDir).replace(/[^a-zA-Z0-9]/g, "-");
}

/** A ref name is short; a .git/HEAD bigger than this is not one git wrote. */
const HEAD_MAX_BYTES = 64 * 1024;
/** A mirror file is read as one string: a file past V8's longest string could not be anyway. */
const MAX_STRING_LENGTH = bufferConstants.MAX_STRING_LENGTH;

/** The checked-out branch, read from .git/HEAD without running git; undefined when detached or not a repo. */
function gitBranch(projectDir: string): string | undefined {
  try {
    const head = readAgentFileText(join(projectDir, ".git", "HEAD"), HEAD_MAX_BYTES).trim();
    const m = /^ref: refs\/heads\/(.+)$/.exec(head);
    return m?.[1];
  } catch {
    return undefined;
  }
}

interface ReadMirror {
  records: JsonObject[];
  files: number;
  skippedLines: number;
}

/**
 * The session's mirror files, oldest first. A credential-like id was once
 * mirrored under its raw name: that directory is still read, before the
 * current one (the writer switched to the stored name later in time).
 */
function mirrorFiles(mirrorDir: string, sessionId: string): string[] | undefined {
  const names = [legacyMirrorDirName(sessionId), mirrorDirName(sessionId)];
  const dirs = [...new Set(names)]
    .map((name) => join(mirrorDir, name))
    .filter((dir) => lstatOrUndefined(dir)?.isDirectory());
  if (dirs.length === 0) return undefined;
  return dirs.flatMap((dir) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
      .map((e) => e.name)
      .sort(compareMirrorFiles)
      .map((name) => join(dir, name)),
  );
}

export function readMirrorSession(mirrorDir: string, sessionId: string): ReadMirror {
  const files = mirrorFiles(mirrorDir, sessionId);
  if (!files) throw new RestoreError("not_found", `no mirror for session ${sessionId}`);
  if (files.length === 0) throw new RestoreError("not_found", `no mirror files for session ${sessionId}`);
  const records: JsonObject[] = [];
  let skippedLines = 0;
  for (const file of files) {
    // Our own file: never through a symlink, and a FIFO planted in the mirror is refused instead of waited on.
    const text = readRegularFileSync(file, MAX_STRING_LENGTH).toString("utf8");
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const rec = JSON.parse(line) as unknown;
        const message =
          isRecord(rec) && (rec.type === "user" || rec.type === "assistant") && isRecord(rec.message);
        const attachment = isRecord(rec) && rec.type === "attachment" && Array.isArray(rec.rendered);
        if (message || attachment) {
          records.push(rec as JsonObject);
        } else {
          skippedLines++;
        }
      } catch {
        skippedLines++;
      }
    }
  }
  return { records, files: files.length, skippedLines };
}

function blocksOf(rec: JsonObject): unknown[] | undefined {
  const content = (rec.message as JsonObject).content;
  return Array.isArray(content) ? content : undefined;
}

function lastPromptText(rec: JsonObject): string | undefined {
  const content = (rec.message as JsonObject).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text: string | undefined;
  for (const b of content) {
    if (
      isRecord(b) &&
      b.type === "text" &&
      typeof b.text === "string" &&
      !b.text.startsWith("<system-reminder>")
    ) {
      text = b.text;
    }
  }
  return text;
}

function keepAssistantBlock(block: unknown, answered: Set<string>): boolean {
  if (!isRecord(block)) return false;
  if (block.type === "thinking") return typeof block.signature === "string" && block.signature !== "";
  if (block.type === "tool_use" || block.type === "server_tool_use" || block.type === "mcp_tool_use") {
    if (!isRecord(block.input)) return false;
    // Client tool calls need their result in the next user message; server tools answer inline.
    if (block.type === "tool_use") return typeof block.id === "string" && answered.has(block.id);
  }
  return true;
}

/** Claude Code writes sourceToolAssistantUUID right after the record's timestamp. */
function withSourceTool(rec: JsonObject, owner: string | null): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(rec)) {
    setOwn(out, k, v);
    if (k === "timestamp") out.sourceToolAssistantUUID = owner;
  }
  if (!("sourceToolAssistantUUID" in out)) out.sourceToolAssistantUUID = owner;
  return out;
}

/** Mirror records to the records of a resumable Claude Code transcript. */
export function toTranscript(
  mirror: readonly JsonObject[],
  opts: { sessionId: string; cwd: string; gitBranch?: string },
): JsonObject[] {
  // Which tool calls have a mirrored result, and which results a mirrored call.
  const answered = new Set<string>();
  for (const rec of mirror) {
    if (rec.type !== "user") continue;
    for (const b of blocksOf(rec) ?? []) {
      if (isRecord(b) && b.type === "tool_result" && typeof b.tool_use_id === "string")
        answered.add(b.tool_use_id);
    }
  }

  const out: JsonObject[] = [];
  const seen = new Set<string>();
  const toolOwner = new Map<string, string>();
  let parent: string | null = null;
  let lastPrompt: string | undefined;

  const fixed: JsonObject = { isSidechain: false, cwd: opts.cwd, sessionId: opts.sessionId };
  if (opts.gitBranch !== undefined) fixed.gitBranch = opts.gitBranch;
  // Rewrites in place, so the keys keep the order Claude Code writes them in.
  const base = (rec: JsonObject): JsonObject => {
    const r: JsonObject = {};
    for (const [k, v] of Object.entries(rec)) {
      // A mirrored record's own keys, `constructor` or `__proto__` too, are fields to keep, not Object's members.
      if (k === "parentUuid") r[k] = parent;
      else if (Object.hasOwn(fixed, k)) r[k] = fixed[k] as JsonObject[string];
      else if (v !== null) setOwn(r, k, v);
    }
    return r;
  };

  for (const rec of mirror) {
    const uuid = typeof rec.uuid === "string" ? rec.uuid : undefined;
    if (uuid === undefined || seen.has(uuid)) continue;
    seen.add(uuid);
    if (rec.type === "attachment") {
      out.push(base(rec));
      parent = uuid;
      continue;
    }
    const message = rec.message as JsonObject;

    if (rec.type === "user") {
      let content: Json = message.content ?? null;
      let firstResult: string | undefined;
      if (Array.isArray(content)) {
        content = content.filter((b) => {
          if (!(isRecord(b) && b.type === "tool_result")) return true;
          const id = typeof b.tool_use_id === "string" ? b.tool_use_id : "";
          if (!toolOwner.has(id)) return false;
          firstResult ??= id;
          return true;
        });
        if (content.length === 0) continue;
      }
      let r = base(rec);
      r.message = { ...message, content };
      if (firstResult !== undefined) r = withSourceTool(r, toolOwner.get(firstResult) ?? null);
      else lastPrompt = lastPromptText(r) ?? lastPrompt;
      out.push(r);
      parent = uuid;
      continue;
    }

    const blocks = (blocksOf(rec) ?? [])
      .map((block, index) => ({ block, index }))
      .filter(({ block }) => keepAssistantBlock(block, answered));
    blocks.forEach(({ block, index }, i) => {
      const last = i === blocks.length - 1;
      // The last split record keeps the mirror's uuid; the others get ids derived from it.
      const id = last
        ? uuid
        : syntheticUuid(opts.sessionId, String(rec.timestamp ?? ""), `${uuid}:block:${index}`);
      const r = base(rec);
      r.message = { ...message, content: [block as JsonObject] };
      r.apiBlockIndex = index;
      // Key order as Claude Code writes it: apiBlockIndex right after message.
      const ordered: JsonObject = {};
      for (const [k, v] of Object.entries(r)) {
        if (k === "apiBlockIndex") continue;
        setOwn(ordered, k, v);
        if (k === "message") ordered.apiBlockIndex = index;
      }
      ordered.uuid = id;
      out.push(ordered);
      const b = block as JsonObject;
      if (b.type === "tool_use" && typeof b.id === "string") toolOwner.set(b.id, id);
      parent = id;
    });
  }

  if (out.length > 0 && lastPrompt !== undefined) {
    out.push({ type: "last-prompt", lastPrompt, leafUuid: parent, sessionId: opts.sessionId });
  }
  return out;
}

export function restoreMirror(opts: RestoreOptions): RestoreResult {
  const { sessionId } = opts;
  // The id becomes a file name in Claude Code's tree: only the safe charset, as Claude Code's own UUIDs are.
  if (sessionId === "" || sessionDirName(sessionId) !== sessionId) {
    throw new RestoreError("unsafe_id", "session id must use only letters, digits, '.', '_' and '-'");
  }
  const mirrorDir = opts.mirrorDir ?? loadMirrorSettings().settings.dir;
  const claudeHome = opts.claudeHome ?? join(homedir(), ".claude");
  const now = opts.now ?? Date.now;

  const mirror = readMirrorSession(mirrorDir, sessionId);
  const cwd = realpathSync(opts.projectDir);
  const branch = gitBranch(cwd);
  const records = toTranscript(mirror.records, {
    sessionId,
    cwd,
    ...(branch !== undefined ? { gitBranch: branch } : {}),
  });
  if (records.length === 0) throw new RestoreError("not_found", `mirror of ${sessionId} holds no messages`);

  const dir = join(claudeHome, "projects", claudeProjectSlug(cwd));
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const dirSt = lstatSync(dir);
  if (dirSt.isSymbolicLink()) throw new RestoreError("unsafe_path", `${dir} is a symlink`);
  if (!ownedByUser(dirSt)) {
    throw new RestoreError(
      "unsafe_path",
      `${dir} belongs to another user; tapedeck writes only into your own directories`,
    );
  }
  const path = join(dir, `${sessionId}.jsonl`);

  const existing = lstatOrUndefined(path);
  let backup: string | undefined;
  if (existing) {
    if (!opts.force) {
      throw new RestoreError("exists", `${path} exists; pass --force to replace it (a backup is kept)`);
    }
    if (!existing.isFile()) throw new RestoreError("unsafe_path", `${path} is not a regular file`);
    backup = `${path}.bak-${fileStamp(now())}`;
    copyFileSync(path, backup, constants.COPYFILE_EXCL);
  }

  const data = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  const tmp = writeTempSibling(path, data);
  try {
    if (opts.force) {
      renameSync(tmp, path);
    } else {
      // link() fails if the name exists, so a transcript that appeared meanwhile is never replaced.
      linkSync(tmp, path);
      unlinkSync(tmp);
    }
  } catch (error) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new RestoreError("exists", `${path} exists; pass --force to replace it (a backup is kept)`);
    }
    throw error;
  }
  const result: RestoreResult = {
    path,
    records: records.length,
    files: mirror.files,
    skippedLines: mirror.skippedLines,
  };
  if (backup !== undefined) result.backup = backup;
  return result;
}
