// What install writes for each hook transport, and how uninstall stops the
// server: the CLI's side of the transports, kept out of the command files.
//
// command: every hook starts Node (dist/hook.cjs) and records in-process.
// http:    every hook runs the bash client (dist/hook-client.sh, ~3 ms), which
//          hands the payload to the project's server and falls back to the
//          Node hook whenever that server is not up or not ours.
import { createServer } from "node:net";
import type { ProviderConfig } from "../core/archive/config.ts";
import { clientCommand, nodeHookCommand } from "./client-command.ts";
import { health } from "./launch.ts";
import { liveServer, runFilePath } from "./runfile.ts";

export type Transport = "command" | "http";

export interface BuiltFiles {
  node: string;
  hook: string;
  client: string;
}

/** A port that is free now; the hook server binds it when the first hook finds no server. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The config fields of a transport; a re-install keeps the port, so a running server stays valid. */
export async function transportConfig(
  transport: Transport,
  previous: ProviderConfig | undefined,
): Promise<Pick<ProviderConfig, "transport" | "http_port">> {
  if (transport === "command") return { transport };
  return { transport, http_port: previous?.http_port ?? (await freePort()) };
}

/** What every hook of a transport runs. */
export function hookCommandFor(
  transport: Transport,
  provider: string,
  project: string,
  files: BuiltFiles,
): string {
  if (transport === "command") return nodeHookCommand(files.node, files.hook, [provider]);
  const parts = {
    provider,
    client: files.client,
    runFile: runFilePath(project),
    node: files.node,
    hook: files.hook,
  };
  return clientCommand(parts);
}

/** Stops the project's hook server, if one runs: uninstall leaves nothing of tapedeck running. */
export async function stopHookServer(project: string): Promise<void> {
  const runFile = runFilePath(project);
  const info = liveServer(runFile);
  if (!info) return;
  // Only a server that answers as this project's, with that pid and token: never signal a reused pid.
  const running = await health(info, 500);
  if (running?.pid !== info.pid || running.project !== project) return;
  try {
    process.kill(info.pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && liveServer(runFile)) await new Promise((r) => setTimeout(r, 20));
}
