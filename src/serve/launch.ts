// Starting the http hook server on demand, and asking it whether it is up. A
// separate bundle (dist/launch.js): node:http and child_process are loaded
// only by a hook that has to start the server, never by one that records.
import { spawn } from "node:child_process";
import { closeSync, constants, openSync, statSync, unlinkSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { FILE_MODE } from "../core/base/fsutil.ts";
import { ensureRunDir } from "../core/ports/run-dir.ts";
import type { RunInfo } from "./runfile.ts";

/** A start attempt younger than this is still coming up (measured: the server listens ~150 ms after spawn). */
const STARTING_MS = 5_000;

export function health(
  info: RunInfo,
  timeoutMs: number,
): Promise<{ pid: number; project: string } | undefined> {
  return new Promise((resolve) => {
    const req = http.get(
      {
        host: "127.0.0.1",
        port: info.port,
        path: "/health",
        timeout: timeoutMs,
        headers: { "x-tapedeck-token": info.token },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            resolve(res.statusCode === 200 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined);
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
  });
}

export function serveEntryPath(): string {
  return fileURLToPath(new URL("./serve.js", import.meta.url));
}

/** Claims the right to start the server for a few seconds, so a burst of fallback hooks spawns one server. */
function claimStart(runFile: string): boolean {
  ensureRunDir(runFile);
  const marker = `${runFile}.starting`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      closeSync(
        openSync(
          marker,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          FILE_MODE,
        ),
      );
      return true;
    } catch {
      try {
        if (Date.now() - statSync(marker).mtimeMs < STARTING_MS) return false;
        unlinkSync(marker);
      } catch {
        return false;
      }
    }
  }
  return false;
}

/**
 * Starts the project's server in the background and returns at once: the hook
 * that calls this has already recorded its own event, and the agent must not
 * wait for a server. Never throws.
 */
export function startServerInBackground(
  project: string,
  port: number,
  runFile: string,
  agentPid: number | null,
): void {
  try {
    if (!claimStart(runFile)) return;
    const args = [serveEntryPath(), "--project", project, "--port", String(port), "--run-file", runFile];
    if (agentPid) args.push("--agent-pid", String(agentPid));
    spawn(process.execPath, args, { detached: true, stdio: "ignore", cwd: project }).unref();
  } catch {
    // no server this time: the next hook records in-process again and retries
  }
}
