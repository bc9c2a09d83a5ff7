// Who may use the proxy. It listens on 127.0.0.1, which every local user and
// every web page in the user's browser can reach, and it writes into the
// user's archive and mirror and forwards with the user's API key. So a request
// is answered only when it carries the proxy's own credential, and that check
// comes before anything else: before the body is read, before any extension
// runs, before anything goes upstream.
//
// - The credential is a secret first path segment: the base URL handed to the
//   agent is http://127.0.0.1:PORT/<secret>. Measured with the real clients
//   (test/e2e/claude-proxy.test.ts, test/e2e/codex-record.test.ts): claude
//   (ANTHROPIC_BASE_URL) and codex (the provider's base_url) keep the path
//   prefix on every call they make (claude: messages, subagents, compaction;
//   codex: responses, subagents, compaction).
// - Or a header, `x-tapedeck-proxy-key: <secret>`, for an agent whose base URL
//   would put the secret on its command line, which other users can read
//   (/proc/<pid>/cmdline, ps): `tapedeck run codex` sets a custom provider's
//   `env_http_headers`, so only the name of an environment variable is on
//   codex's command line. The header is dropped before forwarding.
// - Compared in constant time: both sides are hashed to 32 bytes first, so not
//   even the length of the candidate shows in the timing.
// - A web page cannot send the secret (it does not know it), but DNS rebinding
//   would let it read answers: a request with an Origin header, or a Host
//   other than this loopback address and port, is refused as well.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { SECRET_HEADER } from "../core/ports/proxy-extension.ts";

/** `tpx_` and 32 random bytes: recognisable in a pasted URL, unguessable. */
export function newProxySecret(): string {
  return `tpx_${randomBytes(32).toString("base64url")}`;
}

/** A secret given by the user (TAPEDECK_PROXY_SECRET) must be as strong and as path-safe as ours. */
export function isValidSecret(secret: string): boolean {
  return /^[A-Za-z0-9_-]{32,128}$/.test(secret);
}

export type GateResult =
  | { ok: true /** The request target without the secret segment: what goes upstream. */; target: string }
  | { ok: false; status: 401 | 403; reason: "origin" | "host" | "credential" };

function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

/** The first segment of an origin-form target, and the rest ("/…" or "?…" or ""). */
function splitFirstSegment(target: string): { segment: string; rest: string } | undefined {
  if (!target.startsWith("/")) return undefined;
  let end = 1;
  while (end < target.length && target[end] !== "/" && target[end] !== "?") end += 1;
  return { segment: target.slice(1, end), rest: target.slice(end) };
}

export class ProxyGate {
  readonly secret: string;
  readonly #secretDigest: Buffer;
  #hosts: Set<string> = new Set();

  constructor(secret: string) {
    if (!isValidSecret(secret))
      throw new TypeError("the proxy secret must be 32-128 characters of [A-Za-z0-9_-]");
    this.secret = secret;
    this.#secretDigest = digest(secret);
  }

  /** Set once the port is known: the Host values a loopback client of this proxy sends. */
  listening(port: number): void {
    this.#hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  }

  #matches(candidate: string): boolean {
    return timingSafeEqual(digest(candidate), this.#secretDigest);
  }

  check(headers: Record<string, string | string[] | undefined>, target: string): GateResult {
    if (headers.origin !== undefined) return { ok: false, status: 403, reason: "origin" };
    const host = headers.host;
    if (typeof host !== "string" || !this.#hosts.has(host.toLowerCase())) {
      return { ok: false, status: 403, reason: "host" };
    }
    const key = headers[SECRET_HEADER];
    if (key !== undefined) {
      return typeof key === "string" && this.#matches(key)
        ? { ok: true, target }
        : { ok: false, status: 401, reason: "credential" };
    }
    const parts = splitFirstSegment(target);
    // Hash always, so a request without a first segment takes as long as one with a wrong one.
    if (!this.#matches(parts?.segment ?? "") || !parts) {
      return { ok: false, status: 401, reason: "credential" };
    }
    return { ok: true, target: parts.rest.startsWith("/") ? parts.rest : `/${parts.rest}` };
  }
}

export { SECRET_HEADER };
