// `node dist/serve.js --project DIR --port N [--run-file F] [--agent-pid PID] [--linger-ms MS]`:
// the http hook server, started on demand by a hook that found it down.
// Bundled apart from the CLI so that it starts quickly.
import { unlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tapedeckDir } from "./core/archive/paths.ts";
import { errorCode, writeDiagnostic } from "./core/base/diagnostics.ts";
import { contextStep, type RetrievalModule } from "./memory/store/inject.ts";
import { injectorFor } from "./providers/registry.ts";
import { liveServer } from "./serve/runfile.ts";
import { startHookServer } from "./serve/server.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const project = arg("--project");
const port = Number(arg("--port"));
if (!project || !Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(
    "usage: serve.js --project DIR --port N [--run-file F] [--agent-pid PID] [--linger-ms MS]\n",
  );
  process.exit(2);
}
const runFile = arg("--run-file");
const agentPid = Number(arg("--agent-pid"));
const linger = Number(arg("--linger-ms"));

/** dist/retrieval.cjs beside this bundle, loaded on the first prompt hook with retrieval on. */
const loadRetrieval = (): RetrievalModule =>
  createRequire(import.meta.url)("./retrieval.cjs") as RetrievalModule;

/** The start claim (see launch.ts) ends once this attempt has listened or failed. */
function endStartClaim(): void {
  if (!runFile) return;
  try {
    unlinkSync(`${runFile}.starting`);
  } catch {
    // a later start attempt cleaned it, or none was claimed
  }
}

try {
  const server = await startHookServer({
    project,
    port,
    runFile,
    agentPids: Number.isInteger(agentPid) && agentPid > 0 ? [agentPid] : [],
    lingerMs: Number.isFinite(linger) && linger > 0 ? linger : undefined,
    addContext: contextStep(injectorFor, loadRetrieval),
  });
  endStartClaim();
  const stop = () => void server.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  await server.done;
  process.exit(0);
} catch (error) {
  // The claim stays until it ages out (launch.ts): with the port held by another program every fallback hook
  // would otherwise start a server of its own (measured: 13 in 4.5 s of three turns, each a Node start).
  // The port is taken. By this project's own server, which won a race of two fallback hooks: nothing to say
  // (and nothing may be written while recording is stopped). By another program: hooks keep recording in
  // their own process, and a code (never more) is logged.
  const ours = runFile ? liveServer(runFile) : undefined;
  if (!ours || ours.pid === process.pid) {
    writeDiagnostic(tapedeckDir(project), { what: "error", stage: "serve-start", code: errorCode(error) });
  }
  process.exit(0);
}
