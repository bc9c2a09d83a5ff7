// Export reads only the archive: it never goes back to a provider transcript
// for what recording left out, so an export holds exactly what was redacted.
// The Markdown form is rendered turn by turn in src/viewer/markdown.ts.
import type { Envelope, Manifest } from "../archive/schemas.ts";

/** First line the manifest, then every valid event in sequence order. */
export function toJsonl(manifest: Manifest, events: Envelope[]): string {
  const lines = [JSON.stringify({ record: "manifest", ...manifest })];
  for (const e of events) lines.push(JSON.stringify(e));
  return `${lines.join("\n")}\n`;
}
