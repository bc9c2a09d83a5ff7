// The http hook server: the project's hook client (hook-client.sh) POSTs each
// hook payload here and gets an empty 2xx once the event is appended. A hook
// with output for the agent (retrieval's added context) gets a 200 proven ours
// by the run's reply secret (runfile.ts), naming a file beside the run file
// (the user's 0700 run directory) that holds the output: bash reads a socket
// one byte per system call (2.1 ms for 3 KB, measured) but a regular file in
// blocks (0.05 ms). Such files go after OUTPUT_TTL_MS, and on close. One
// server per project, on the port chosen at install; it reads the project's
// config on every request, so `tapedeck record stop` applies at once, and it
// lingers after its agents are gone so that the next session (a CI job, an
// experiment's next run) finds it warm.
//
// Contract, in the order it is checked, before any body byte is read:
// - the Host header names 127.0.0.1 and this port (DNS rebinding), and there
//   is no Origin header (a web page's fetch always carries one);
// - the token of this run (from the run file, 0600 in the user's tapedeck
//   home) is in X-Tapedeck-Token; a stranger's request costs a counter, never
//   a disk write (one rate-limited diagnostic at most);
// - content-type application/json and a Content-Length within MAX_BODY_BYTES,
//   with at most MAX_IN_FLIGHT bodies buffered at once.
// Anything the server declines gets a non-2xx, and the client then records the
// event in its own process: declining never loses an event.
// The event loop never sleeps on a lock: a session whose lock is busy gets its
// event spooled (and drained by the next writer), so one slow session never
// delays another's hook.
import { timingSafeEqual } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { basename, dirname, join } from "node:path";
import { tapedeckDir } from "../core/archive/paths.ts";
import { errorCode, writeDiagnostic } from "../core/base/diagnostics.ts";
import { unlinkQuietly, writeFileAtomicSync } from "../core/base/fsutil.ts";
import { ownProcessAlive } from "../core/base/pids.ts";
import { type ContextStep, runHook } from "../core/hook/recorder.ts";
import { indexWhenIdle } from "../memory/index/idle.ts";
import { exportWhenIdle } from "../otel/idle.ts";
import { adapterFor } from "../providers/registry.ts";
import { pruneWhenDue } from "./retention-idle.ts";
import { newToken, removeRunFile, runFilePath, writeRunFile } from "./runfile.ts";

/**
 * A hook payload the server buffers. Bigger ones (a Write of a large file) are
 * declined with 413 and recorded by the client's in-process fallback, whose own
 * limit is far higher: the server's memory stays bounded by
 * MAX_BODY_BYTES × MAX_IN_FLIGHT (64 MiB) whatever strangers send.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
export const MAX_IN_FLIGHT = 4;
/** At most one diagnostic line per this interval for rejected requests, however many arrive. */
const REJECT_REPORT_MS = 60_000;

export interface ServeOptions {
  project: string;
  port: number;
  /** After the last request, with no agent known alive, linger this long, then exit. */
  lingerMs?: number;
  agentPids?: number[];
  /** Where to announce this run (port, pid, token); default: the project's run file. */
  runFile?: string;
  /** Retrieval's step (memory/store/inject.ts): a prompt hook's added context comes back in the answer. */
  addContext?: ContextStep;
}

/** The header that proves an answer with output comes from this run (the client never sends its value). */
export const REPLY_HEADER = "X-Tapedeck-Reply";
/** The output file's name (in the run file's directory) and its length in bytes. */
export const OUTPUT_HEADER = "X-Tapedeck-Output";
export const OUTPUT_LENGTH_HEADER = "X-Tapedeck-Output-Length";
/** An output file is read within milliseconds of the answer; one older than this is nobody's. */
export const OUTPUT_TTL_MS = 10_000;

/** Output files of `runFile`'s server runs: `<run file name>.<pid>.<n>.out`. */
function isOutputOf(runFile: string, name: string): boolean {
  const prefix = `${basename(runFile)}.`;
  return name.startsWith(prefix) && /^\d+\.\d+\.out$/.test(name.slice(prefix.length));
}

/** Output files a killed server left behind. */
function removeOutputs(runFile: string): void {
  try {
    for (const name of readdirSync(dirname(runFile))) {
      if (isOutputOf(runFile, name)) unlinkQuietly(join(dirname(runFile), name));
    }
  } catch {
    // no run directory yet: nothing left behind
  }
}

