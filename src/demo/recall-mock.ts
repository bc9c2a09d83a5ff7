// Two scripted scenarios the mock model servers share, so that an A/B run can tell a memory arm from a
// memory-less one by the answers alone:
//   SCENARIO_SAY <text>     answers <text> (a session whose assistant states a fact, to promote)
//   SCENARIO_RECALL <key>   answers "From memory: <line>" with the first line mentioning <key> inside
//                           tapedeck's marker anywhere in its request, else "I don't know." A fact in the
//                           prompt itself, or anywhere outside the marker, does not count.
import { parseInjected, stripInjected } from "../core/ports/memory-marker.ts";

export const DONT_KNOW = "I don't know.";
/** A request is walked this deep and this long at most; a mock must not hang on a hostile body. */
const MAX_DEPTH = 32;
const MAX_STRINGS = 20_000;

function stringsOf(value: unknown, out: string[], depth = 0): void {
  if (out.length >= MAX_STRINGS || depth > MAX_DEPTH) return;
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out, depth + 1);
  else if (value && typeof value === "object")
    for (const v of Object.values(value)) stringsOf(v, out, depth + 1);
}

/**
 * The lines of every marker block in the request: what an exchange item's assistant said first (its "User:"
 * line repeats the prompt that asked, a SCENARIO_SAY among them), then the rest of the items' text, headings
 * last.
 */
function memoryLines(body: unknown): string[] {
  const strings: string[] = [];
  stringsOf(body, strings);
  const lines = parseInjected(strings.join("\n")).flatMap((b) => b.body.split("\n"));
  const heading = (l: string) => /^\[\d+\] /.test(l) || l.startsWith("Memory the user promoted");
  const said = lines.filter((l) => l.startsWith("Assistant: ")).map((l) => l.slice("Assistant: ".length));
  const rest = lines
    .filter((l) => !heading(l) && !l.startsWith("Assistant: "))
    .map((l) => l.replace(/^User: /, ""));
  return [...said, ...rest, ...lines.filter(heading)];
}

export function recallAnswer(body: unknown, key: string): string {
  const want = key.trim().toLowerCase();
  if (want === "") return DONT_KNOW;
  const line = memoryLines(body).find((l) => l.toLowerCase().includes(want));
  return line ? `From memory: ${line.trim()}` : DONT_KNOW;
}

/**
 * The prompt the scenario keywords are read from, without tapedeck's marker: Gemini CLI appends added context
 * to the user's own message, and a promoted prompt inside it carries a keyword of its own.
 */
export function promptWithoutMemory(promptText: string): string {
  return stripInjected(promptText);
}
