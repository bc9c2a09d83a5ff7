import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig, writeConfig } from "../../src/core/archive/config.ts";
import { readRunFile } from "../../src/serve/runfile.ts";
import { type HookServer, MAX_BODY_BYTES, MAX_IN_FLIGHT, startHookServer } from "../../src/serve/server.ts";
import { tempProject } from "../helpers/session.ts";

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function project() {
  const p = tempProject();
  cleanups.push(p.cleanup);
  writeConfig(p.root, {
    schema_version: 1,
    providers: { claude: { recording: "on", mode: "capture-only", transport: "http", http_port: 1 } },
  });
  return p.root;
}

async function serve(root: string, extra: Partial<Parameters<typeof startHookServer>[0]> = {}) {
  const server = await startHookServer({
    project: root,
    port: 0,
    runFile: join(root, "run.endpoint"),
    ...extra,
  });
  cleanups.push(() => server.close());
  return server;
}

interface Sent {
  status: number;
  body: string;
}

function request(
  server: Pick<HookServer, "port" | "token">,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = {},
  method = "POST",
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path,
        method,
        headers: {
          "content-type": "application/json",
          "x-tapedeck-token": server.token,
          ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const post = (server: HookServer, body: object, headers: Record<string, string> = {}) =>
  request(server, "/hook/claude", JSON.stringify(body), headers);

function events(root: string, id = "http-1"): Array<{ kind: string; sequence: number }> {
  const file = join(root, ".tapedeck", "claude-sessions", id, "events.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const prompt = (n: number) => ({
  session_id: "http-1",
  transcript_path: "/nonexistent",
  hook_event_name: "UserPromptSubmit",
  prompt_id: `p${n}`,
  prompt: "hello",
});

const diagnostics = (root: string) => {
  const file = join(root, ".tapedeck", "diagnostics.jsonl");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
};

describe("http hook server", () => {
  it("records a POSTed hook and answers an empty 2xx", async () => {
    const root = project();
    const server = await serve(root);
    expect(await post(server, prompt(1))).toEqual({ status: 200, body: "" });
    expect(events(root).map((e) => e.kind)).toEqual(["user_prompt"]);
  });

  it("announces port, pid and a fresh token in a 0600 run file, and removes it on close", async () => {
    const root = project();
    const server = await serve(root);
    const runFile = join(root, "run.endpoint");
    expect(readRunFile(runFile)).toEqual({
      port: server.port,
      pid: process.pid,
      token: server.token,
      reply: server.reply,
    });
    expect(server.reply).not.toBe(server.token);
    expect(statSync(runFile).mode & 0o777).toBe(0o600);
    const other = await startHookServer({ project: root, port: 0, runFile: join(root, "other.endpoint") });
    expect(other.token).not.toBe(server.token);
    await other.close();
    await server.close();
    expect(existsSync(runFile)).toBe(false);
  });

  it("refuses a request without this run's token, and never reads its body or records it", async () => {
    const root = project();
    const server = await serve(root);
    expect((await post(server, prompt(1), { "x-tapedeck-token": "wrong" })).status).toBe(403);
    expect((await post(server, prompt(2), { "x-tapedeck-token": "" })).status).toBe(403);
    expect(events(root)).toEqual([]);
    expect(server.rejected()).toBe(2);
  });

  it("counts strangers in memory: 2,000 refused requests leave at most one diagnostic line", async () => {
    const root = project();
    const server = await serve(root);
    for (let i = 0; i < 2000; i += 1) await post(server, prompt(i), { "x-tapedeck-token": "nope" });
    expect(server.rejected()).toBe(2000);
    expect(diagnostics(root).length).toBeLessThanOrEqual(1);
    await server.close();
    // The count is reported (without content) when the server stops.
    const last = JSON.parse(diagnostics(root).at(-1)!);
    expect(last).toMatchObject({ stage: "serve", code: "rejected" });
    expect(diagnostics(root).length).toBeLessThanOrEqual(2);
  });

  it("refuses a web page: any Origin header, a Host other than 127.0.0.1:port, a text/plain POST", async () => {
    const root = project();
    const server = await serve(root);
    expect((await post(server, prompt(1), { origin: "http://evil.example" })).status).toBe(403);
    expect((await post(server, prompt(2), { host: `attacker.example:${server.port}` })).status).toBe(421);
    expect((await post(server, prompt(3), { host: `localhost:${server.port}` })).status).toBe(421);
    expect((await post(server, prompt(4), { "content-type": "text/plain" })).status).toBe(415);
    expect((await request(server, "/health", undefined, { host: "evil.example" }, "GET")).status).toBe(421);
    expect(events(root)).toEqual([]);
  });

  it("answers /health only to its own token, and only then names the project", async () => {
    const root = project();
    const server = await serve(root);
    const stranger = await request(server, "/health", undefined, { "x-tapedeck-token": "x" }, "GET");
    expect(stranger.status).toBe(403);
    expect(stranger.body).not.toContain(root);
    const ok = await request(server, "/health", undefined, {}, "GET");
    expect(JSON.parse(ok.body)).toEqual({ ok: true, pid: process.pid, project: root });
  });

  it("refuses an announced body over the cap before reading it, and a body longer than announced", async () => {
    const root = project();
    const server = await serve(root);
    const big = await request(server, "/hook/claude", undefined, {
      "content-length": String(MAX_BODY_BYTES + 1),
    });
    expect(big.status).toBe(413);
    expect(
      (await request(server, "/hook/claude", undefined, { "transfer-encoding": "chunked" })).status,
    ).toBe(411);
    expect(events(root)).toEqual([]);
  });

  it("answers a stranger from the headers alone: a 64 MiB body announced is never waited for", async () => {
    const root = project();
    const server = await serve(root);
    const status = await new Promise<number>((resolve, reject) => {
      const req = hookRequest(server.port, "stranger", String(64 * 1024 * 1024));
      req.on("response", (res) => resolve(res.statusCode ?? 0));
      req.on("error", reject);
      // Headers only: the old server read the whole body before looking at the token.
      req.flushHeaders();
    });
    expect(status).toBe(403);
  });

  it(`declines more than ${MAX_IN_FLIGHT} bodies in flight with 503 (the client then records in-process)`, async () => {
    const root = project();
    const server = await serve(root);
    const open: http.ClientRequest[] = [];
    for (let i = 0; i < MAX_IN_FLIGHT; i += 1) {
      const req = hookRequest(server.port, server.token, "100");
      req.on("error", () => {});
      req.write("{");
      open.push(req);
    }
    await new Promise((r) => setTimeout(r, 100));
    expect((await post(server, prompt(1))).status).toBe(503);
    for (const req of open) req.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await post(server, prompt(2))).status).toBe(200);
  });

  it("applies record stop at once", async () => {
    const root = project();
    const server = await serve(root);
    await post(server, prompt(1));
    const config = readConfig(root)!;
    config.providers.claude!.recording = "off";
    writeConfig(root, config);
    await post(server, prompt(2));
    expect(events(root)).toHaveLength(1);
  });

  it("answers 404 for an unknown provider or path", async () => {
    const root = project();
    const server = await serve(root);
    expect((await request(server, "/hook/nope", "{}")).status).toBe(404);
    expect((await request(server, "/elsewhere", "{}")).status).toBe(404);
    expect((await request(server, "/agents/0", "")).status).toBe(404);
  });

  it("watches only real agents: a dead or non-positive pid never keeps it alive", async () => {
    const root = project();
    const server = await serve(root, { agentPids: [2147483646, 0, -1], lingerMs: 100 });
    await post(server, prompt(1), { "x-tapedeck-agent": "0" });
    await post(server, prompt(2), { "x-tapedeck-agent": "2147483646" });
    await server.done;
    expect(existsSync(join(root, "run.endpoint"))).toBe(false);
  });

  it("stays up while a watched agent lives, then lingers and exits", async () => {
    // The server's clock is the test's: its checks run on an interval and read Date.now, faked alone.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    cleanups.push(() => void vi.useRealTimers());
    const agent = spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], { stdio: "ignore" });
    const agentGone = new Promise((resolve) => agent.once("exit", resolve));
    cleanups.push(() => void agent.kill("SIGKILL"));
    const root = project();
    const runFile = join(root, "run.endpoint");
    const server = await serve(root, { lingerMs: 10_000 });
    let exited = false;
    void server.done.then(() => {
      exited = true;
    });
    await post(server, prompt(1), { "x-tapedeck-agent": String(agent.pid) });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(exited).toBe(false);
    expect(readRunFile(runFile)?.port).toBe(server.port);
    agent.kill("SIGKILL");
    await agentGone;
    // The agent gone, the server lingers for lingerMs after the last request, then exits.
    await post(server, prompt(2));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(exited).toBe(false);
    expect(readRunFile(runFile)?.port).toBe(server.port);
    await vi.advanceTimersByTimeAsync(6_000);
    await server.done;
    expect(existsSync(runFile)).toBe(false);
  });

  it("never sleeps on a busy session lock: the event is spooled at once and other sessions go on", async () => {
    const root = project();
    const server = await serve(root);
    await post(server, prompt(1));
    const dir = join(root, ".tapedeck", "claude-sessions", "http-1");
    // A live writer (this process) holds the lock, e.g. a long `tapedeck repair`.
    writeFileSync(join(dir, "lock"), `${process.pid} held-by-test`);
    // A lock wait the recorder would honour on the command path: were the server to wait, each hook below
    // would hold its event loop (and this test) for ten minutes.
    const config = readConfig(root)!;
    writeConfig(root, { ...config, lock_timeout_ms: 600_000 });
    const other = { ...prompt(9), session_id: "http-2" };
    for (let i = 2; i < 8; i += 1) await post(server, prompt(i));
    await post(server, other);
    expect(events(root, "http-2").map((e) => e.kind)).toEqual(["user_prompt"]);
    expect(existsSync(join(dir, "pending"))).toBe(true);
  });

  it("records many events in order", async () => {
    const root = project();
    const server = await serve(root);
    for (let i = 0; i < 50; i += 1) await post(server, prompt(i));
    expect(events(root).map((e) => e.sequence)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});

/** A POST to the claude hook route whose headers announce `length` bytes, sent with `token`. */
function hookRequest(port: number, token: string, length: string): http.ClientRequest {
  return http.request({
    host: "127.0.0.1",
    port,
    path: "/hook/claude",
    method: "POST",
    headers: { "content-type": "application/json", "x-tapedeck-token": token, "content-length": length },
  });
}