export interface HookServer {
  port: number;
  token: string;
  /** the proof in an answer with output (the run file's fourth field) */
  reply: string;
  close(): Promise<void>;
  /** resolves when the server has shut itself down (idle, agents gone, or closed) */
  done: Promise<void>;
  /** requests refused so far (bad host, origin, token, type or size) */
  rejected(): number;
}

function tokenMatches(expected: string, given: string | string[] | undefined): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

type Refusal = { status: number } | undefined;

function refuseUnlessOurs(req: http.IncomingMessage, port: number, token: string): Refusal {
  if (req.headers.host !== `127.0.0.1:${port}`) return { status: 421 };
  if (req.headers.origin !== undefined) return { status: 403 };
  if (!tokenMatches(token, req.headers["x-tapedeck-token"])) return { status: 403 };
  return undefined;
}

function refuseBody(req: http.IncomingMessage, inFlight: number): Refusal {
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/json(;|$)/i.test(type)) return { status: 415 };
  const length = Number(req.headers["content-length"]);
  if (!Number.isInteger(length) || length < 0) return { status: 411 };
  if (length > MAX_BODY_BYTES) return { status: 413 };
  if (inFlight >= MAX_IN_FLIGHT) return { status: 503 };
  return undefined;
}

function end(res: http.ServerResponse, status: number, body?: string): void {
  const headers: http.OutgoingHttpHeaders = { "content-length": Buffer.byteLength(body ?? "") };
  if (body) headers["content-type"] = "application/json";
  // A refused request's body is never read: closing is cheaper than draining it.
  if (status >= 400) headers.connection = "close";
  res.writeHead(status, headers).end(body);
}

/** Counts the requests refused, and says so in the diagnostics at most every REJECT_REPORT_MS. */
function rejectionLog(project: string) {
  let rejected = 0;
  let reported = 0;
  let lastReport = 0;
  const report = (force = false) => {
    const now = Date.now();
    if (rejected === reported || (!force && now - lastReport < REJECT_REPORT_MS)) return;
    lastReport = now;
    writeDiagnostic(tapedeckDir(project), {
      what: "error",
      stage: "serve",
      code: "rejected",
      count: rejected - reported,
    });
    reported = rejected;
  };
  const refuse = (res: http.ServerResponse, status: number) => {
    rejected += 1;
    report();
    end(res, status);
  };
  return { refuse, report, count: () => rejected };
}

/** Records the payload; answers what the hook prints for the agent, if anything. */
function recordPayload(opts: ServeOptions, provider: string, data: Buffer): string | undefined {
  const adapter = adapterFor(provider);
  if (!adapter) return undefined;
  // The search index catches up a few seconds after the last hook, in another process (src/memory/index/idle.ts).
  indexWhenIdle(opts.project);
  // Configured OpenTelemetry export of finished turns, in a child process after the hooks go quiet (src/otel/idle.ts).
  exportWhenIdle(opts.project);
  // The configured retention, at most daily, in a child process (./retention-idle.ts).
  pruneWhenDue(opts.project);
  try {
    return runHook(adapter, { data, overflow: false }, { TAPEDECK_PROJECT_DIR: opts.project }, opts.project, {
      lockWaitMs: 0,
      addContext: opts.addContext,
    }).output;
  } catch (error) {
    writeDiagnostic(tapedeckDir(opts.project), { what: "error", stage: "serve", code: errorCode(error) });
    return undefined;
  }
}

/** The answers that carry output for the agent: a file beside the run file, named in the reply's headers. */
function outputAnswers(runFile: string, project: string, reply: string) {
  const outputs: Array<{ path: string; at: number }> = [];
  let outputSeq = 0;
  const removeOld = (all = false) => {
    while (outputs.length > 0 && (all || Date.now() - outputs[0]!.at > OUTPUT_TTL_MS)) {
      unlinkQuietly(outputs.shift()!.path);
    }
  };
  const answer = (res: http.ServerResponse, output: string | undefined) => {
    if (!output) return end(res, 200);
    const name = `${basename(runFile)}.${process.pid}.${++outputSeq}.out`;
    const path = join(dirname(runFile), name);
    try {
      // Atomic: the client reads a whole file or none; 0600 in the user's 0700 run directory.
      writeFileAtomicSync(path, output);
    } catch (error) {
      writeDiagnostic(tapedeckDir(project), { what: "error", stage: "serve-output", code: errorCode(error) });
      // Recorded, but the output has no way to the client: it records again in-process, printing its own.
      return end(res, 503);
    }
    outputs.push({ path, at: Date.now() });
    res
      .writeHead(200, {
        "content-length": 0,
        [REPLY_HEADER]: reply,
        [OUTPUT_HEADER]: name,
        [OUTPUT_LENGTH_HEADER]: Buffer.byteLength(output),
      })
      .end();
  };
  return { answer, removeOld };
}

