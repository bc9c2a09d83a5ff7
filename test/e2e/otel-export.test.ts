// @module-tag claude
// @module-tag codex
// @module-tag gemini
/**
 * End to end: sessions recorded from the real `claude`, `codex` and `gemini` CLIs (offline, against the mock
 * model servers) exported with `tapedeck otel export` to the in-repo OTLP/HTTP receiver, which decodes what it
 * gets with the official OTLP message definitions. Asserted: span names, parent links, GenAI attributes and
 * usage (normalized per provider, against inspect's sums), one trace per turn, a second export adding nothing,
 * content absent without --content and redacted with it (the planted secrets in no byte received), headers
 * sent and never printed, Langfuse's endpoint and header, and Claude's automatic export by the hook server
 * while the collector is down, answering 503, then up: the agent's exit and output unchanged, nothing lost.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedSpan, type Receiver, startReceiver } from "../otel/receiver.ts";
import { CLAUDE, CODEX, conversation, GEMINI } from "./agents.ts";
import { AWS_KEY_ID, GITHUB_TOKEN, plantSecrets } from "./planted-secrets.ts";
import { type Sandbox, useBuild } from "./sandboxes.ts";

useBuild();

const { secrets, needles } = plantSecrets({ aws_access_key_id: AWS_KEY_ID, github_token: GITHUB_TOKEN });
const PROMPT = `SCENARIO_BASH echo deploying with ${secrets.aws_access_key_id} ${secrets.github_token}`;
const AUTH = `Basic ${Buffer.from(`pk-lf-test:sk-lf-${"s3cr3t".repeat(4)}`).toString("base64")}`;

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

async function tapedeck(sb: Sandbox, args: string[], env: Record<string, string> = {}) {
  const r = await sb.cli([...args, "--project", sb.projectDir], env);
  expect(r.code, r.stderr).toBe(0);
  for (const n of needles) expect(`${r.stdout}${r.stderr}`).not.toContain(n);
  return r;
}

function noSecretsReceived(r: Receiver): void {
  const bytes = r.allBytes();
  for (const n of needles) expect(bytes.includes(Buffer.from(n))).toBe(false);
}

const children = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);
const roots = (spans: ReceivedSpan[]) => spans.filter((s) => s.parentSpanId === "");
const sum = (spans: ReceivedSpan[], key: string) =>
  spans.reduce((n, s) => n + Number(s.attributes[key] ?? 0), 0);

/** The spans of one export, with the invariants every session's spans share. */
function checkCommon(
  spans: ReceivedSpan[],
  conversationId: string,
  provider: string,
  agent: string,
): ReceivedSpan[] {
  const rs = roots(spans);
  expect(rs.length).toBeGreaterThan(0);
  for (const r of rs) {
    expect(r.name).toBe(`invoke_agent ${agent}`);
    expect(r.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agent,
    });
    // The vendor is the model's, on its chat spans; an internal invoke_agent span names none (#289).
    expect(r.attributes).not.toHaveProperty("gen_ai.provider.name");
    for (const c of spans.filter((s) => s.traceId === r.traceId && s.name.startsWith("chat ")))
      expect(c.attributes["gen_ai.provider.name"]).toBe(provider);
    // One trace per turn.
    expect(spans.filter((s) => s.traceId === r.traceId && s.parentSpanId === "")).toHaveLength(1);
  }
  const ids = new Set(spans.map((s) => s.spanId));
  for (const s of spans) {
    expect(s.attributes["gen_ai.conversation.id"]).toBe(conversationId);
    expect(s.attributes["session.id"]).toBe(conversationId);
    expect(s.scope.schemaUrl).toBe("https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev");
    expect(s.resource["service.name"]).toBe("tapedeck");
    expect(s.endNs >= s.startNs).toBe(true);
    if (s.parentSpanId) expect(ids.has(s.parentSpanId)).toBe(true);
  }
  for (const chat of spans.filter((s) => s.name.startsWith("chat "))) expect(chat.kind).toBe(3); // CLIENT
  return rs;
}

