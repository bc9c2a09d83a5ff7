// A session's events.jsonl before show or export streams it: a planted link or FIFO in its place is named,
// never followed nor waited on (it was "unexpected UnsafePathError").
import { join } from "node:path";
import { UnsafePathError } from "../core/base/fsutil.ts";
import { checkEventsReadable, EVENTS_FILE } from "../viewer/timeline.ts";
import { CliError } from "./cli-error.ts";

export function readableOrExplain(dir: string): void {
  try {
    checkEventsReadable(dir);
  } catch (error) {
    if (error instanceof UnsafePathError) {
      throw new CliError(`${join(dir, EVENTS_FILE)}: ${error.reason}; tapedeck reads only a regular file`);
    }
    throw error;
  }
}
