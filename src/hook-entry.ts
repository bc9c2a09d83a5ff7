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
import type { ProviderAdapter } from "./core/hook/provider.ts";
import { MAX_HOOK_INPUT_BYTES, runHook } from "./core/hook/recorder.ts";
import { projectFromStatusPayload, recordingState } from "./core/hook/status.ts";
import { readStdinSync } from "./core/hook/stdin.ts";
import { contextStep, type RetrievalModule } from "./memory/store/inject.ts";
import { adapterFor, argvHookFor, injectorFor } from "./providers/registry.ts";
import { STATUS_LINES, statusLineFor } from "./providers/status-lines.ts";
import { liveServer, runFilePath } from "./serve/runfile.ts";

const STATUS_LINE_DEFAULT = Object.keys(STATUS_LINES)[0] ?? "";

function statusLine(provider: string): void {
  const input = readStdinSync(1024 * 1024, 2000);
  let payload: unknown = null;
  try {
    payload = JSON.parse(input.data.toString("utf8"));
  } catch {
    payload = null;
  }
  const dirEnv = adapterFor(provider)?.projectDirEnv;
  const dir = projectFromStatusPayload(payload) ?? (dirEnv && process.env[dirEnv]) ?? process.cwd();
  const state = recordingState(dir, provider);
  // What the provider adds (Claude's lost-transcript alert, said while the session runs).
  const part = statusLineFor(provider);
  const sessionId =
    (payload as { session_id?: unknown } | null)?.session_id ?? (part && process.env[part.sessionIdEnv]);
  const alert =
    part && state.project && typeof sessionId === "string" && sessionId.length < 256
      ? part.alert(state.project, sessionId)
      : "";
  process.stdout.write(`${state.display}${alert}\n`);
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

/** A capture path whose payload is the last argument, nothing on stdin (Codex's notify program). */
function runArgvHook(adapter: ProviderAdapter): void {
  // The payload is an argument, which other users can read from the process table while this runs. On
  // Linux, setting the title overwrites that memory at once (process.argv keeps its own copy); what remains
  // is Node's start-up. macOS's `ps` reads the kernel's copy, which no title changes.
  process.title = "tapedeck-notify";
  const json = process.argv.length > 4 ? (process.argv.at(-1) ?? "") : "";
  const data = Buffer.from(json, "utf8");
  const overflow = data.length > MAX_HOOK_INPUT_BYTES;
  runHook(adapter, { data: overflow ? Buffer.alloc(0) : data, overflow }, process.env);
}

async function main(): Promise<void> {
  if (process.argv[2] === "--statusline") {
    // Installers always name the provider; a bare --statusline is the first one with a status line of its own.
    statusLine(process.argv[3] ?? STATUS_LINE_DEFAULT);
    return;
  }
  const argvHook = argvHookFor(process.argv[2] ?? "", process.argv[3]);
  if (argvHook) {
    runArgvHook(argvHook.adapter);
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
    const pid = Number.parseInt((adapter.agentPidEnv && process.env[adapter.agentPidEnv]) || "", 10);
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
