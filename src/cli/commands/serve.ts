// `tapedeck serve`: the http transport's hook server in the foreground, for debugging (hooks start it on
// demand).
import type { Command } from "commander";
import { readConfig } from "../../core/archive/config.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { io } from "../io.ts";
import { locateProject } from "../project.ts";
import { DEFAULT_PROVIDER } from "../providers.ts";

async function serveCommand(opts: { project?: string; port?: string; provider: string }): Promise<void> {
  const project = locateProject(opts.project).root;
  const entry = readConfig(project)?.providers[opts.provider];
  const port = opts.port ? Number(opts.port) : entry?.http_port;
  if (!port || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new CliError("no port: install with --transport http, or pass --port", EXIT.usage);
  }
  const { startHookServer } = await import("../../serve/server.ts");
  const server = await startHookServer({
    project,
    port,
    lingerMs: 365 * 24 * 3600 * 1000,
  });
  io().stderr.write(
    `tapedeck hook server for ${project} on http://127.0.0.1:${server.port} (Ctrl-C to stop)\n`,
  );
  const stop = () => void server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await server.done;
}

export function register(program: Command): void {
  program
    .command("serve")
    .description(
      "run the http hook server in the foreground (hooks start it on demand; this is for debugging)",
    )
    .option("--project <dir>", "project directory (default: current directory)")
    .option("--provider <name>", "provider whose port to use", DEFAULT_PROVIDER)
    .option("--port <n>", "port (default: the one chosen at install)")
    .action(serveCommand);
}
