// Signs, in claude's own transcripts, that a hook misbehaved.
import { readFileSync } from "node:fs";

/**
 * A failing or timed-out hook leaves a `hook_non_blocking_error`/`hook_cancelled` attachment (or, in `-p` mode,
 * any hook attachment with output), and Stop hooks are summed up in `stop_hook_summary`. A silent, successful
 * hook leaves none of these.
 */
export function hookTrouble(transcripts: string[]): unknown[] {
  const trouble: unknown[] = [];
  for (const file of transcripts) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.trim()) continue;
      const rec = JSON.parse(line) as {
        type?: string;
        subtype?: string;
        attachment?: { type?: string; stdout?: string; stderr?: string; exitCode?: number };
        hookErrors?: unknown[];
        hasOutput?: boolean;
      };
      const att = rec.attachment;
      if (rec.type === "attachment" && att?.type?.startsWith("hook")) {
        const silent = att.type === "hook_success" && !att.stdout && !att.stderr && !att.exitCode;
        if (!silent) trouble.push(att);
      }
      if (rec.subtype === "stop_hook_summary" && ((rec.hookErrors?.length ?? 0) > 0 || rec.hasOutput)) {
        trouble.push({ hookErrors: rec.hookErrors, hasOutput: rec.hasOutput });
      }
    }
  }
  return trouble;
}
