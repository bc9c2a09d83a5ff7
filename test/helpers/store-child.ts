// A child process for the tests of hostile files: whatever it is asked to do
// runs here, so a test whose recorder would block (a FIFO, /dev/zero) fails
// on its spawn timeout instead of hanging the test run. Prints one JSON line.

import { readConfig } from "../../src/core/archive/config.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { lastControlChange } from "../../src/core/hook/control-log.ts";
import { inspectSession, listSessions } from "../../src/core/read/sessions.ts";
import { event, spec } from "./session.ts";

const [scenario, root, id = "sess-1"] = process.argv.slice(2);
// Under `ulimit -f 0` a write past the limit raises SIGXFSZ; ignored, the write fails with EFBIG (a full disk).
process.on("SIGXFSZ", () => {});

function run(): unknown {
  if (!root) throw new Error("usage: store-child <scenario> <root>");
  switch (scenario) {
    case "record": {
      // Over 64 KB: a FIFO's buffer is full long before the write ends.
      const big = "x".repeat(100 * 1024);
      const s = spec(root, {
        identity: { ...spec(root).identity, provider_session_id: id, session_id: `claude:${id}` },
      });
      return recordEvents(s, [event("user_prompt", `p-${Date.now()}`, { prompt: big })]);
    }
    case "config":
      // A broken config must read as unusable (and say so through readConfigFile), at once.
      return readConfig(root) === undefined ? "unusable" : "ok";
    case "inspect": {
      const ref = listSessions(root)[0];
      return ref ? inspectSession(ref).event_count : null;
    }
    case "control":
      return lastControlChange(root, "claude") ?? null;
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

try {
  process.stdout.write(`${JSON.stringify({ ok: true, result: run() })}\n`);
} catch (error) {
  const e = error as NodeJS.ErrnoException;
  process.stdout.write(`${JSON.stringify({ ok: false, code: e.code ?? e.name })}\n`);
}
