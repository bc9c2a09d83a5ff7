// A separate process that appends events to one session, for the
// concurrency and crash tests.
//   argv: projectRoot workerId count [payloadBytes] [loop|tear]
// `tear` holds the real writer lock and stops half-way through writing a line,
// as a writer does when it is killed inside write(2); the parent kills it there.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { acquireLock } from "../../src/core/archive/lock.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { sleepSync } from "../../src/core/base/fsutil.ts";
import { event, spec } from "./session.ts";

const [root, worker, countArg, bytesArg, mode] = process.argv.slice(2);
const count = Number(countArg);
const bytes = Number(bytesArg ?? 0);
const filler = "x".repeat(bytes);
// Big events need big limits, or bounding would shrink them before the write.
const s = spec(
  root!,
  { lockTimeoutMs: 10_000 },
  { max_string_bytes: bytes + 1024, max_event_bytes: 4 * bytes + 65536 },
);

if (mode === "tear") {
  const out = recordEvents(s, [event("tool_call", `w${worker}-first`, { worker })]);
  const lock = acquireLock(out.sessionDir, { timeoutMs: 10_000 });
  if (lock) {
    const line = JSON.stringify({
      schema_version: 1,
      sequence: 999_999,
      event_id: `w${worker}-torn`,
      filler,
    });
    appendFileSync(join(out.sessionDir, "events.jsonl"), line.slice(0, Math.floor(line.length / 2)));
    process.stdout.write("torn\n");
    for (;;) sleepSync(1000);
  }
} else {
  let i = 0;
  do {
    for (let n = 0; n < count; n += 1, i += 1) {
      recordEvents(s, [event("tool_call", `w${worker}-${i}`, { worker, n: i, filler })]);
      // A looping writer paces itself like an agent's hooks, so the crash
      // test's file (and its per-round recovery scan) stays small.
      if (mode === "loop") sleepSync(3);
    }
  } while (mode === "loop");
}
