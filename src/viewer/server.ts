// `tapedeck view`'s local server: read-only, on 127.0.0.1 only, every request under a random per-run token.
// A web page the user visits can reach 127.0.0.1 too, so: the token (which such a page cannot guess) in the
// path, the Host header pinned to 127.0.0.1:port (a rebound DNS name carries its own), no CORS headers, an
// Origin or Sec-Fetch-Site of another site refused, and a strict CSP with no-referrer so the token in the
// URL never leaves in a Referer.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { ScenarioResult } from "../scenario/schema.ts";
import { ApiError, ViewerData } from "./api.ts";

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": PAGE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store",
};

export interface PageAssets {
  js: string;
  css: string;
}

/** The page bundle (scripts/build.mjs writes dist/viewer/): beside the CLI's chunks, or dist/ from the source tree. */
export function loadPageAssets(): PageAssets {
  const candidates = [
    new URL("../viewer/", import.meta.url),
    new URL("./viewer/", import.meta.url),
    new URL("../../dist/viewer/", import.meta.url),
  ].map((u) => fileURLToPath(u));
  for (const dir of candidates) {
    if (existsSync(`${dir}page.js`) && existsSync(`${dir}page.css`)) {
      return { js: readFileSync(`${dir}page.js`, "utf8"), css: readFileSync(`${dir}page.css`, "utf8") };
    }
  }
  throw new Error("the viewer's page is not built (run npm run build)");
}

export function shellHtml(): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<title>tapedeck</title>",
    '<link rel="stylesheet" href="page.css">',
    '</head><body><div id="app"></div><script src="page.js"></script></body></html>',
  ].join("\n");
}

export interface ViewerServer {
  url: string;
  port: number;
  token: string;
  server: Server;
  /** The URL that opens the listed session in this directory, or null when it is not listed. */
  sessionUrl(dir: string): string | null;
  close(): Promise<void>;
}

export interface ViewerOptions {
  projects: readonly string[];
  /** 0: any free port */
  port?: number;
  assets?: PageAssets;
  scenarioResults?: readonly ScenarioResult[];
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": type,
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function refuse(res: ServerResponse, status: number, message: string): void {
  send(res, status, "text/plain; charset=utf-8", `${message}\n`);
}

/**
 * A top-level navigation from elsewhere: the launcher page `tapedeck view` opens from file:// (Chromium sends
 * it as cross-site). It may load the page's shell, which holds no data, and nothing else.
 */
function crossSiteNavigation(req: IncomingMessage): boolean {
  return (
    req.headers["sec-fetch-site"] === "cross-site" &&
    req.headers["sec-fetch-mode"] === "navigate" &&
    req.headers["sec-fetch-dest"] === "document"
  );
}

/** Why a request is refused before its path is looked at, or null. */
export function gate(req: IncomingMessage, port: number): string | null {
  if (req.headers.host !== `127.0.0.1:${port}`) return "wrong Host header";
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://127.0.0.1:${port}`) return "cross-origin request";
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none" && !crossSiteNavigation(req))
    return "cross-site request";
  if (req.method !== "GET" && req.method !== "HEAD") return "read-only";
  return null;
}

function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const v = params.get(name);
  if (v === null) return fallback;
  if (!/^\d{1,15}$/.test(v)) throw new ApiError(400, `${name} is not a number`);
  return Number(v);
}

function json(res: ServerResponse, value: unknown): void {
  send(res, 200, "application/json; charset=utf-8", JSON.stringify(value));
}

function route(
  data: ViewerData,
  assets: PageAssets,
  path: string,
  params: URLSearchParams,
  res: ServerResponse,
) {
  if (path === "" || path === "index.html") return send(res, 200, "text/html; charset=utf-8", shellHtml());
  if (path === "page.js") return send(res, 200, "text/javascript; charset=utf-8", assets.js);
  if (path === "page.css") return send(res, 200, "text/css; charset=utf-8", assets.css);
  if (path === "api/sessions") return json(res, { sessions: data.sessions() });
  if (path === "api/scenario-results") return json(res, { results: data.scenarioResults() });
  if (path === "api/experiments") return json(res, { experiments: data.experiments() });
  const x = /^api\/experiments\/(\d{1,7})$/.exec(path);
  if (x) return json(res, data.experiment(x[1]!));
  if (path === "api/search") return json(res, data.search(params.get("q") ?? ""));
  if (path === "api/usage") return json(res, data.usage(params));
  const m = /^api\/sessions\/(\d{1,7})\/(events|integrity|raw|locate)$/.exec(path);
  if (!m) throw new ApiError(404, "not found");
  const key = m[1]!;
  if (m[2] === "events") {
    return json(res, data.page(key, intParam(params, "offset", 0), intParam(params, "limit", 500)));
  }
  if (m[2] === "integrity") return json(res, data.integrity(key));
  if (m[2] === "locate") return json(res, { offset: data.locate(key, intParam(params, "seq", 0)) });
  return send(res, 200, "application/octet-stream", data.raw(key, intParam(params, "offset", 0)));
}

function handler(data: ViewerData, assets: PageAssets, token: string, port: () => number) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const refused = gate(req, port());
    if (refused) return refuse(res, refused === "read-only" ? 405 : 403, refused);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const [, given = "", ...rest] = url.pathname.split("/");
    if (!sameToken(given, token)) return refuse(res, 403, "missing or wrong token");
    const path = rest.join("/");
    if (crossSiteNavigation(req) && rest.length > 0 && path !== "" && path !== "index.html") {
      return refuse(res, 403, "cross-site request");
    }
    if (rest.length === 0) {
      // /TOKEN without its slash: relative asset URLs need the slash.
      res.writeHead(302, { ...SECURITY_HEADERS, location: `/${token}/` });
      return res.end();
    }
    try {
      route(data, assets, path, url.searchParams, res);
    } catch (error) {
      // The message of an ApiError is ours; anything else may hold a path: the status says enough.
      if (error instanceof ApiError) refuse(res, error.status, error.message);
      else refuse(res, 500, "internal error");
    }
  };
}

/** Starts the viewer on 127.0.0.1 (never another address). */
export async function startViewer(options: ViewerOptions): Promise<ViewerServer> {
  const token = randomBytes(24).toString("base64url");
  const data = new ViewerData(options.projects, options.scenarioResults ?? []);
  const assets = options.assets ?? loadPageAssets();
  let port = 0;
  const server = createServer(handler(data, assets, token, () => port));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/${token}/`;
  return {
    url,
    port,
    token,
    server,
    sessionUrl: (dir) => {
      const key = data.keyOf(dir);
      return key === null ? null : `${url}#s=${key}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
