// `memory edit`: a new title or text for an item the user promoted. What the user types goes through what a
// promoted event goes through (tapedeck's marker stripped, redacted with the project's current rules, bounded
// to 4 KiB, the title to one line of 100 characters); the item keeps its id, kind and source (the session and
// events it came from), so `memory verify` and the injections recorded with its id still point at it.
import { EXIT, UserError } from "../../core/base/user-error.ts";
import { boundBody, type MemoryItem } from "./item-shape.ts";
import { boundTitle, cleanText } from "./item-text.ts";
import { currentRules } from "./promote.ts";
import type { MemoryStore } from "./store.ts";

export interface EditChange {
  title?: string;
  text?: string;
}

export interface EditResult {
  before: MemoryItem;
  after: MemoryItem;
  changed: boolean;
}

/** The item as it would be after the change: redacted and bounded exactly as it will be stored. */
export function previewEdit(projectRoot: string, before: MemoryItem, change: EditChange): MemoryItem {
  const rules = currentRules(projectRoot);
  const title = change.title === undefined ? before.title : boundTitle(cleanText(change.title, rules));
  if (change.text === undefined) return { ...before, title };
  const text = cleanText(change.text, rules);
  if (text.trim() === "")
    throw new UserError("an item's text cannot be empty (memory forget removes it)", EXIT.usage);
  const { body, truncated } = boundBody(text);
  return { ...before, title, body, truncated };
}

export function editItem(
  store: MemoryStore,
  projectRoot: string,
  id: string,
  change: EditChange,
  now = new Date(),
): EditResult {
  const before = store.get([id])[0];
  if (!before) throw new UserError(`no memory item ${id}`, EXIT.notFound);
  const next = previewEdit(projectRoot, before, change);
  if (next.title === before.title && next.body === before.body)
    return { before, after: before, changed: false };
  const after = store.edit(id, {
    title: next.title,
    body: next.body,
    truncated: next.truncated,
    editedAt: now.toISOString(),
  });
  // Forgotten by someone else between the read and the write.
  if (!after) throw new UserError(`no memory item ${id}`, EXIT.notFound);
  return { before, after, changed: true };
}

/** The editor's file: the title on the first line, a blank line, then the text. */
export function editorText(item: Pick<MemoryItem, "title" | "body">): string {
  return `${item.title}\n\n${item.body}\n`;
}

export function parseEditorText(text: string): EditChange {
  const normalized = text.replace(/\r\n/g, "\n");
  const nl = normalized.indexOf("\n");
  const title = (nl < 0 ? normalized : normalized.slice(0, nl)).trim();
  const body = (nl < 0 ? "" : normalized.slice(nl + 1)).replace(/^\n/, "").replace(/\n$/, "");
  if (title === "") throw new UserError("the first line (the title) is empty: nothing changed", EXIT.usage);
  return { title, text: body };
}
