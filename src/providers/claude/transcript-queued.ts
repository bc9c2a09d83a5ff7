// Prompts the user typed while Claude was busy, from Claude Code's transcript.
//
// Claude (2.1.x, measured under a pty) queues a prompt typed mid-turn or while a Stop hook runs and fires no
// UserPromptSubmit for it: the transcript is the only trace. It writes a `queue-operation` record
// ({operation: "enqueue", content}) when the prompt is typed, then, when the turn absorbs it, an `attachment`
// record {uuid, parentUuid, attachment: {type: "queued_command", prompt, source_uuid, commandMode: "prompt",
// origin: {kind: "human"}, timestamp}}. Only the attachment says the model got the prompt and carries a
// stable uuid, so it is what becomes a user_prompt.
// A prompt typed while a Stop hook runs is not taken in mid-turn: it starts the next turn. Then the queue says
// only {operation: "dequeue"} (no content, no id), and the prompt is the next `user` record, with its own
// promptId, again without a UserPromptSubmit; that record becomes the user_prompt. Print mode (-p) queues
// every prompt this way too, but fires UserPromptSubmit: the event id is then the hook's (promptEventId).
import { contentText } from "../content-text.ts";
import { isRecord } from "../shared.ts";

export interface QueuedPrompt {
  /** The attachment record's uuid: a re-read yields the same event id. */
  uuid: string;
  parent_uuid?: string;
  prompt: string;
  /** When the user typed it. */
  timestamp?: string;
  source_uuid?: string;
  /** Set when the prompt starts a turn of its own (dequeued): that turn's prompt id. */
  prompt_id?: string;
}

/** Cheap byte test before a parse: attachments include the big prompt snapshots. */
export function mayBeQueuedPrompt(line: Buffer): boolean {
  return line.includes('"queued_command"') || line.includes('"queue-operation"');
}

export function isDequeue(record: Record<string, unknown>): boolean {
  return record.type === "queue-operation" && record.operation === "dequeue";
}

/**
 * Claude's own user records (a compaction summary, a caveat) and a local slash command's echo (`/compact`
 * queued in print mode: it runs in Claude Code and never reaches the model, and the compaction events say it).
 */
const NOT_A_PROMPT = /^\s*<(command-name|local-command-[a-z]+)>/;

/** A `user` record that follows a dequeue: the prompt, unless it is a tool result or Claude's own note. */
export function dequeuedPromptFromUser(record: Record<string, unknown>): QueuedPrompt | undefined {
  if (record.type !== "user" || record.isMeta === true) return undefined;
  if (record.isCompactSummary === true || record.isVisibleInTranscriptOnly === true) return undefined;
  if (typeof record.uuid !== "string" || record.uuid === "" || !isRecord(record.message)) return undefined;
  const content = record.message.content;
  if (Array.isArray(content) && content.some((b) => isRecord(b) && b.type === "tool_result"))
    return undefined;
  const prompt = contentText(content);
  if (prompt === undefined || NOT_A_PROMPT.test(prompt)) return undefined;
  const queued: QueuedPrompt = { uuid: record.uuid, prompt };
  if (typeof record.parentUuid === "string") queued.parent_uuid = record.parentUuid;
  if (typeof record.timestamp === "string") queued.timestamp = record.timestamp;
  if (typeof record.promptId === "string" && record.promptId !== "") queued.prompt_id = record.promptId;
  return queued;
}

export function queuedPromptFromRecord(record: Record<string, unknown>): QueuedPrompt | undefined {
  if (record.type !== "attachment" || typeof record.uuid !== "string" || record.uuid === "") return undefined;
  const att = record.attachment;
  if (!isRecord(att) || att.type !== "queued_command") return undefined;
  // Task notifications and other machine-made commands travel the same queue; only a human's prompt is one.
  if (att.commandMode !== undefined && att.commandMode !== "prompt") return undefined;
  if (isRecord(att.origin) && att.origin.kind !== undefined && att.origin.kind !== "human") return undefined;
  const prompt = contentText(att.prompt);
  if (prompt === undefined) return undefined;
  const queued: QueuedPrompt = { uuid: record.uuid, prompt };
  if (typeof record.parentUuid === "string") queued.parent_uuid = record.parentUuid;
  const at = typeof att.timestamp === "string" ? att.timestamp : record.timestamp;
  if (typeof at === "string") queued.timestamp = at;
  if (typeof att.source_uuid === "string") queued.source_uuid = att.source_uuid;
  return queued;
}
