// `node dist/serve.js --project DIR --port N [--agent-pid PID] [--idle-ms MS]`:
// the http hook server, started on demand by the SessionStart command hook.
// Bundled apart from the CLI so that it starts quickly.
import { startHookServer } from "./serve/server.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const project = arg("--project");
const port = Number(arg("--port"));
if (!project || !Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write("usage: serve.js --project DIR --port N [--agent-pid PID] [--idle-ms MS]\n");
  process.exit(2);
}
const agentPid = Number(arg("--agent-pid"));
const idle = Number(arg("--idle-ms"));
try {
  const server = await startHookServer({
    project,
    port,
    agentPids: Number.isInteger(agentPid) && agentPid > 0 ? [agentPid] : [],
    idleMs: Number.isFinite(idle) && idle > 0 ? idle : undefined,
    writeStateFile: true,
  });
  const stop = () => void server.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  await server.done;
  process.exit(0);
} catch {
  // Port taken (another server for this project won the race) or not allowed: nothing to do.
  process.exit(0);
}
