// The three turns the transcript tests (claude-proxy's restore, claude-restore) run, each its own `claude -p`,
// and how they read the messages of a model request or a transcript record.
import { expect } from "vitest";

/** A command, a failing command, a plain question; and what the mock answers to each. */
export const THREE_TURNS = {
  prompts: ["SCENARIO_BASH echo first", "SCENARIO_FAIL", "third, a plain question"],
  answers: ["Done: first", "Done: Exit code 3\noops", "Mock reply."],
};

/** The three turns through `run` (given the arguments; the later turns resume): the session id. */
export async function threeTurns(
  run: (args: string[]) => Promise<{ json?: { result?: string; session_id?: string } }>,
): Promise<string> {
  let id = "";
  for (const [i, prompt] of THREE_TURNS.prompts.entries()) {
    const res = await run(id ? ["--resume", id, prompt] : [prompt]);
    expect(res.json?.result).toBe(THREE_TURNS.answers[i]);
    id ||= res.json!.session_id!;
    expect(res.json!.session_id).toBe(id);
  }
  return id;
}

/** A content block of a message (a transcript's record of one carries more keys). */
export interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  [key: string]: unknown;
}

/** A message's content as blocks: a string is one text block. */
export function contentBlocks(content: string | Block[] | undefined): Block[] {
  return typeof content === "string"
    ? [{ type: "text", text: content }]
    : Array.isArray(content)
      ? content
      : [];
}

/** A system reminder Claude Code adds to a user turn: not the user's words. */
export const isReminder = (b: Block) => b.type === "text" && (b.text ?? "").startsWith("<system-reminder>");
