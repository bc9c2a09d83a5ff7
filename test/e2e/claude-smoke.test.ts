// @module-tag claude
/**
 * Proves the harness: the real `claude` CLI runs offline against our mock, fires the hooks a recorder relies on,
 * and writes the usage the mock sent. Every step continues the same session, as a recorder would see it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnthropicMock, startAnthropicMock } from "../mocks/anthropic-mock.ts";
import { RELIED_ON_HOOK_EVENTS, type ReliedOnHookEvent } from "./claude-hooks.ts";
import { type ClaudeResult, claudeTranscriptPath, makeClaudeHome, runClaude } from "./claude-runner.ts";

type HookPayload = Record<string, unknown> & { session_id: string; hook_event_name: string };

/**
 * The events captured by an http hook instead of `cat >>`. claude -p ends a StopFailure command hook (SIGTERM to
 * its process group) some 15-30 ms after starting it, as it exits: on a loaded machine the hook's shell may not
 * have run `cat` by then, and a full run of the suite lost the payload. An http hook is claude's own request,
 * sent before it exits. SessionStart takes command hooks only, so every other event stays a command hook.
 */
const HTTP_HOOK_EVENTS: ReadonlySet<ReliedOnHookEvent> = new Set(["StopFailure"]);

interface HookReceiver {
  url: string;
  payloads: HookPayload[];
  /**
   * Once claude has exited, every request it made has been read: a connection of ours is accepted after
   * claude's (the kernel queues them in order), then each open connection is read to its end and closed.
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** A loopback server keeping the payload of every hook posted to it. */
async function startHookReceiver(): Promise<HookReceiver> {
  const payloads: HookPayload[] = [];
  const open = new Set<Socket>();
  let onIdle: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "POST")
        payloads.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as HookPayload);
      res.writeHead(200, { "content-type": "application/json", connection: "close" }).end("{}");
    });
  });
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => {
      open.delete(socket);
      if (open.size === 0) onIdle?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    payloads,
    async settled() {
      await new Promise<void>((resolve, reject) => {
        http
          .get(`${url}/settled`, { agent: false }, (res) => res.resume().on("end", resolve))
          .on("error", reject);
      });
      while (open.size > 0) await new Promise<void>((resolve) => (onIdle = resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface TranscriptUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

describe("claude e2e harness (real CLI, mock API)", () => {
  let root: string;
  let home: string;
  let projectDir: string;
  let captureDir: string;
  let mock: AnthropicMock;
  let receiver: HookReceiver;
  let sessionId: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "tapedeck-claude-smoke-"));
    ({ home, projectDir } = makeClaudeHome(join(root, "home"), join(root, "project")));
    captureDir = join(root, "hooks");
    mkdirSync(captureDir);
    receiver = await startHookReceiver();
    const hooks = Object.fromEntries(
      RELIED_ON_HOOK_EVENTS.map((event) => {
        const file = join(captureDir, `${event}.jsonl`);
        const hook = HTTP_HOOK_EVENTS.has(event)
          ? { type: "http", url: `${receiver.url}/${event}`, timeout: 30 }
          : { type: "command", command: `cat >> '${file}'; echo >> '${file}'`, timeout: 30 };
        return [event, [{ matcher: "*", hooks: [hook] }]];
      }),
    );
    mkdirSync(join(projectDir, ".claude"));
    writeFileSync(join(projectDir, ".claude", "settings.json"), JSON.stringify({ hooks }, null, 2));
    mock = await startAnthropicMock();
  });

  afterAll(async () => {
    await mock?.close();
    await receiver?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** Captures are cleared per run so each step only sees the hooks it caused. */
  function resetCaptures(): void {
    for (const event of RELIED_ON_HOOK_EVENTS) rmSync(join(captureDir, `${event}.jsonl`), { force: true });
    receiver.payloads.length = 0;
  }

  function captured(event: ReliedOnHookEvent): HookPayload[] {
    if (HTTP_HOOK_EVENTS.has(event)) return receiver.payloads.filter((p) => p.hook_event_name === event);
    const file = join(captureDir, `${event}.jsonl`);
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as HookPayload);
  }

  async function claude(args: string[]): Promise<ClaudeResult> {
    resetCaptures();
    const result = await runClaude({ home, cwd: projectDir, baseUrl: mock.url, args });
    await receiver.settled();
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.json, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBeDefined();
    return result;
  }

  /** Main-thread assistant usage per message id; claude repeats the usage on each content-block record. */
  function transcriptUsage(): Map<string, TranscriptUsage> {
    const byId = new Map<string, TranscriptUsage>();
    const lines = readFileSync(claudeTranscriptPath(home, projectDir, sessionId), "utf8").split("\n");
    for (const line of lines) {
      if (!line.trim()) continue;
      const rec = JSON.parse(line) as {
        type?: string;
        message?: { id?: string; usage?: TranscriptUsage };
      };
      if (rec.type !== "assistant" || !rec.message?.id || !rec.message.usage) continue;
      const u = rec.message.usage;
      byId.set(rec.message.id, {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
      });
    }
    return byId;
  }

  it("(a) runs Bash via the mock and records the mock's usage in the transcript", async () => {
    const before = mock.usageLog.length;
    const res = await claude(["SCENARIO_BASH echo hello"]);
    expect(res.code).toBe(0);
    expect(res.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    sessionId = res.sessionId!;
    expect(res.json.result).toBe("Done: hello");

    const post = captured("PostToolUse");
    expect(post).toHaveLength(1);
    expect(post[0]).toMatchObject({
      session_id: sessionId,
      tool_name: "Bash",
      tool_input: { command: "echo hello" },
      tool_response: { stdout: "hello" },
    });
    expect(captured("PreToolUse")[0]?.tool_use_id).toBe(post[0]!.tool_use_id);
    expect(captured("SessionStart")[0]?.source).toBe("startup");

    const served = mock.usageLog.slice(before);
    expect(served.map((u) => u.stopReason)).toEqual(["tool_use", "end_turn"]);
    const inTranscript = transcriptUsage();
    expect([...inTranscript.keys()]).toEqual(served.map((u) => u.messageId));
    for (const u of served) expect(inTranscript.get(u.messageId)).toEqual(u.usage);
    const sum = (k: keyof TranscriptUsage) => served.reduce((acc, u) => acc + u.usage[k], 0);
    expect(res.json.usage).toMatchObject({
      input_tokens: sum("input_tokens"),
      output_tokens: sum("output_tokens"),
      cache_read_input_tokens: sum("cache_read_input_tokens"),
      cache_creation_input_tokens: sum("cache_creation_input_tokens"),
    });
    expect(mock.requests.every((r) => r.path.startsWith("/v1/messages"))).toBe(true);
    expect(mock.requests.at(-1)?.sessionId).toBe(sessionId);
    expect(mock.requests.at(-1)?.headers["x-api-key"]).toBe("[redacted]");
  });

  it("(b) a failing Bash command fires PostToolUseFailure", async () => {
    const res = await claude(["--resume", sessionId, "SCENARIO_FAIL"]);
    expect(res.sessionId).toBe(sessionId);
    const failures = captured("PostToolUseFailure");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      tool_name: "Bash",
      tool_input: { command: "echo oops >&2; exit 3" },
    });
    expect(String(failures[0]!.error)).toContain("Exit code 3");
    expect(captured("PostToolUse")).toHaveLength(0);
  });

  it("(c) the Agent tool runs a subagent whose requests carry x-claude-code-agent-id", async () => {
    const res = await claude(["--resume", sessionId, "SCENARIO_AGENT echo from-subagent"]);
    expect(res.sessionId).toBe(sessionId);
    const start = captured("SubagentStart");
    const stop = captured("SubagentStop");
    expect(start).toHaveLength(1);
    expect(stop).toHaveLength(1);
    const agentId = start[0]!.agent_id as string;
    expect(agentId).toMatch(/^a[0-9a-f]+$/);
    expect(stop[0]).toMatchObject({ agent_id: agentId, agent_type: "general-purpose" });
    expect(existsSync(stop[0]!.agent_transcript_path as string)).toBe(true);
    expect(mock.requests.some((r) => r.agentId === agentId && r.sessionId === sessionId)).toBe(true);
    // The subagent's own Bash call is attributed to it in the hook payload.
    const subBash = captured("PostToolUse").find((p) => p.tool_name === "Bash");
    expect(subBash).toMatchObject({ agent_id: agentId, tool_response: { stdout: "from-subagent" } });
    expect(res.json.result).toBe("Agent finished: Done: from-subagent");
  });

  it("(d) /compact fires PreCompact and PostCompact with the mock's summary", async () => {
    const res = await claude(["--resume", sessionId, "/compact"]);
    expect(res.sessionId).toBe(sessionId);
    expect(captured("PreCompact")).toMatchObject([{ session_id: sessionId, trigger: "manual" }]);
    const post = captured("PostCompact");
    expect(post).toHaveLength(1);
    expect(post[0]!.compact_summary).toContain("<summary>");
    expect(captured("SessionStart").map((p) => p.source)).toContain("compact");
    expect(mock.requests.filter((r) => r.scenario === "compact")).toHaveLength(1);
  });

  it("(e) --resume keeps the session id and reports SessionStart source resume", async () => {
    const res = await claude(["--resume", sessionId, "SCENARIO_TEXT again"]);
    expect(res.code).toBe(0);
    expect(res.sessionId).toBe(sessionId);
    expect(res.json.result).toBe("Mock reply.");
    expect(captured("SessionStart")).toMatchObject([{ session_id: sessionId, source: "resume" }]);
    expect(captured("Stop")).toMatchObject([
      { session_id: sessionId, last_assistant_message: "Mock reply." },
    ]);
  });

  it("(f) an API error ends the turn with StopFailure instead of Stop", async () => {
    const res = await claude(["--resume", sessionId, "SCENARIO_APIERROR"]);
    expect(res.json).toMatchObject({ is_error: true, api_error_status: 400 });
    expect(captured("StopFailure")).toMatchObject([{ session_id: sessionId }]);
    expect(captured("Stop")).toHaveLength(0);
  });
});
