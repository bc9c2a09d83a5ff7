// The http transport's hook server: answering for this project, or able to start on its port (a port held by
// another program means every hook records in its own process instead).
import { createServer } from "node:net";
import type { ProviderConfig } from "../../../core/archive/config.ts";
import { health } from "../../../serve/launch.ts";
import { liveServer, runFilePath } from "../../../serve/runfile.ts";
import { check, type DoctorCheck } from "./check.ts";

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function checkHookServer(
  project: string,
  provider: string,
  entry: ProviderConfig,
): Promise<DoctorCheck> {
  const port = entry.http_port;
  if (!port) {
    return check("hook server", "fail", "transport http without a port in .tapedeck/config.json", [
      `tapedeck install ${provider} --transport http`,
    ]);
  }
  const info = liveServer(runFilePath(project));
  const running = info ? await health(info, 800) : undefined;
  if (running?.project === project) {
    return check("hook server", "ok", `answers on 127.0.0.1:${info!.port} (pid ${running.pid})`, undefined, {
      port: info!.port,
      pid: running.pid,
    });
  }
  if (!(await portFree(port))) {
    return check(
      "hook server",
      "fail",
      `127.0.0.1:${port} is held by another program, so the hook server cannot start`,
      [
        `Hooks record in their own process meanwhile (slower, nothing goes to that program). Stop it, or reinstall for a new port: tapedeck uninstall ${provider} && tapedeck install ${provider}`,
        `Or use the command transport: tapedeck install ${provider} --transport command`,
      ],
      { port },
    );
  }
  return check(
    "hook server",
    "ok",
    `not running (port ${port} is free; the next hook brings it up)`,
    undefined,
    { port },
  );
}
