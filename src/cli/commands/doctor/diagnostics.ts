// The recorder's own errors of the last day, from .tapedeck/diagnostics.jsonl (which holds no payload content).
import { join } from "node:path";
import { tapedeckDir } from "../../../core/archive/paths.ts";
import { readRegularFileSync } from "../../../core/base/fsutil.ts";
import { check, type DoctorCheck } from "./check.ts";

const RECENT_DIAGNOSTICS_MS = 24 * 3600 * 1000;

export function checkDiagnostics(project: string): DoctorCheck | undefined {
  let text: string;
  try {
    // Our own file: never through a symlink, and a FIFO planted there is refused instead of hanging doctor.
    text = readRegularFileSync(join(tapedeckDir(project), "diagnostics.jsonl")).toString("utf8");
  } catch {
    return undefined;
  }
  const since = Date.now() - RECENT_DIAGNOSTICS_MS;
  const recent: Array<{ at?: string; what?: string; stage?: string; code?: string }> = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const d = JSON.parse(line) as { at?: string; what?: string; stage?: string; code?: string };
      if (d.what === "error" && d.at && Date.parse(d.at) >= since) recent.push(d);
    } catch {
      // a torn line
    }
  }
  if (recent.length === 0) return undefined;
  const last = recent.at(-1)!;
  return check(
    "recorder errors",
    "warn",
    `${recent.length} in the last 24 h (last: ${last.stage ?? "?"}/${last.code ?? "?"} at ${last.at})`,
    [`See ${join(tapedeckDir(project), "diagnostics.jsonl")} (no payload content is logged there)`],
  );
}