/** What the request handler shares with the server's lifetime. */
interface ServerState {
  port: number;
  token: string;
  lastRequest: number;
  inFlight: number;
  agents: Set<number>;
}

/** Reads a hook's body, bounded, and answers once it is recorded. */
function receiveHook(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  state: ServerState,
  onBody: (data: Buffer) => void,
): void {
  state.inFlight += 1;
  const chunks: Buffer[] = [];
  let size = 0;
  let released = false;
  const release = () => {
    if (!released) state.inFlight -= 1;
    released = true;
  };
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on("end", () => {
    release();
    // A body longer than it announced is not a hook payload we can trust whole: the client records it itself.
    if (size > MAX_BODY_BYTES) return end(res, 413);
    onBody(Buffer.concat(chunks));
  });
  req.on("error", () => {
    release();
    res.destroy();
  });
  req.on("close", release);
}

function requestHandler(
  opts: ServeOptions,
  state: ServerState,
  log: ReturnType<typeof rejectionLog>,
  answers: ReturnType<typeof outputAnswers>,
): http.RequestListener {
  return (req, res) => {
    const ours = refuseUnlessOurs(req, state.port, state.token);
    if (ours) return log.refuse(res, ours.status);
    state.lastRequest = Date.now();
    const url = req.url ?? "/";
    if (req.method === "GET" && url === "/health") {
      return end(res, 200, JSON.stringify({ ok: true, pid: process.pid, project: opts.project }));
    }
    const hookMatch = req.method === "POST" ? /^\/hook\/([a-z]{1,32})$/.exec(url) : null;
    if (!hookMatch || !adapterFor(hookMatch[1]!)) return log.refuse(res, 404);
    const bad = refuseBody(req, state.inFlight);
    if (bad) return log.refuse(res, bad.status);
    const agent = Number(req.headers["x-tapedeck-agent"]);
    if (!state.agents.has(agent) && ownProcessAlive(agent)) state.agents.add(agent);
    receiveHook(req, res, state, (data) => answers.answer(res, recordPayload(opts, hookMatch[1]!, data)));
  };
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startHookServer(opts: ServeOptions): Promise<HookServer> {
  const lingerMs = opts.lingerMs ?? 30 * 60 * 1000;
  const token = newToken();
  const reply = newToken();
  const runFile = opts.runFile ?? runFilePath(opts.project);
  const state: ServerState = {
    port: opts.port,
    token,
    lastRequest: Date.now(),
    inFlight: 0,
    agents: new Set((opts.agentPids ?? []).filter(ownProcessAlive)),
  };
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });
  const log = rejectionLog(opts.project);
  const answers = outputAnswers(runFile, opts.project, reply);
  const server = http.createServer(requestHandler(opts, state, log, answers));
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  state.port = await listen(server, opts.port);
  const port = state.port;
  removeOutputs(runFile);
  writeRunFile(runFile, { port, pid: process.pid, token, reply });

  let closing = false;
  const close = async () => {
    if (closing) return done;
    closing = true;
    clearInterval(timer);
    // Unannounce first: a client that still finds the run file finds a listening server.
    try {
      removeRunFile(runFile, process.pid);
    } catch {
      // the run directory went away; nothing to unannounce
    }
    log.report(true);
    answers.removeOld(true);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    resolveDone();
    return done;
  };

  const timer = setInterval(
    () => {
      answers.removeOld();
      for (const pid of state.agents) if (!ownProcessAlive(pid)) state.agents.delete(pid);
      if (state.agents.size === 0 && Date.now() - state.lastRequest > lingerMs) void close();
      // A project deleted (or its tapedeck directory removed) has nothing left to serve.
      else if (!existsSync(tapedeckDir(opts.project))) void close();
    },
    Math.min(1000, lingerMs),
  );
  timer.unref();

  return { port, token, reply, close, done, rejected: log.count };
}