async function exportTo(sb: Sandbox, id: string, extra: string[] = []) {
  const before = receiver.requests.length;
  const r = await tapedeck(sb, ["otel", "export", id, "--endpoint", receiver.tracesUrl, "--json", ...extra]);
  return { result: JSON.parse(r.stdout), spans: receiver.requests.slice(before).flatMap((q) => q.spans), r };
}

describe("claude", () => {
  const sb = CLAUDE.sandbox("otel-claude");
  const chat = conversation(CLAUDE, sb);
  let id: string;

  it("turns, tool calls, the failed call and the subagent as spans; Anthropic input with its cache; nothing twice", async () => {
    await tapedeck(sb, ["install", "claude", "--yes"]);
    for (const prompt of [PROMPT, "SCENARIO_FAIL", "SCENARIO_AGENT echo from a subagent"])
      await chat.say(prompt);
    id = chat.id;
    const { spans, result } = await exportTo(sb, id, ["--header", `Authorization=${AUTH}`]);
    expect(result).toMatchObject({ sessions: 1, turns: 3, failed: 0 });
    const [bash, fail, agent] = checkCommon(spans, id, "anthropic", "claude-code");
    const tool = (root: ReceivedSpan, name: string) =>
      children(spans, root).find((s) => s.name === `execute_tool ${name}`)!;
    expect(tool(bash!, "Bash").attributes).toMatchObject({
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": expect.stringMatching(/^toolu_/),
    });
    expect(tool(fail!, "Bash")).toMatchObject({
      status: { code: 2 },
      attributes: { "error.type": "tool_error" },
    });
    const sub = children(spans, tool(agent!, "Agent"))[0]!;
    expect(sub.name).toBe("invoke_agent general-purpose");
    expect(children(spans, sub).map((s) => s.name)).toContain("execute_tool Bash");
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats.every((c) => c.name === `chat ${c.attributes["gen_ai.response.model"]}`)).toBe(true);
    const inspect = JSON.parse((await tapedeck(sb, ["inspect", id, "--json"])).stdout).usage;
    expect(sum(chats, "gen_ai.usage.input_tokens")).toBe(
      inspect.input_tokens + inspect.cache_read_input_tokens + inspect.cache_creation_input_tokens,
    );
    expect(sum(chats, "gen_ai.usage.output_tokens")).toBe(inspect.output_tokens);
    expect(sum(roots(spans), "gen_ai.usage.input_tokens")).toBe(sum(chats, "gen_ai.usage.input_tokens"));
    // The credential went out as a header and is printed nowhere (tapedeck() checked stdout and stderr).
    expect(receiver.requests.at(-1)!.headers.authorization).toBe(AUTH);
    // No content without the opt-in: neither the prompt's words nor a command.
    const body = receiver.requests.at(-1)!.body.toString("latin1");
    expect(body).not.toContain("deploying");
    expect(body).not.toContain("echo");
    noSecretsReceived(receiver);
    const again = await exportTo(sb, id);
    expect(again.result).toMatchObject({ spans: 0, requests: 0 });
    expect(again.spans).toHaveLength(0);
  }, 240_000);

  it("--resend repeats the same span ids; --content adds content to turns sent without it; a down endpoint fails first", async () => {
    const first = receiver.requests.flatMap((q) => q.spans);
    const key = (s: ReceivedSpan) => `${s.traceId}/${s.spanId}`;
    const sent = new Set(first.map(key));
    const resent = await exportTo(sb, id, ["--resend"]);
    expect(resent.result).toMatchObject({ turns: 3, failed: 0 });
    expect(resent.result.resent_spans).toBe(resent.spans.length);
    expect(new Set(resent.spans.map(key))).toEqual(sent);
    expect(resent.spans.some((s) => s.attributes["gen_ai.input.messages"] !== undefined)).toBe(false);
    // Content for the turns already sent without it: the same ids again, now with their details.
    const content = await exportTo(sb, id, ["--content", "--force"]);
    expect(content.result.spans).toBeGreaterThan(0);
    expect(new Set(content.spans.map(key))).toEqual(sent);
    const details = content.spans.filter((s) => s.attributes["gen_ai.input.messages"] !== undefined);
    expect(details.length).toBeGreaterThan(0);
    noSecretsReceived(receiver);
    expect((await exportTo(sb, id, ["--content"])).result).toMatchObject({ spans: 0 });
    // A second endpoint that is down: the failure is what is said first, and the exit is 1.
    const down = await startReceiver();
    down.behave({ kind: "down" });
    try {
      const r = await sb.cli([
        "otel",
        "export",
        id,
        "--endpoint",
        down.tracesUrl,
        "--project",
        sb.projectDir,
      ]);
      expect(r.code).toBe(1);
      const line = r.stderr.split("\n").find((l) => l.startsWith(`claude:${id}`))!;
      expect(line).toMatch(/: failed, nothing sent: .*connection failed; 3 turn\(s\) stay in the backlog$/);
      expect(r.stdout).toMatch(/^Not exported: 1 of 1 session\(s\) failed before anything was sent/);
      expect(`${r.stdout}${r.stderr}`).not.toContain("0 span(s)");
    } finally {
      await down.close();
    }
  }, 120_000);

  it("with --content: prompts, commands and answers as span attributes, redacted; to Langfuse's endpoint", async () => {
    const lf = await startReceiver();
    try {
      const r = await tapedeck(sb, [
        "otel",
        "export",
        id,
        "--content",
        "--endpoint",
        `${lf.url}/api/public/otel/v1/traces`,
        "--protocol",
        "http/json",
        "--header",
        `Authorization=${AUTH}`,
      ]);
      expect(r.stdout).toContain("Exported");
      const req = lf.requests[0]!;
      expect(req.contentType).toBe("application/json");
      expect(req.headers["x-langfuse-ingestion-version"]).toBe("4");
      // Langfuse ingests no span events: the content is in the spans' own attributes.
      const details = lf.spans();
      const inputs = details.map((d) => String(d.attributes["gen_ai.input.messages"] ?? ""));
      expect(
        inputs.some((t) => t.includes("deploying with [REDACTED:aws_access_key_id] [REDACTED:github_token]")),
      ).toBe(true);
      expect(
        details.some((d) =>
          String(d.attributes["gen_ai.tool.call.arguments"] ?? "").includes("echo deploying with [REDACTED:"),
        ),
      ).toBe(true);
      noSecretsReceived(lf);
    } finally {
      await lf.close();
    }
  }, 120_000);

  it("automatic export from the hook server once exported there by hand: the collector down, then 503, then up; the agent unaffected, nothing lost", async () => {
    const first = await startReceiver();
    const url = first.tracesUrl;
    const configPath = join(sb.projectDir, ".tapedeck", "config.json");
    const config = JSON.parse(readFileSync(configPath, "utf8"));
    writeFileSync(
      configPath,
      JSON.stringify({ ...config, otel: { endpoint: url, headers: { authorization: AUTH } } }),
    );
    // The user's own first export there: from now on the hook server may send there too.
    await tapedeck(sb, ["otel", "export", "--pending", "--yes"]);
    expect(roots(first.spans())).toHaveLength(3);
    await first.close();
    const plain = await chat.say("SCENARIO_TEXT");
    expect(plain.code).toBe(0);
    // The background run found nobody listening: the error is kept, the watermark did not move.
    await waitFor(async () => JSON.parse((await tapedeck(sb, ["status", "--json"])).stdout).otel?.last_error);
    const status = JSON.parse((await tapedeck(sb, ["status", "--json"])).stdout).otel;
    expect(status).toMatchObject({
      endpoint: `${url} (http/protobuf)`,
      auto: true,
      trusted: true,
      pending_sessions: 1,
    });
    expect(status.last_error).toContain("connection failed");
    const doctor = await sb.cli(["doctor", "--project", sb.projectDir]);
    expect(doctor.stdout).toContain("OTel backlog");
    expect(`${doctor.stdout}${status.endpoint}`).not.toContain(AUTH);
    // The collector comes back on the same port, answering 503 twice before it accepts.
    const up = await startReceiverOn(new URL(url).port);
    try {
      up.behave({ kind: "status", status: 503, times: 2 });
      await tapedeck(sb, ["otel", "export", "--pending", "--force"]);
      // Only the new turn: the three before it were accepted already.
      expect(roots(up.spans())).toHaveLength(1);
      expect(up.attempts).toBe(3);
      const all = [...first.spans(), ...up.spans()];
      expect(new Set(roots(all).map((r) => r.traceId)).size).toBe(4);
      expect(new Set(all.map((s) => s.spanId)).size).toBe(all.length);
      expect(JSON.parse((await tapedeck(sb, ["status", "--json"])).stdout).otel).toMatchObject({
        pending_sessions: 0,
        last_error: null,
      });
      noSecretsReceived(up);
    } finally {
      await up.close();
    }
  }, 240_000);
});

