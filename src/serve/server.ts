// The http hook transport: Claude Code POSTs each hook payload here and gets
// an empty 2xx back once the event is appended. One server per project; it
// reads the project's config on every request, so `tapedeck record stop`
// applies at once, and it exits on its own when its agents are gone.
import { timingSafeEqual } from "node:crypto";
import { unlinkSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { readConfig } from "../core/config.ts";
import { errorCode, writeDiagnostic } from "../core/diagnostics.ts";
import { isErrno, readJsonOrUndefined, writeJsonAtomicSync } from "../core/fsutil.ts";
import { tapedeckDir } from "../core/paths.ts";
import { MAX_HOOK_INPUT_BYTES, runHook } from "../core/recorder.ts";
import { adapterFor } from "../providers/registry.ts";

export interface ServeOptions {
  project: string;
  port: number;
  /** Exit after this long without a request when no agent is known to be alive. */
  idleMs?: number;
  /** After the last watched agent exits, linger this long for its final hooks. */
  graceMs?: number;
  agentPids?: number[];
  /** Write .tapedeck/serve.json so hooks can find (and not duplicate) this server. */
  writeStateFile?: boolean;
}

export interface ServeState {
  pid: number;
  port: number;
  started_at: string;
}

export const SERVE_STATE_FILE = "serve.json";

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, "EPERM");
  }
}

function tokenMatches(expected: string | undefined, given: string | string[] | undefined): boolean {
  if (!expected || typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface HookServer {
  port: number;
  close(): Promise<void>;
  /** resolves when the server has shut itself down (idle or agents gone) */
  done: Promise<void>;
}

export async function startHookServer(opts: ServeOptions): Promise<HookServer> {
  const idleMs = opts.idleMs ?? 10 * 60 * 1000;
  const graceMs = opts.graceMs ?? 5_000;
  const agents = new Set(opts.agentPids ?? []);
  let lastRequest = Date.now();
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });

  const server = http.createServer((req, res) => {
    lastRequest = Date.now();
    const url = req.url ?? "/";
    if (req.method === "GET" && url === "/health") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, pid: process.pid, project: opts.project }));
      return;
    }
    const agentMatch = req.method === "POST" ? /^\/agents\/(\d{1,10})$/.exec(url) : null;
    if (agentMatch) {
      agents.add(Number(agentMatch[1]));
      res.writeHead(204).end();
      req.resume();
      return;
    }
    const hookMatch = req.method === "POST" ? /^\/hook\/([a-z]{1,32})$/.exec(url) : null;
    const adapter = hookMatch ? adapterFor(hookMatch[1]!) : undefined;
    if (!adapter) {
      res.writeHead(404).end();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_HOOK_INPUT_BYTES) overflow = true;
      else chunks.push(chunk);
    });
    req.on("end", () => {
      // Whatever happens, the agent gets a 2xx with an empty body ("no decision").
      try {
        const config = readConfig(opts.project);
        const token = config?.providers[adapter.name]?.http_token;
        if (tokenMatches(token, req.headers["x-tapedeck-token"])) {
          runHook(
            adapter,
            { data: Buffer.concat(chunks), overflow },
            { TAPEDECK_PROJECT_DIR: opts.project },
            opts.project,
          );
        } else {
          writeDiagnostic(tapedeckDir(opts.project), { what: "error", stage: "serve", code: "bad_token" });
        }
      } catch (error) {
        writeDiagnostic(tapedeckDir(opts.project), { what: "error", stage: "serve", code: errorCode(error) });
      }
      res.writeHead(200, { "content-length": "0" }).end();
    });
    req.on("error", () => res.destroy());
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const statePath = join(tapedeckDir(opts.project), SERVE_STATE_FILE);
  if (opts.writeStateFile) {
    writeJsonAtomicSync(statePath, {
      pid: process.pid,
      port,
      started_at: new Date().toISOString(),
    } satisfies ServeState);
  }

  let closing = false;
  const close = async () => {
    if (closing) return done;
    closing = true;
    clearInterval(timer);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    if (opts.writeStateFile && readJsonOrUndefined<ServeState>(statePath)?.pid === process.pid) {
      try {
        unlinkSync(statePath);
      } catch {
        // already gone
      }
    }
    resolveDone();
    return done;
  };

  const timer = setInterval(
    () => {
      const quiet = Date.now() - lastRequest;
      for (const pid of agents) if (!pidAlive(pid)) agents.delete(pid);
      const knewAgents = (opts.agentPids?.length ?? 0) > 0 || agents.size > 0;
      if ((agents.size === 0 && knewAgents && quiet > graceMs) || (agents.size === 0 && quiet > idleMs)) {
        void close();
      }
    },
    Math.min(1000, graceMs),
  );
  timer.unref();

  return { port, close, done };
}
