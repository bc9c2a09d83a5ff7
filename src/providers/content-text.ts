// The text of a message's content as Claude's transcript and Codex's rollout write it: a string, or content
// blocks whose `text` parts are joined (a pasted image comes with text blocks). Hot path (Claude's queued
// prompts): node built-ins only.
import { isRecord } from "./shared.ts";

/** The content's text, or undefined when it has none. */
export function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.filter(isRecord).flatMap((b) => (typeof b.text === "string" ? [b.text] : []));
  return texts.length > 0 ? texts.join("\n") : undefined;
}
