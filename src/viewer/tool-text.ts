// How a tool call and its result read on one line or in an excerpt: what it was called with (the command,
// path or pattern), what it returned (stdout and stderr, text blocks, a file tool's change), its exit code.
import { TOOL_SUBJECT_FIELDS } from "../core/read/tool-subject.ts";
import type { Excerpt } from "./turn-shape.ts";

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** A text cut to `max` characters (never inside a surrogate pair), with how much was left out. */
export function excerpt(text: string, max: number | null): Excerpt {
  if (max === null || text.length <= max) return { text, omitted_chars: 0 };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), omitted_chars: text.length - end };
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function compactJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return "";
  }
}

/** What a tool was called with, as one line: the command, path, pattern or prompt when it names one. */
export function inputSummary(input: unknown, max = 160): string {
  if (typeof input === "string") return oneLine(input, max);
  if (input === null || typeof input !== "object") return "";
  const i = input as Record<string, unknown>;
  const command = i.command ?? i.cmd;
  if (Array.isArray(command)) return oneLine(command.map(String).join(" "), max);
  for (const key of ["command", "cmd", ...TOOL_SUBJECT_FIELDS]) {
    const v = key === "command" || key === "cmd" ? command : i[key];
    if (typeof v === "string" && v.length > 0) {
      const extra = key === "file_path" || key === "path" ? (str(i.pattern) ?? "") : "";
      return oneLine(extra ? `${v} ${extra}` : v, max);
    }
  }
  return oneLine(compactJson(input), max);
}

/** The text a tool returned: stdout and stderr, text blocks, or the JSON of whatever else it is. */
export function resultText(response: unknown): string {
  if (response === undefined || response === null) return "";
  if (typeof response === "string") return response;
  if (Array.isArray(response)) {
    const texts = response.map((b) =>
      b && typeof b === "object" ? str((b as { text?: unknown }).text) : undefined,
    );
    if (texts.every((t) => t !== undefined)) return texts.join("\n");
    return JSON.stringify(response, null, 2);
  }
  if (typeof response === "object") {
    const r = response as Record<string, unknown>;
    const stdout = str(r.stdout);
    const stderr = str(r.stderr);
    if (stdout !== undefined || stderr !== undefined) {
      return [stdout, stderr ? `[stderr]\n${stderr}` : undefined].filter((s) => s).join("\n");
    }
    const file = fileResultText(r);
    if (file !== undefined) return file;
    // Gemini's {llmContent, returnDisplay}: what the user saw, else what the model was given.
    if ("llmContent" in r || "returnDisplay" in r) {
      const shown = str(r.returnDisplay);
      if (shown !== undefined) return shown;
      if (r.llmContent !== undefined) return resultText(r.llmContent);
    }
    if (Array.isArray(r.content)) return resultText(r.content);
    for (const key of ["output", "text", "result", "message"]) if (typeof r[key] === "string") return r[key];
  }
  return JSON.stringify(response, null, 2) ?? "";
}

function lineCount(text: string): number {
  return text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
}

/**
 * Claude Code's file tools answer with objects (Write: {type, filePath, content, structuredPatch,
 * originalFile}; Edit: {filePath, oldString, newString, structuredPatch}; Read: {type, file{filePath,
 * numLines, startLine, totalLines}}): a line that says what happened to which file, and for a change its
 * hunks, instead of the object's raw JSON.
 */
function fileResultText(r: Record<string, unknown>): string | undefined {
  const read = r.file as Record<string, unknown> | undefined;
  if (read && typeof read === "object" && typeof read.filePath === "string") {
    const start = typeof read.startLine === "number" ? read.startLine : 1;
    const n = typeof read.numLines === "number" ? read.numLines : lineCount(str(read.content) ?? "");
    const total = typeof read.totalLines === "number" ? ` of ${read.totalLines}` : "";
    return `read ${read.filePath} (lines ${start}–${start + Math.max(0, n - 1)}${total})`;
  }
  const path = str(r.filePath);
  if (path === undefined || !(Array.isArray(r.structuredPatch) || r.type === "create")) return undefined;
  if (r.type === "create") return `created ${path} (${lineCount(str(r.content) ?? "")} lines)`;
  const hunks = (Array.isArray(r.structuredPatch) ? r.structuredPatch : []).flatMap((h) =>
    h && typeof h === "object" && Array.isArray((h as { lines?: unknown }).lines)
      ? ((h as { lines: unknown[] }).lines.filter((l) => typeof l === "string") as string[])
      : [],
  );
  const added = hunks.filter((l) => l.startsWith("+")).length;
  const removed = hunks.filter((l) => l.startsWith("-")).length;
  return [`updated ${path}: +${added} −${removed} line${added + removed === 1 ? "" : "s"}`, ...hunks].join(
    "\n",
  );
}

/** An exit code the payload states, or the one in Claude's "Exit code N" error text. */
export function exitCode(p: Record<string, unknown>): number | null {
  if (typeof p.exit_code === "number" && Number.isInteger(p.exit_code)) return p.exit_code;
  const r = p.tool_response as Record<string, unknown> | undefined;
  if (r && typeof r === "object" && typeof r.exit_code === "number") return r.exit_code as number;
  // Gemini's shell tool: an `Exit Code: N` line in what the model was given.
  const gemini =
    r && typeof r === "object" ? /^Exit Code: (-?\d{1,10})$/m.exec(str(r.llmContent) ?? "") : null;
  if (gemini) return Number.parseInt(gemini[1]!, 10);
  const m = /^Exit code:? (-?\d{1,10})\b/i.exec(str(p.error) ?? "");
  return m ? Number.parseInt(m[1]!, 10) : null;
}

function ms(at: string | null): number {
  return at ? Date.parse(at) : Number.NaN;
}

/** The milliseconds between two timestamps; null when either is missing. */
export function between(a: string | null, b: string | null): number | null {
  const d = ms(b) - ms(a);
  return Number.isFinite(d) ? d : null;
}
