// Starting the http hook server on demand. Claude sends no http hook for
// SessionStart, so that event keeps a command hook, and it is this command
// that makes sure the project's server is up before the first http hook.
import { spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";

export function health(
  port: number,
  timeoutMs: number,
): Promise<{ pid: number; project: string } | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/health", timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
  });
}

function post(port: number, path: string): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", timeout: 500 }, (res) => {
      res.resume();
      res.on("end", () => resolve());
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve());
    req.end();
  });
}

export function serveEntryPath(): string {
  return fileURLToPath(new URL("./serve.js", import.meta.url));
}

/**
 * Makes sure a server for `project` listens on `port`, and that it knows
 * the agent's pid (it exits once its agents are gone). Answers whether a
 * server is up. Never throws.
 */
export async function ensureHookServer(
  project: string,
  port: number,
  agentPid: number | null,
): Promise<boolean> {
  const running = await health(port, 300);
  if (running) {
    if (running.project !== project) return false;
    if (agentPid) await post(port, `/agents/${agentPid}`);
    return true;
  }
  const args = [serveEntryPath(), "--project", project, "--port", String(port)];
  if (agentPid) args.push("--agent-pid", String(agentPid));
  const child = spawn(process.execPath, args, { detached: true, stdio: "ignore", cwd: project });
  // A server that cannot bind (the port is taken) exits at once: stop waiting then.
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  child.unref();
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && !exited) {
    await new Promise((r) => setTimeout(r, 15));
    if (await health(port, 200)) return true;
  }
  return false;
}