describe("codex", () => {
  const sb = CODEX.sandbox("otel-codex");

  it("the thread's turns, the rollout's failure on the call, the spawned agent; OpenAI input as reported", async () => {
    await tapedeck(sb, ["install", "codex", "--yes", "--transport", "command"]);
    const chat = conversation(CODEX, sb);
    for (const prompt of [PROMPT, "SCENARIO_FAIL", "SCENARIO_AGENT echo from a subagent"])
      await chat.say(prompt);
    const thread = chat.id;
    const { spans } = await exportTo(sb, thread);
    const [, fail, agent] = checkCommon(spans, thread, "openai", "codex");
    expect(children(spans, fail!).find((s) => s.name === "execute_tool Bash")).toMatchObject({
      status: { code: 2 },
      attributes: { "tapedeck.tool.exit_code": 3 },
    });
    const spawn = children(spans, agent!).find((s) => s.name === "execute_tool spawn_agent")!;
    const child = children(spans, spawn)[0]!;
    expect(child.name).toMatch(/^invoke_agent /);
    expect(children(spans, child).map((s) => s.name)).toContain("execute_tool Bash");
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    // The spans carry OpenAI's input as reported, cache reads inside it: inspect's counts as recorded.
    const inspect = JSON.parse((await tapedeck(sb, ["inspect", thread, "--json"])).stdout).usage.recorded;
    expect(sum(chats, "gen_ai.usage.input_tokens")).toBe(inspect.input_tokens);
    expect(sum(chats, "gen_ai.usage.cache_read.input_tokens")).toBe(inspect.cache_read_input_tokens);
    expect(chats.every((c) => String(c.attributes["gen_ai.response.id"]).startsWith("resp_"))).toBe(true);
    noSecretsReceived(receiver);
    expect((await exportTo(sb, thread)).spans).toHaveLength(0);
  }, 240_000);
});

