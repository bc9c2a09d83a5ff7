// Request plumbing and scenario parsing shared by the mock model servers.
import type http from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

/** Headers as a flat map for the request log, with the credential headers replaced. */
export function flatHeaders(
  req: http.IncomingMessage,
  redacted: ReadonlySet<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    out[k] = redacted.has(k) ? "[redacted]" : Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** The whole request body, decoded from gzip, deflate or brotli. */
export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const enc = req.headers["content-encoding"];
      try {
        if (enc === "gzip") resolve(gunzipSync(raw));
        else if (enc === "deflate") resolve(inflateSync(raw));
        else if (enc === "br") resolve(brotliDecompressSync(raw));
        else resolve(raw);
      } catch (err) {
        reject(err);
      }
    });
    req.on("error", reject);
  });
}

/** `SCENARIO_MCP <tool> <json input>`: the tool's server-side name and its input, or why the input is unusable. */
export function parseMcpScenario(
  arg: string,
): { tool: string; input: Record<string, unknown> } | { error: string } {
  const m = /^(\S+)\s*(.*)$/.exec(arg);
  const tool = m?.[1] ?? "";
  if (!m?.[2]) return { tool, input: {} };
  try {
    const input = JSON.parse(m[2]) as unknown;
    if (input && typeof input === "object" && !Array.isArray(input))
      return { tool, input: input as Record<string, unknown> };
  } catch {
    // below
  }
  return { error: "The MCP scenario input is not a JSON object." };
}
