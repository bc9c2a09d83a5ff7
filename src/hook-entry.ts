// The bundled hook entry. `node dist/hook.js <provider>` records one hook
// payload; `node dist/hook.js --statusline <provider>` prints the compact
// recording state. It loads only the hot path (no CLI framework, no schema
// library) and never lets a failure reach the agent: exit 0, stdout empty
// unless a status line was asked for.
import { runHook } from "./core/recorder.ts";
import { projectFromStatusPayload, recordingState } from "./core/status.ts";
import { readStdinSync } from "./core/stdin.ts";
import { adapterFor } from "./providers/registry.ts";

function statusLine(provider: string): void {
  const input = readStdinSync(1024 * 1024, 2000);
  let payload: unknown = null;
  try {
    payload = JSON.parse(input.data.toString("utf8"));
  } catch {
    payload = null;
  }
  const dir = projectFromStatusPayload(payload) ?? process.env.CLAUDE_PROJECT_DIR ?? process.cwd();
  process.stdout.write(`${recordingState(dir, provider).display}\n`);
}

function main(): void {
  if (process.argv[2] === "--statusline") {
    statusLine(process.argv[3] ?? "claude");
    return;
  }
  const adapter = adapterFor(process.argv[2] ?? "");
  if (!adapter) return;
  runHook(adapter, readStdinSync(), process.env);
}

try {
  main();
} catch {
  // Recording never hurts the agent; the recorder already logged what it could without content.
}
process.exitCode = 0;
