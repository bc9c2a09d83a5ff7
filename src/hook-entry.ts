// The bundled hook entry, built as CommonJS (dist/hook.cjs): Node starts a
// CommonJS script faster than an ES module, and start-up is a hook's cost. `node dist/hook.cjs <provider>` records one hook
// payload; `node dist/hook.cjs --statusline <provider>` prints the compact
// recording state. It loads only the hot path (no CLI framework, no schema
// library) and never lets a failure reach the agent: exit 0, stdout empty
// unless a status line was asked for or the recorder has something for the
// agent to read (HookResult.output).
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { MAX_HOOK_INPUT_BYTES, runHook } from "./core/recorder.ts";
import { projectFromStatusPayload, recordingState } from "./core/status.ts";
import { readStdinSync } from "./core/stdin.ts";
import { contextStep, type RetrievalModule } from "./memory/store/inject.ts";
import { alertText, transcriptAlertFor } from "./providers/claude/transcript-alert.ts";
import { codexNotifyAdapter } from "./providers/codex/notify.ts";
import { adapterFor, injectorFor } from "./providers/registry.ts";
import { liveServer, runFilePath } from "./serve/runfile.ts";

function statusLine(provider: string): void {
  const input = readStdinSync(1024 * 1024, 2000);
  let payload: unknown = null;
  try {
    payload = JSON.parse(input.data.toString("utf8"));
  } catch {
    payload = null;
  }
  const dir = projectFromStatusPayload(payload) ?? process.env.CLAUDE_PROJECT_DIR ?? process.cwd();
  const state = recordingState(dir, provider);
  const sessionId =
    (payload as { session_id?: unknown } | null)?.session_id ?? process.env.CLAUDE_CODE_SESSION_ID;
  // A resume that found the transcript lost says so while the session runs (transcript-alert.ts).
  const alert =
    provider === "claude" && state.project && typeof sessionId === "string" && sessionId.length < 256
      ? transcriptAlertFor(state.project, sessionId)
      : undefined;
  process.stdout.write(`${state.display}${alert ? alertText(alert) : ""}\n`);
}

/** An agent that stopped reading (closed pipe) must not turn the write's EPIPE into a crash of the hook. */
function printForAgent(text: string): void {
  process.stdout.on("error", () => {});
  process.stdout.write(text);
}

/**
 * dist/retrieval.cjs beside this bundle, required only by a prompt hook with retrieval on: SQLite and the
 * memory store stay out of every other hook's start-up.
 */
function loadRetrieval(): RetrievalModule {
  return require(join(dirname(realpathSync(process.argv[1] ?? "")), "retrieval.cjs")) as RetrievalModule;
}

async function main(): Promise<void> {
  if (process.argv[2] === "--statusline") {
    statusLine(process.argv[3] ?? "claude");
    return;
  }
  if (process.argv[2] === "codex" && process.argv[3] === "--notify") {
    // Codex passes the turn as an argument, which other users can read from the process table while this
    // runs. On Linux, setting the title overwrites that memory at once (process.argv keeps its own copy); what
    // remains is Node's start-up. macOS's `ps` reads the kernel's copy, which no title changes.
    process.title = "tapedeck-notify";
    // Codex's notify program gets its JSON as the last argument, and nothing on stdin.
    const json = process.argv.length > 4 ? (process.argv.at(-1) ?? "") : "";
    const data = Buffer.from(json, "utf8");
    const overflow = data.length > MAX_HOOK_INPUT_BYTES;
    runHook(codexNotifyAdapter, { data: overflow ? Buffer.alloc(0) : data, overflow }, process.env);
    return;
  }
  const adapter = adapterFor(process.argv[2] ?? "");
  if (!adapter) return;
  const result = runHook(adapter, readStdinSync(), process.env, undefined, {
    addContext: contextStep(injectorFor, loadRetrieval),
  });
  if (result.output) printForAgent(result.output);
  // Under the http transport this process runs only when the hook client found no server it could trust with
  // the payload (none yet, dead, busy, or not ours): it has recorded the event itself, and starts the server
  // for the hooks that follow, without waiting for it. Also while recording is stopped, so that stopped
  // hooks stay a ~3 ms bash round trip instead of a Node start each.
  const config = result.providerConfig;
  if (result.project && config?.transport === "http" && config.http_port) {
    const runFile = runFilePath(result.project);
    if (liveServer(runFile)) return;
    const pid = Number.parseInt(process.env.CLAUDE_PID ?? "", 10);
    // A separate file (dist/launch.js), so that node:http and child_process
    // are never loaded by a hook that only records.
    const launcher = pathToFileURL(join(dirname(realpathSync(process.argv[1] ?? "")), "launch.js")).href;
    const { startServerInBackground } = (await import(launcher)) as typeof import("./serve/launch.ts");
    startServerInBackground(
      result.project,
      config.http_port,
      runFile,
      Number.isInteger(pid) && pid > 0 ? pid : null,
    );
  }
}

main()
  .catch(() => {
    // Recording never hurts the agent; the recorder already logged what it could without content.
  })
  .finally(() => {
    process.exitCode = 0;
  });