describe("gemini", () => {
  const sb = GEMINI.sandbox("otel-gemini");

  it("each run's turn; the chat file's cache counts on the hook's responses; the failed shell call", async () => {
    await tapedeck(sb, ["install", "gemini", "--yes", "--transport", "command"]);
    const chat = conversation(GEMINI, sb, { timeoutMs: 45_000 });
    for (const prompt of [PROMPT, "SCENARIO_FAIL"]) await chat.say(prompt);
    const sid = chat.id;
    const { spans } = await exportTo(sb, sid, ["--protocol", "http/json"]);
    const [bash, fail] = checkCommon(spans, sid, "gcp.gemini", "gemini-cli");
    expect(children(spans, bash!).map((s) => s.name)).toContain("execute_tool run_shell_command");
    expect(children(spans, fail!).find((s) => s.name === "execute_tool run_shell_command")!.status.code).toBe(
      2,
    );
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats.every((c) => c.attributes["gen_ai.usage.cache_read.input_tokens"] !== undefined)).toBe(true);
    // Gemini's input as reported holds its cache reads too: inspect's counts as recorded.
    const inspect = JSON.parse((await tapedeck(sb, ["inspect", sid, "--json"])).stdout).usage.recorded;
    expect(sum(chats, "gen_ai.usage.input_tokens")).toBe(inspect.input_tokens);
    expect(sum(chats, "gen_ai.usage.cache_read.input_tokens")).toBe(inspect.cache_read_input_tokens);
    noSecretsReceived(receiver);
    expect((await exportTo(sb, sid)).spans).toHaveLength(0);
  }, 240_000);
});

async function waitFor<T>(probe: () => Promise<T>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A receiver on a given port: the collector that was down comes back where it was. */
async function startReceiverOn(port: string): Promise<Receiver> {
  return startReceiver(Number(port));
}
