import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig, writeConfig } from "../src/core/config.ts";
import { startHookServer } from "../src/serve/server.ts";
import { tempProject } from "./helpers/session.ts";

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

const TOKEN = "t0k3n-for-tests-only";

function project() {
  const p = tempProject();
  cleanups.push(p.cleanup);
  writeConfig(p.root, {
    schema_version: 1,
    providers: { claude: { recording: "on", mode: "capture-only", transport: "http", http_token: TOKEN } },
  });
  return p.root;
}

function post(port: number, path: string, body: object, token = TOKEN) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { "content-type": "application/json", "x-tapedeck-token": token },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

function events(root: string, id: string): Array<{ kind: string }> {
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

describe("http hook server", () => {
  it("records a POSTed hook and answers an empty 2xx", async () => {
    const root = project();
    const server = await startHookServer({ project: root, port: 0 });
    cleanups.push(() => server.close());
    const res = await post(server.port, "/hook/claude", prompt(1));
    expect(res).toEqual({ status: 200, body: "" });
    expect(events(root, "http-1").map((e) => e.kind)).toEqual(["user_prompt"]);
  });

  it("ignores a request without the project's token, still answering 2xx", async () => {
    const root = project();
    const server = await startHookServer({ project: root, port: 0 });
    cleanups.push(() => server.close());
    const res = await post(server.port, "/hook/claude", prompt(1), "wrong");
    expect(res.status).toBe(200);
    expect(events(root, "http-1")).toEqual([]);
  });

  it("applies record stop at once", async () => {
    const root = project();
    const server = await startHookServer({ project: root, port: 0 });
    cleanups.push(() => server.close());
    await post(server.port, "/hook/claude", prompt(1));
    const config = readConfig(root)!;
    config.providers.claude!.recording = "off";
    writeConfig(root, config);
    await post(server.port, "/hook/claude", prompt(2));
    expect(events(root, "http-1")).toHaveLength(1);
  });

  it("answers 404 for an unknown provider or path", async () => {
    const root = project();
    const server = await startHookServer({ project: root, port: 0 });
    cleanups.push(() => server.close());
    expect((await post(server.port, "/hook/nope", prompt(1))).status).toBe(404);
    expect((await post(server.port, "/elsewhere", prompt(1))).status).toBe(404);
  });

  it("exits on its own once its agent is gone", async () => {
    const root = project();
    const server = await startHookServer({
      project: root,
      port: 0,
      agentPids: [2147483646],
      graceMs: 100,
      writeStateFile: true,
    });
    expect(existsSync(join(root, ".tapedeck", "serve.json"))).toBe(true);
    await server.done;
    expect(existsSync(join(root, ".tapedeck", "serve.json"))).toBe(false);
  });

  it("records many events quickly in order", async () => {
    const root = project();
    const server = await startHookServer({ project: root, port: 0 });
    cleanups.push(() => server.close());
    for (let i = 0; i < 50; i += 1) await post(server.port, "/hook/claude", prompt(i));
    const seqs = events(root, "http-1").map((e) => (e as unknown as { sequence: number }).sequence);
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});
