import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { startViewer, type ViewerServer } from "../../src/viewer/server.ts";
import { spec, tempProject } from "../helpers/session.ts";

const ASSETS = { js: "/* page */", css: "/* style */" };

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

let project: { root: string; cleanup: () => void };
let viewer: ViewerServer;
let clock = Date.parse("2026-12-01T10:00:00.000Z");
const tick = () => {
  clock += 100;
  return new Date(clock).toISOString();
};

beforeAll(async () => {
  project = tempProject("tapedeck-viewer-server-");
  const events: NormalizedEvent[] = [
    { kind: "session_start", event_id: "s", payload: { source: "startup" }, timestamp: tick() },
    { kind: "user_prompt", event_id: "p", payload: { prompt: "list the files" }, timestamp: tick() },
    {
      kind: "tool_call",
      event_id: "c",
      payload: { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "u1" },
      timestamp: tick(),
    },
    {
      kind: "tool_result",
      event_id: "r",
      payload: { tool_name: "Bash", tool_response: { stdout: "a\nb" }, tool_use_id: "u1" },
      timestamp: tick(),
    },
  ];
  recordEvents(spec(project.root), events, tick);
  viewer = await startViewer({ projects: [project.root], assets: ASSETS });
});

afterAll(async () => {
  await viewer?.close();
  project?.cleanup();
});

describe("the viewer's server", () => {
  it("listens on 127.0.0.1 only, with a random token in its URL", () => {
    const address = viewer.server.address();
    expect(address).toMatchObject({ address: "127.0.0.1", family: "IPv4" });
    expect(viewer.url).toBe(`http://127.0.0.1:${viewer.port}/${viewer.token}/`);
    expect(viewer.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("serves the page and the API under the token, with a strict CSP, no CORS and no referrer", async () => {
    const page = await get(viewer.port, `/${viewer.token}/`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="page.js">');
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect(page.headers["access-control-allow-origin"]).toBeUndefined();
    const list = await get(viewer.port, `/${viewer.token}/api/sessions`);
    const sessions = JSON.parse(list.body).sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ key: "0", provider: "claude", turns: 1, tool_calls: 1 });
  });

  it("pages a session's events by byte offset", async () => {
    const first = JSON.parse((await get(viewer.port, `/${viewer.token}/api/sessions/0/events?limit=2`)).body);
    expect(first.events.map((e: { kind: string }) => e.kind)).toEqual(["session_start", "user_prompt"]);
    expect(first.nextOffset).toBeGreaterThan(0);
    const next = JSON.parse(
      (await get(viewer.port, `/${viewer.token}/api/sessions/0/events?offset=${first.nextOffset}&limit=2`))
        .body,
    );
    expect(next.events.map((e: { kind: string }) => e.kind)).toEqual(["tool_call", "tool_result"]);
    expect(next.nextOffset).toBeNull();
    const raw = await get(viewer.port, `/${viewer.token}/api/sessions/0/raw`);
    expect(raw.body.split("\n").filter(Boolean)).toHaveLength(4);
  });

  it("refuses a request without the token, or with a wrong one", async () => {
    for (const path of [
      "/",
      "/api/sessions",
      `/${viewer.token.slice(1)}/api/sessions`,
      `/x${viewer.token}/`,
    ]) {
      const res = await get(viewer.port, path);
      expect(res.status, path).toBe(403);
      expect(res.body).not.toContain("claude");
    }
  });

  it("refuses a wrong Host header (DNS rebinding) and another site's Origin, even with the token", async () => {
    const path = `/${viewer.token}/api/sessions`;
    expect((await get(viewer.port, path, { host: `evil.example:${viewer.port}` })).status).toBe(403);
    expect((await get(viewer.port, path, { host: `localhost:${viewer.port}` })).status).toBe(403);
    expect((await get(viewer.port, path, { origin: "http://evil.example" })).status).toBe(403);
    expect((await get(viewer.port, path, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await get(viewer.port, path, { origin: `http://127.0.0.1:${viewer.port}` })).status).toBe(200);
  });

  it("a cross-site top-level navigation (the launcher page, from file://) loads the shell and nothing else", async () => {
    // The headers Chromium sends for a meta refresh from a file:// page.
    const nav = {
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    };
    const shell = await get(viewer.port, `/${viewer.token}/`, nav);
    expect(shell.status).toBe(200);
    expect(shell.body).toContain('<div id="app">');
    expect((await get(viewer.port, `/${viewer.token}/index.html`, nav)).status).toBe(200);
    for (const path of ["api/sessions", "api/sessions/0/raw", "api/sessions/0/events", "page.js"]) {
      const res = await get(viewer.port, `/${viewer.token}/${path}`, nav);
      expect(res.status, path).toBe(403);
      expect(res.body).not.toContain("claude");
    }
    expect((await get(viewer.port, "/", nav)).status).toBe(403);
    expect((await get(viewer.port, `/${viewer.token}/`, { ...nav, "sec-fetch-mode": "cors" })).status).toBe(
      403,
    );
    expect((await get(viewer.port, `/${viewer.token}/`, { ...nav, "sec-fetch-dest": "iframe" })).status).toBe(
      403,
    );
  });

  it("is read-only: anything but GET and HEAD is refused", async () => {
    expect((await get(viewer.port, `/${viewer.token}/api/sessions`, {}, "POST")).status).toBe(405);
    expect((await get(viewer.port, `/${viewer.token}/api/sessions`, {}, "DELETE")).status).toBe(405);
  });

  it("answers 404 for an unknown session and 400 for a bad offset, without a path in the message", async () => {
    const missing = await get(viewer.port, `/${viewer.token}/api/sessions/7/events`);
    expect(missing.status).toBe(404);
    const bad = await get(viewer.port, `/${viewer.token}/api/sessions/0/events?offset=-1`);
    expect(bad.status).toBe(400);
    expect(bad.body).not.toContain(project.root);
  });

  it("answers a query the parser refuses with 400 and the parser's reason, not a bare 500", async () => {
    const res = await get(viewer.port, `/${viewer.token}/api/search?q=${"a".repeat(5000)}`);
    expect(res.status).toBe(400);
    expect(res.body).toContain("bad query: longer than 4096 bytes");
  });

  it("gives the integrity data: stored checksums, a read-only scan, the redaction counts", async () => {
    const info = JSON.parse((await get(viewer.port, `/${viewer.token}/api/sessions/0/integrity`)).body);
    expect(info.scan).toMatchObject({ valid_events: 4, malformed_lines: 0, redaction_count: 0 });
    expect(info.manifest.session_id).toBe("claude:sess-1");
  });
});
