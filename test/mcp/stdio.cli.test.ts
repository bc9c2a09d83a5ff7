// `tapedeck mcp` survives a message over 10 MiB: the line is refused with a
// JSON-RPC error (when it had an id) and the next request is served. With the
// SDK's own stdio transport the server stopped reading at the first such line
// and the agent lost its tools for the session.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { BoundedLineReader, MAX_MESSAGE_BYTES, requestIdFromEdges } from "../../src/mcp/stdio-transport.ts";
import { CLI as CLI_JS, ensureBuilt } from "../helpers/cli-run.ts";
import { tempProject } from "../helpers/session.ts";

beforeAll(ensureBuilt, 120_000);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

describe("the bounded line reader", () => {
  it("splits lines across chunks and drops a trailing CR, as the SDK's framing does", () => {
    const r = new BoundedLineReader(16);
    expect(r.push(Buffer.from('{"a":'))).toEqual([]);
    expect(r.push(Buffer.from('1}\r\n{"b":2}\n{"c"'))).toEqual([{ line: '{"a":1}' }, { line: '{"b":2}' }]);
    expect(r.push(Buffer.from(":3}\n"))).toEqual([{ line: '{"c":3}' }]);
  });

  it("a line over the limit becomes one oversized item, however it is chunked, and the next line is whole", () => {
    const r = new BoundedLineReader(64);
    const big = `{"jsonrpc":"2.0","method":"x","params":{"p":"${"z".repeat(5000)}"},"id":42}`;
    const items = [];
    for (let i = 0; i < big.length; i += 100) items.push(...r.push(Buffer.from(big.slice(i, i + 100))));
    items.push(...r.push(Buffer.from('\n{"ok":1}\n')));
    expect(items).toHaveLength(2);
    const [over, next] = items as [{ oversized: { head: string; tail: string } }, { line: string }];
    expect(over.oversized.head.length).toBeLessThanOrEqual(1024);
    expect(over.oversized.tail.length).toBeLessThanOrEqual(1024);
    expect(requestIdFromEdges(over.oversized.head, over.oversized.tail)).toBe(42);
    expect(next).toEqual({ line: '{"ok":1}' });
  });

  it("the id comes from the top level only: first or last key, number or string", () => {
    expect(requestIdFromEdges('{"jsonrpc":"2.0","id":"r-1","method":"x","params":{', "")).toBe("r-1");
    expect(requestIdFromEdges('{"id":7,"method"', "")).toBe(7);
    expect(requestIdFromEdges('{"method":"x"', '"p":1},"id":9}')).toBe(9);
    expect(requestIdFromEdges('{"method":"x"', '{"id":9}}')).toBeUndefined();
    expect(requestIdFromEdges('{"method":"notifications/x"', '"p":1}}')).toBeUndefined();
  });
});

interface Rpc {
  id?: number | string;
  result?: { content?: { text?: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

/** The built `tapedeck mcp`, spoken to as a client does: one JSON message per line. */
function startMcp(cwd: string): {
  child: ChildProcessWithoutNullStreams;
  replies: Rpc[];
  exited: () => boolean;
} {
  const child = spawn(process.execPath, [CLI_JS, "mcp", "--provider", "claude"], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd },
  });
  cleanups.push(() => child.kill("SIGKILL"));
  const replies: Rpc[] = [];
  let buf = "";
  child.stdout.on("data", (d: Buffer) => {
    buf += d.toString();
    let nl = buf.indexOf("\n");
    while (nl >= 0) {
      replies.push(JSON.parse(buf.slice(0, nl)) as Rpc);
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
  });
  child.stdin.on("error", () => {});
  let gone = false;
  child.on("exit", () => {
    gone = true;
  });
  return { child, replies, exited: () => gone };
}

async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function write(child: ChildProcessWithoutNullStreams, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (child.stdin.write(text)) resolve();
    else child.stdin.once("drain", resolve);
  });
}

describe("tapedeck mcp and a message over 10 MiB", () => {
  it("answers it with an error for its id and serves the next call", async () => {
    const t = tempProject("tapedeck-mcp-big-");
    cleanups.push(t.cleanup);
    writeConfig(t.root, {
      schema_version: 1,
      providers: { claude: { recording: "off", mode: "capture-only" } },
    });
    const mcp = startMcp(t.root);
    await write(
      mcp.child,
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      })}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
    await waitFor(() => mcp.replies.some((r) => r.id === 1), "initialize");
    // As the SDK's client writes it: the id last.
    const pad = "x".repeat(MAX_MESSAGE_BYTES + 1024 * 1024);
    const huge = `{"method":"tools/call","params":{"name":"tapedeck_status","arguments":{"pad":"${pad}"}},"jsonrpc":"2.0","id":2}\n`;
    const status = `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "tapedeck_status", arguments: {} } })}\n`;
    await write(mcp.child, huge);
    await write(mcp.child, status);
    await waitFor(() => mcp.replies.some((r) => r.id === 3) || mcp.exited(), "the call after the huge one");
    expect(mcp.exited()).toBe(false);
    expect(mcp.replies.find((r) => r.id === 2)?.error).toEqual({
      code: -32600,
      message: "message too large: tapedeck reads at most 10 MiB",
    });
    const served = mcp.replies.find((r) => r.id === 3)!;
    expect(served.error).toBeUndefined();
    expect(served.result?.content?.[0]?.text).toContain("tapedeck");
    // And a huge notification (no id) is dropped without an answer; serving goes on.
    await write(mcp.child, `{"jsonrpc":"2.0","method":"notifications/x","params":{"p":"${pad}"}}\n`);
    await write(mcp.child, status.replace('"id":3', '"id":4'));
    await waitFor(() => mcp.replies.some((r) => r.id === 4), "the call after the huge notification");
    expect(mcp.replies.map((r) => r.id)).toEqual([1, 2, 3, 4]);
  }, 60_000);
});
