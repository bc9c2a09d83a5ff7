// @module-tag codex
/**
 * End to end: tapedeck records the real `codex` CLI (0.171, offline, against the scripted Responses API mock)
 * through the hooks `tapedeck install codex` writes into the project's `.codex/hooks.json` (command transport:
 * every hook runs `node dist/hook.cjs codex`). One thread, driven by `codex exec --json` and then
 * `codex exec resume --json`, is checked run by run against what the client really does, then the archive as a
 * whole: tool pairing, usage against the mock's own log (per response, never codex's cumulative totals),
 * completion and checksums, redaction, file modes. Then the switches around recording: `record stop`, a broken
 * session root, hook trust (doctor, and the TUI's way of trusting through `codex app-server`), PermissionRequest
 * under approval_policy on-request (through `codex app-server`, which hands the approval to this test), and
 * `uninstall`.
 *
 * Event kinds per `codex exec` run, as Codex 0.171 fires them (hooks run with --dangerously-bypass-hook-trust):
 *   SCENARIO_BASH     session_start(startup) user_prompt tool_call tool_result assistant_message turn_usage×2
 *                     session_end
 *   SCENARIO_FAIL     session_start(resume) user_prompt tool_call tool_result assistant_message turn_usage×2
 *                     tool_error session_end     (Codex has no failure hook: the exit code comes from the rollout,
 *                     read at Stop, and the tool_error carries the call's tool_use_id)
 *   SCENARIO_AGENT    session_start(resume) user_prompt tool_call(spawn_agent) tool_result(spawn_agent)
 *                     tool_call(wait_agent), and concurrently in the child: subagent_start user_prompt tool_call
 *                     tool_result subagent_stop turn_usage×2 (all with agent_id); then tool_result(wait_agent)
 *                     assistant_message turn_usage×3 session_end
 *   auto compaction   session_start(resume) compaction(pre, auto) compaction(post, auto) session_start(compact)
 *   (resume with a    user_prompt assistant_message turn_usage×2 (the summary's and the reply's) session_end
 *   low model_auto_compact_token_limit: `codex exec` has no /compact, but compacts before a turn whose context
 *   is over the limit, and the mock's usage decides that)
 * A second or later resume of the same thread sends a byte-identical SessionStart(resume): the store starts a new
 * epoch for it after an ended one, so every resume keeps its own session_start and session_end (checked below).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import type { Envelope, Manifest } from "../../src/core/archive/schemas.ts";
import { CODEX_BIN, type CodexJsonEvent, MOCK_KEY_ENV, runCodex } from "../../src/demo/codex-offline.ts";
import type { ResponsesUsageRecord } from "../../src/demo/openai-responses-mock.ts";
import { CODEX_HOOK_EVENTS } from "../../src/providers/codex/installer.ts";
import { nodeHookCommand } from "../../src/serve/client-command.ts";
import { CODEX } from "./agents.ts";
import {
  type CliResult,
  expectNoSecrets,
  expectPrivateModes,
  snapshot,
  walk,
  writersDone,
} from "./archive-checks.ts";
import { GITHUB_TOKEN, OPENAI_KEY, plantWithAgentKey } from "./planted-secrets.ts";
import { expectToolPairs, recording, SHELL_RUN_KINDS } from "./recording.ts";
import { CLI_JS, type CodexSandbox, HOOK_JS, useBuild, useCodexSandbox } from "./sandboxes.ts";

useBuild();

// ---------------------------------------------------------------------------
// Planted secrets (see planted-secrets.ts).

const PLANTED = plantWithAgentKey({ openai_key: OPENAI_KEY });
const { needles: NEEDLES, marker, redacted } = PLANTED;

// ---------------------------------------------------------------------------
// Sandbox: a temp HOME (with CODEX_HOME inside) and project, a mock on port 0, cleaned up afterwards.

type Sandbox = CodexSandbox;
const recordingOf = (sb: Sandbox) => recording(sb, CODEX, ["--provider", "codex"]);

/** The warning items every `codex exec` of this setup prints; anything else (a hook complaint) is trouble. */
const BYPASS_WARNING =
  "`--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation.";
const MODEL_WARNING =
  "Model metadata for `gpt-mock` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.";

async function codex(
  sb: Sandbox,
  args: string[],
  trustHooks: "bypass" | "stored" = "bypass",
  through?: "proxy",
) {
  const res = await runCodex({
    codexHome: sb.codexHome,
    home: sb.home,
    cwd: sb.projectDir,
    args,
    trustHooks,
    ...(through === "proxy" ? { viaTapedeck: CLI_JS } : {}),
  });
  expect(res.timedOut, res.stderr).toBe(false);
  expect(res.code, `stdout: ${res.stdout}\nstderr: ${res.stderr}`).toBe(0);
  expect(res.unparsed).toEqual([]);
  expect(res.threadId).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.turnFailed).toBeUndefined();
  // Codex says nothing about our hooks: no hook warning, no SessionEnd/Interrupt timeout clamping.
  const warnings = res.items.filter((i) => i.type === "error").map((i) => i.message);
  expect(warnings).toEqual(
    trustHooks === "bypass" ? [BYPASS_WARNING, BYPASS_WARNING, MODEL_WARNING] : [MODEL_WARNING],
  );
  return res;
}

const hooksPath = (sb: Sandbox) => join(sb.projectDir, ".codex", "hooks.json");
const readJson = <T>(path: string) => JSON.parse(readFileSync(path, "utf8")) as T;

/**
 * tapedeck's usage for one response, as the mock served it (Responses names mapped to the envelope's). The
 * rollout's record also says how many input tokens were cache writes (none here); the API's usage does not.
 */
function expectedUsage(u: ResponsesUsageRecord, source: "codex-transcript" | "proxy" = "codex-transcript") {
  return {
    source,
    message_id: u.responseId,
    model: u.model,
    input_tokens: u.usage.input_tokens,
    cache_read_input_tokens: u.usage.input_tokens_details.cached_tokens,
    ...(source === "codex-transcript" ? { cache_creation_input_tokens: 0 } : {}),
    output_tokens: u.usage.output_tokens,
    reasoning_output_tokens: u.usage.output_tokens_details.reasoning_tokens,
    total_tokens: u.usage.total_tokens,
  };
}

/** response id -> usage of the turn_usage events; a repeated id would be a double count, so it fails here. */
function turnUsageById(events: Envelope[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of events.filter((x) => x.kind === "turn_usage")) {
    const id = String(e.payload.response_id);
    expect(out[id], `turn_usage for ${id} recorded twice`).toBeUndefined();
    expect(e.event_id).toBe(`turn_usage:${id}`);
    out[id] = e.usage;
  }
  return out;
}

/** `codex exec --json` without what legitimately differs between two runs of the same prompt. */
function comparable(events: CodexJsonEvent[]): unknown[] {
  return events.map((e) => {
    if (e.type === "thread.started") return { type: e.type };
    if (e.type === "turn.completed") return { type: e.type };
    if (!e.item) return e;
    const { id: _id, ...item } = e.item;
    return { type: e.type, item };
  });
}

// ---------------------------------------------------------------------------
// `codex app-server` (JSON-RPC over stdio): what Codex's own UIs drive. Used to trust hooks the way the TUI's
// /hooks does (`hooks/list` gives each hook's key and current hash, `config/batchWrite` stores
// `[hooks.state."<key>"] trusted_hash`), and to run turns under approval_policy on-request, whose approval
// requests come to this client as server requests.

interface ListedHook {
  key: string;
  command: string;
  currentHash: string;
  trustStatus: string;
  eventName: string;
}

type Message = Record<string, unknown> & { method?: string; id?: number | string; params?: unknown };

class AppServer {
  private readonly child;
  private readonly pending = new Map<number, (message: Message) => void>();
  private readonly waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  private next = 0;
  readonly notifications: Message[] = [];
  /** Server-to-client requests (approvals), with the decision this client gave. */
  readonly serverRequests: Array<{ method: string; params: unknown; decision: string }> = [];
  /** The answer to the next approval request. */
  decision = "accept";

  constructor(sb: Sandbox) {
    this.child = spawn(CODEX_BIN, ["app-server"], {
      cwd: sb.projectDir,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: sb.home,
        CODEX_HOME: sb.codexHome,
        RUST_LOG: "error",
        [MOCK_KEY_ENV]: "sk-mock-dummy",
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        return;
      }
      if (message.method !== undefined && message.id !== undefined) {
        this.serverRequests.push({ method: message.method, params: message.params, decision: this.decision });
        this.send({ jsonrpc: "2.0", id: message.id, result: { decision: this.decision } });
      } else if (typeof message.id === "number") {
        this.pending.get(message.id)?.(message);
      } else if (message.method !== undefined) {
        this.notifications.push(message);
        for (const w of [...this.waiters]) {
          if (w.test(message)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(message);
          }
        }
      }
    });
  }

  private send(message: unknown): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  call(method: string, params: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const id = ++this.next;
      const timer = setTimeout(() => reject(new Error(`app-server: no answer to ${method}`)), 20_000);
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        this.pending.delete(id);
        if (message.error) reject(new Error(`app-server ${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result as Record<string, unknown>);
      });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  waitFor(test: (m: Message) => boolean, timeoutMs = 30_000): Promise<Message> {
    const seen = this.notifications.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("app-server: notification not seen")), timeoutMs);
      this.waiters.push({
        test,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  async start(): Promise<this> {
    await this.call("initialize", { clientInfo: { name: "tapedeck-e2e", version: "1" } });
    this.send({ jsonrpc: "2.0", method: "initialized" });
    return this;
  }

  async hooks(project: string): Promise<ListedHook[]> {
    const result = (await this.call("hooks/list", { cwds: [project] })) as {
      data: Array<{ hooks: ListedHook[] }>;
    };
    return result.data[0]!.hooks;
  }

  close(): void {
    this.child.kill("SIGKILL");
  }
}

async function withAppServer<T>(sb: Sandbox, fn: (server: AppServer) => Promise<T>): Promise<T> {
  const server = new AppServer(sb);
  try {
    return await fn(await server.start());
  } finally {
    server.close();
  }
}

// ---------------------------------------------------------------------------

interface TrustReport {
  ok: boolean;
  problems: number;
  providers: Array<{
    provider: string;
    ok: boolean;
    checks: Array<{
      name: string;
      status: string;
      message: string;
      fix?: string[];
      details?: Record<string, unknown>;
    }>;
  }>;
}

describe("tapedeck records the real codex CLI (command transport)", () => {
  const sb = useCodexSandbox("codex-record");
  const rec = recordingOf(sb);
  const hookCommand = `${nodeHookCommand(process.execPath, HOOK_JS, ["codex"])} # tapedeck`;
  const foreignHook = { type: "command", command: "true", timeout: 5 };
  const mainThread = rec.session(() => sb.mock.usageLog);
  const { runs } = mainThread;

  /** Runs one `codex exec` (the first) or `codex exec resume` in the main thread and collects what it appended. */
  async function turn(name: string, prompt: string, config: string[] = []) {
    const run = await mainThread.run(name, (id) =>
      codex(sb, id ? ["resume", ...config, id, prompt] : [...config, prompt]),
    );
    const { res } = run;
    // The mock saw this thread: session-id is the root thread, thread-id the child's inside a subagent.
    for (const u of run.served) expect(u.sessionId).toBe(mainThread.id);
    // Per run, turn_usage holds exactly the responses the mock served in it (the subagent's and the
    // compaction summary's included), each with the mock's own numbers, attributed to the thread that asked.
    expect(turnUsageById(run.events)).toEqual(
      Object.fromEntries(run.served.map((u) => [u.responseId, expectedUsage(u)])),
    );
    for (const e of run.events.filter((x) => x.kind === "turn_usage")) {
      const served = run.served.find((u) => u.responseId === e.payload.response_id)!;
      expect(e.agent_id).toBe(served.subagent ? served.threadId! : undefined);
    }
    // codex's own turn.completed usage is the thread's running total (over every run so far), which tapedeck
    // never records: no turn_usage equals it.
    const rootServed = sb.mock.usageLog.filter((u) => u.threadId === mainThread.id);
    expect(res.turnUsage).toMatchObject({
      input_tokens: rootServed.reduce((a, u) => a + u.usage.input_tokens, 0),
      output_tokens: rootServed.reduce((a, u) => a + u.usage.output_tokens, 0),
    });
    for (const e of run.events.filter((x) => x.kind === "turn_usage")) {
      expect(e.usage?.input_tokens).not.toBe(res.turnUsage!.input_tokens);
    }
    return run;
  }

  const kinds = (events: Envelope[]) => events.map((e) => e.kind);
  const only = (events: Envelope[], kind: string) => events.filter((e) => e.kind === kind);
  /** The run's events without the lifecycle that starts and ends each `codex exec`. */
  const body = (events: Envelope[]) =>
    events.filter(
      (e) => e.kind !== "session_end" && !(e.kind === "session_start" && e.payload.source !== "compact"),
    );

  it("install writes 12 command hooks into .codex/hooks.json next to the user's, and explains trust", async () => {
    mkdirSync(join(sb.projectDir, ".codex"), { recursive: true });
    writeFileSync(hooksPath(sb), JSON.stringify({ hooks: { Stop: [{ hooks: [foreignHook] }] } }, null, 2));
    const install = () => rec.install("--yes", "--transport", "command");
    const res = await install();
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("Installed 12 hooks in .codex/hooks.json. Recording is on.");
    expect(res.stdout).toMatch(/^Transport +command$/m);
    // Untrusted hooks are skipped silently, so install says so, and how to trust them.
    expect(res.stdout).toContain("TRUST");
    expect(res.stdout).toContain("/hooks");
    expect(res.stdout).toContain("--dangerously-bypass-hook-trust");
    expect(res.stdout).toContain("tapedeck doctor --provider codex");

    rec.installed("command");
    const settings = readJson<{ hooks: Record<string, Array<{ matcher?: string; hooks: unknown[] }>> }>(
      hooksPath(sb),
    );
    expect(CODEX_HOOK_EVENTS).toHaveLength(12);
    expect(Object.keys(settings.hooks).sort()).toEqual(CODEX_HOOK_EVENTS.map((h) => h.event).sort());
    for (const { event, toolMatcher } of CODEX_HOOK_EVENTS) {
      const groups = settings.hooks[event]!;
      const ours = groups.at(-1)!;
      expect(ours.matcher, event).toBe(toolMatcher ? "*" : undefined);
      // Codex clamps SessionEnd and Interrupt hooks to 3 s (with a warning item on every run): we ask for 3.
      const timeout = event === "SessionEnd" || event === "Interrupt" ? 3 : 10;
      expect(ours.hooks, event).toEqual([{ type: "command", command: hookCommand, timeout }]);
      if (event === "Stop") expect(groups).toEqual([{ hooks: [foreignHook] }, ours]);
      else expect(groups).toHaveLength(1);
    }
    // Idempotent: a second install leaves the same file.
    const before = readFileSync(hooksPath(sb), "utf8");
    expect((await install()).code).toBe(0);
    expect(readFileSync(hooksPath(sb), "utf8")).toBe(before);
  });

  it("doctor --json: installed but untrusted (a CODEX_HOME without trust entries) is a problem", async () => {
    const res = await rec.cli(["doctor", "--project", sb.projectDir, "--json"]);
    expect(res.code, res.stdout).toBe(1);
    const report = JSON.parse(res.stdout) as TrustReport;
    expect(report).toMatchObject({ ok: false, problems: 1 });
    const codexReport = report.providers.find((p) => p.provider === "codex")!;
    const byName = Object.fromEntries(codexReport.checks.map((c) => [c.name, c]));
    for (const name of ["config", "recording", "hooks", "hook command", "session root"]) {
      expect(byName[name]?.status, name).toBe("ok");
    }
    expect(byName["hook command"]!.message).toContain(HOOK_JS);
    expect(byName["hook trust"]).toMatchObject({
      status: "fail",
      details: {
        codex_home: sb.codexHome,
        state: "untrusted",
        installed: 12,
        trusted: 0,
        untrusted: 12,
        project_trusted: true,
      },
    });
    expect(byName["hook trust"]!.message).toContain("skips");
    expect(byName["hook trust"]!.fix!.join("\n")).toContain("/hooks");
    expect(byName["hook trust"]!.fix!.join("\n")).toContain("--dangerously-bypass-hook-trust");
    // And the human form says the same.
    const text = await rec.cli(["doctor", "--project", sb.projectDir, "--provider", "codex"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/✗ hook trust +installed but NOT trusted/);
    expect(text.stdout).toContain("1 problem found.");
  });

  it("run 1: a shell command with planted secrets in the prompt, the command and its output", async () => {
    const { prompt } = PLANTED;
    const { res, events, served } = await turn("bash", prompt);
    expect(res.finalMessage).toBe(`Done: hello token=${GITHUB_TOKEN}`);
    expect(served.map((u) => [u.scenario, u.subagent])).toEqual([
      ["bash", false],
      ["bash-result", false],
    ]);
    expect(kinds(events)).toEqual(SHELL_RUN_KINDS);
    const [start, userPrompt, call, result, message, , , end] = events;
    expect(start!.payload).toMatchObject({
      hook_event_name: "SessionStart",
      source: "startup",
      model: "gpt-mock",
    });
    expect(userPrompt!.payload).toMatchObject({
      hook_event_name: "UserPromptSubmit",
      prompt: redacted(prompt),
    });
    expect(userPrompt!.redactions).toEqual(["payload.prompt"]);
    const command = `echo hello token=${marker("github_token")}`;
    // The model's exec_command {cmd} reaches hooks as tool_name "Bash" {command}; tool_use_id is the call_id.
    expect(call!.payload).toMatchObject({ tool_name: "Bash", tool_input: { command } });
    expect(call!.payload.tool_use_id).toMatch(/^call_mock_\d+$/);
    expect(call!.redactions).toContain("payload.tool_input.command");
    expect(result!.payload).toEqual({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command },
      tool_response: `hello token=${marker("github_token")}\n`,
      tool_use_id: call!.payload.tool_use_id,
    });
    expect(message!.payload).toMatchObject({ hook_event_name: "Stop", text: redacted(res.finalMessage!) });
    expect(end!.payload).toEqual({ hook_event_name: "SessionEnd", reason: "other" });
    // One turn: everything between the lifecycle events carries the same turn id; no agent ids.
    const turnId = userPrompt!.turn_id;
    expect(turnId).toMatch(/^[0-9a-f-]{36}$/);
    expect(events.slice(1, -1).map((e) => e.turn_id)).toEqual(events.slice(1, -1).map(() => turnId));
    for (const e of events) expect(e.agent_id).toBeUndefined();
    expect(readJson<Manifest>(join(rec.sessionDir(mainThread.id), "manifest.json")).status).toBe("complete");
  });

  it("run 2 (resume): a failing command, its tool_error derived from the rollout and linked by tool_use_id", async () => {
    const { res, events, served } = await turn("fail", "SCENARIO_FAIL");
    expect(res.finalMessage).toBe("The command failed with exit code 3: oops");
    expect(served.map((u) => u.scenario)).toEqual(["fail", "fail-result"]);
    const failed = res.items.find((i) => i.type === "command_execution");
    expect(failed).toMatchObject({ exit_code: 3, aggregated_output: "oops\n", status: "failed" });
    // A shell run's events, and the failure, read from the rollout at Stop, before the end.
    expect(kinds(events)).toEqual([...SHELL_RUN_KINDS.slice(0, -1), "tool_error", "session_end"]);
    const [start, userPrompt, call, result, , , , failure] = events;
    expect(start!.payload).toMatchObject({ source: "resume" });
    expect(call!.payload).toMatchObject({
      tool_name: "Bash",
      tool_input: { command: "echo oops >&2; exit 3" },
    });
    // Codex fires a plain PostToolUse for a failing command: no exit code, no success flag.
    expect(result!.payload).toMatchObject({
      tool_use_id: call!.payload.tool_use_id,
      tool_response: "oops\n",
    });
    expect(result!.payload).not.toHaveProperty("success");
    expect(failure).toMatchObject({
      event_id: `tool_error:${call!.payload.tool_use_id}`,
      turn_id: userPrompt!.turn_id,
      payload: {
        tool_name: "Bash",
        tool_use_id: call!.payload.tool_use_id,
        exit_code: 3,
        error: "Exit code 3",
        command: ["/bin/bash", "-lc", "echo oops >&2; exit 3"],
        output: "oops\n",
        derived_from: "rollout",
      },
    });
    expect(failure!.agent_id).toBeUndefined();
  });

  it("run 3 (resume): a subagent, its events attributed by agent_id", async () => {
    const { res, events, served } = await turn("agent", `SCENARIO_AGENT echo sub ${OPENAI_KEY}`);
    expect(res.finalMessage).toBe(`Subagent reported: Done: sub ${OPENAI_KEY}`);
    const collab = res.items.filter((i) => i.type === "collab_tool_call");
    expect(collab.map((i) => i.tool)).toEqual(["spawn_agent", "wait"]);
    const agentId = collab[0]!.receiver_thread_ids![0]!;
    expect(agentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(agentId).not.toBe(mainThread.id);
    // Parent and child run concurrently, so only each thread's own order is fixed.
    expect(served.filter((u) => u.threadId === mainThread.id).map((u) => u.scenario)).toEqual([
      "agent",
      "agent-wait",
      "agent-result",
    ]);
    expect(served.filter((u) => u.threadId !== mainThread.id).map((u) => [u.scenario, u.threadId])).toEqual([
      ["subagent-bash", agentId],
      ["bash-result", agentId],
    ]);

    const main = body(events).filter((e) => e.agent_id === undefined);
    const sub = events.filter((e) => e.agent_id !== undefined);
    expect(kinds(main)).toEqual([
      "user_prompt",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "assistant_message",
      "turn_usage",
      "turn_usage",
      "turn_usage",
    ]);
    expect(kinds(sub)).toEqual([
      "subagent_start",
      "user_prompt",
      "tool_call",
      "tool_result",
      "subagent_stop",
      "turn_usage",
      "turn_usage",
    ]);
    for (const e of sub) expect(e.agent_id).toBe(agentId);
    const [, spawnCall, spawnResult, waitCall, waitResult, message] = main;
    expect(spawnCall!.payload).toMatchObject({
      tool_name: "spawn_agent",
      tool_input: { message: `SCENARIO_BASH echo sub ${marker("openai_key")}` },
    });
    expect(JSON.parse(String(spawnResult!.payload.tool_response))).toMatchObject({ agent_id: agentId });
    expect(waitCall!.payload).toMatchObject({
      tool_name: "multi_agent_v1wait_agent",
      tool_input: { targets: [agentId] },
    });
    expect(waitResult!.payload.tool_use_id).toBe(waitCall!.payload.tool_use_id);
    expect(message!.payload).toMatchObject({ text: redacted(res.finalMessage!) });
    const [subStart, subPrompt, subCall, subResult, subStop] = sub;
    expect(subStart!.payload).toMatchObject({ agent_id: agentId, agent_type: "default" });
    expect(String(subStart!.payload.agent_transcript_path)).toContain(agentId);
    expect(subPrompt!.payload).toMatchObject({ prompt: `SCENARIO_BASH echo sub ${marker("openai_key")}` });
    expect(subCall!.payload).toMatchObject({
      tool_name: "Bash",
      tool_input: { command: `echo sub ${marker("openai_key")}` },
    });
    expect(subResult!.payload).toMatchObject({ tool_use_id: subCall!.payload.tool_use_id });
    expect(subStop!.payload).toMatchObject({
      agent_id: agentId,
      last_assistant_message: `Done: sub ${marker("openai_key")}`,
    });
    // The child runs its own turn; the parent's events of this run share the parent's turn id.
    expect(new Set(sub.map((e) => e.turn_id)).size).toBe(1);
    expect(new Set(main.map((e) => e.turn_id)).size).toBe(1);
    expect(sub[0]!.turn_id).not.toBe(main[0]!.turn_id);
    // The child lives inside the wait: it starts after the spawn call and is done before the wait returns.
    expect(subStart!.sequence).toBeGreaterThan(spawnCall!.sequence);
    expect(subStop!.sequence).toBeLessThan(waitResult!.sequence);
  });

  it("run 4 (resume over the auto-compaction limit): compaction events and the summary's usage", async () => {
    // The thread's context (the mock's last usage, ~1.4k tokens) is over this limit, so codex compacts
    // before the turn: a /v1/responses call with the compaction prompt and no tools.
    const { res, events, served } = await turn("compact", "SCENARIO_TEXT after the checkpoint", [
      "-c",
      "model_auto_compact_token_limit=1000",
    ]);
    expect(res.finalMessage).toBe("Mock reply.");
    expect(served.map((u) => u.scenario)).toEqual(["compact", "text"]);
    const compactRequest = sb.mock.requests.find((r) => r.responseId === served[0]!.responseId)!;
    expect((compactRequest.body as { tools?: unknown[] }).tools).toEqual([]);
    expect(kinds(body(events))).toEqual([
      "compaction",
      "compaction",
      "session_start",
      "user_prompt",
      "assistant_message",
      "turn_usage",
      "turn_usage",
    ]);
    const [pre, post, restart] = body(events);
    expect(pre!.payload).toEqual({ hook_event_name: "PreCompact", trigger: "auto", phase: "pre" });
    expect(post!.payload).toEqual({ hook_event_name: "PostCompact", trigger: "auto", phase: "post" });
    expect(restart!.payload).toMatchObject({ hook_event_name: "SessionStart", source: "compact" });
    expect(events.at(-1)!.kind).toBe("session_end");
  });

  // Codex's SessionStart(resume) payload is the same for every resume of a thread, and so is the event id the
  // adapter derives from it; the store scopes a session_start that follows an ended epoch to the new epoch, so
  // each resume still gets its own session_start and session_end.
  it("every `codex exec resume` is recorded with its own session_start and session_end", () => {
    for (const name of ["fail", "agent"]) {
      const { events } = runs[name]!;
      expect(events[0], name).toMatchObject({ kind: "session_start", payload: { source: "resume" } });
      expect(events.at(-1)!.kind, name).toBe("session_end");
    }
    // Over the compaction limit Codex compacts before its SessionStart(resume), then starts again (compact).
    const compact = runs.compact!.events;
    expect(compact.filter((e) => e.kind === "session_start").map((e) => e.payload.source)).toEqual([
      "resume",
      "compact",
    ]);
    expect(compact.at(-1)!.kind).toBe("session_end");
  });

  it("the whole session: tool pairing, usage, completion, checksums, no secrets, private modes", async () => {
    const events = mainThread.expectWhole();
    expect(only(events, "provider_event")).toEqual([]);

    // Every tool_call has exactly one tool_result with its tool_use_id, later and from the same agent; the one
    // tool_error belongs to the failing command's call.
    const calls = expectToolPairs(events, 5, ["tool_result"]).map(([call]) => call);
    const errors = only(events, "tool_error");
    expect(errors.map((e) => e.payload.tool_use_id)).toEqual([
      calls.find((c) => (c.payload.tool_input as { command?: string })?.command === "echo oops >&2; exit 3")!
        .payload.tool_use_id,
    ]);

    // Usage: exactly the mock's whole log, one turn_usage per response (subagent and summary included).
    const all = sb.mock.usageLog;
    expect(turnUsageById(events)).toEqual(
      Object.fromEntries(all.map((u) => [u.responseId, expectedUsage(u)])),
    );
    const inspected = await rec.complete(mainThread.id);
    const sum = (f: (u: ResponsesUsageRecord) => number) => all.reduce((acc, u) => acc + f(u), 0);
    const recorded = {
      input_tokens: sum((u) => u.usage.input_tokens),
      output_tokens: sum((u) => u.usage.output_tokens),
      cache_read_input_tokens: sum((u) => u.usage.input_tokens_details.cached_tokens),
      cache_creation_input_tokens: 0,
    };
    // The one meaning every command shows: OpenAI's cache reads out of its input; as recorded beside it.
    expect(inspected.usage).toEqual({
      ...recorded,
      input_tokens: recorded.input_tokens - recorded.cache_read_input_tokens,
      total_tokens: recorded.input_tokens + recorded.output_tokens,
      sources: ["codex-transcript"],
      unknown: [],
      recorded: {
        ...recorded,
        reasoning_output_tokens: sum((u) => u.usage.output_tokens_details.reasoning_tokens),
      },
    });
    expect(inspected.redaction_count).toBeGreaterThan(0);

    // Codex's own rollouts (the thread's and its subagent's) hold every needle.
    const rollouts = walk(join(sb.codexHome, "sessions")).filter(({ stat }) => stat.isFile());
    rec.expectSecretsKeptOut(
      mainThread.id,
      PLANTED,
      rollouts.map(({ path }) => readFileSync(path)),
    );
  });

  it("record stop: a resumed run writes nothing; record start records again", async () => {
    await rec.stop();
    const doctor = await rec.cli(["doctor", "--project", sb.projectDir, "--json"]);
    const stopped = (JSON.parse(doctor.stdout) as TrustReport).providers[0]!.checks.find(
      (c) => c.name === "recording",
    );
    expect(stopped).toMatchObject({ status: "warn" });
    const before = snapshot(rec.dir());
    const count = rec.events(mainThread.id).length;
    const off = await codex(sb, ["resume", mainThread.id, "SCENARIO_BASH echo while-stopped"]);
    expect(off.finalMessage).toBe("Done: while-stopped");
    expect(rec.events(mainThread.id)).toHaveLength(count);
    expect(snapshot(rec.dir())).toEqual(before);

    await rec.start();
    const on = await codex(sb, ["SCENARIO_BASH echo probe"]);
    expect(on.finalMessage).toBe("Done: probe");
    expect(kinds(rec.events(on.threadId!))).toEqual(SHELL_RUN_KINDS);
    await rec.complete(on.threadId!);
  });

  it("a broken recorder (session root replaced by a file) leaves codex's output unchanged", async () => {
    const prompt = "SCENARIO_BASH echo steady";
    const healthy = await codex(sb, [prompt]);
    expect(rec.events(healthy.threadId!).length).toBeGreaterThan(0);

    // Nothing recorded, the archive untouched, the failure noted without content, and doctor saw it.
    let doctor!: CliResult;
    const broken = await rec.withBrokenRoot(async () => {
      const res = await codex(sb, [prompt]);
      doctor = await rec.cli(["doctor", "--project", sb.projectDir, "--json"]);
      return res;
    });
    // Same output as the recorded run of the same prompt (the mock is deterministic per prompt).
    expect(comparable(broken.events)).toEqual(comparable(healthy.events));
    expect(broken.stderr).toBe(healthy.stderr);
    expect(broken.stdout).not.toMatch(/tapedeck|ENOTDIR/i);
    expect(doctor.code).toBe(1);
    const root = (JSON.parse(doctor.stdout) as TrustReport).providers[0]!.checks.find(
      (c) => c.name === "session root",
    );
    expect(root).toMatchObject({ status: "fail" });
    expect(root!.message).toContain("not a directory");
    await rec.complete(mainThread.id);
  });

  it("trusted the way Codex's /hooks does it: doctor agrees, and codex runs the hooks without the bypass", async () => {
    // Untrusted and without the bypass: codex runs fine, says nothing, and skips every hook.
    const skipped = await codex(sb, ["SCENARIO_BASH echo untrusted"], "stored");
    expect(skipped.finalMessage).toBe("Done: untrusted");
    expect(existsSync(rec.sessionDir(skipped.threadId!))).toBe(false);

    await withAppServer(sb, async (server) => {
      const listed = (await server.hooks(sb.projectDir)).filter((h) => h.command === hookCommand);
      expect(listed).toHaveLength(12);
      for (const h of listed) expect(h.trustStatus).toBe("untrusted");
      const value = Object.fromEntries(listed.map((h) => [h.key, { trusted_hash: h.currentHash }]));
      await server.call("config/batchWrite", {
        edits: [{ keyPath: "hooks.state", value, mergeStrategy: "upsert" }],
      });
      const after = (await server.hooks(sb.projectDir)).filter((h) => h.command === hookCommand);
      expect(after.map((h) => h.trustStatus)).toEqual(listed.map(() => "trusted"));
    });
    const config = readFileSync(join(sb.codexHome, "config.toml"), "utf8");
    expect(config).toContain(`[hooks.state."${hooksPath(sb)}:stop:1:0"]`);

    // doctor computes the same key and hash as codex: trusted.
    const res = await rec.cli(["doctor", "--project", sb.projectDir, "--json"]);
    expect(res.code, res.stdout).toBe(0);
    const report = JSON.parse(res.stdout) as TrustReport;
    expect(report).toMatchObject({ ok: true, problems: 0 });
    expect(report.providers[0]!.checks.find((c) => c.name === "hook trust")).toMatchObject({
      status: "ok",
      details: { state: "trusted", installed: 12, trusted: 12 },
    });

    const trusted = await codex(sb, ["SCENARIO_BASH echo trusted"], "stored");
    expect(trusted.finalMessage).toBe("Done: trusted");
    expect(kinds(rec.events(trusted.threadId!))).toEqual(SHELL_RUN_KINDS);
    await rec.complete(trusted.threadId!);

    // A changed hook (here its timeout) no longer matches its trust entry: Codex skips it ("modified").
    const original = readFileSync(hooksPath(sb), "utf8");
    const settings = JSON.parse(original) as {
      hooks: Record<string, Array<{ hooks: Array<{ timeout: number }> }>>;
    };
    settings.hooks.PreToolUse!.at(-1)!.hooks[0]!.timeout = 11;
    writeFileSync(hooksPath(sb), JSON.stringify(settings, null, 2));
    const modified = await rec.cli(["doctor", "--project", sb.projectDir, "--json"]);
    expect(modified.code).toBe(1);
    expect(
      (JSON.parse(modified.stdout) as TrustReport).providers[0]!.checks.find((c) => c.name === "hook trust"),
    ).toMatchObject({
      status: "fail",
      details: { state: "partial", trusted: 11, modified: 1, not_running: ["PreToolUse"] },
    });
    writeFileSync(hooksPath(sb), original);
  });

  it("PermissionRequest is recorded and decides nothing: the approval still goes to the user, accept or decline", async () => {
    // `codex exec` forces approval "never"; under on-request (the TUI's default) an escalated command asks.
    // Through codex app-server the question comes to this client, so the test plays the user. Codex runs our
    // (trusted) PermissionRequest hook first: had it decided, no question would come.
    await withAppServer(sb, async (server) => {
      const started = (await server.call("thread/start", {
        cwd: sb.projectDir,
        approvalPolicy: "on-request",
        sandbox: "read-only",
      })) as { thread: { id: string } };
      const thread = started.thread.id;
      const runTurn = async (decision: string, file: string) => {
        server.decision = decision;
        const turnStarted = (await server.call("turn/start", {
          threadId: thread,
          input: [{ type: "text", text: `SCENARIO_PERM touch ${file}` }],
        })) as { turn: { id: string } };
        await server.waitFor(
          (m) =>
            m.method === "turn/completed" &&
            (m.params as { turn?: { id?: string } }).turn?.id === turnStarted.turn.id,
        );
      };

      await runTurn("accept", "accepted.txt");
      expect(server.serverRequests.map((r) => [r.method, r.decision])).toEqual([
        ["item/commandExecution/requestApproval", "accept"],
      ]);
      expect(existsSync(join(sb.projectDir, "accepted.txt"))).toBe(true);
      const first = rec.events(thread);
      expect(kinds(first)).toEqual([
        "session_start",
        "user_prompt",
        "tool_call",
        "provider_event",
        "tool_result",
        "assistant_message",
        "turn_usage",
        "turn_usage",
      ]);
      const [start, , call, permission, result] = first;
      expect(start!.payload).toMatchObject({ source: "startup", permission_mode: "default" });
      expect(permission!.payload).toEqual({
        hook_event_name: "PermissionRequest",
        tool_name: "Bash",
        tool_input: { command: "touch accepted.txt", description: "Needs to write outside the sandbox" },
        permission_request: true,
      });
      expect(permission!.turn_id).toBe(call!.turn_id);
      expect(result!.payload.tool_use_id).toBe(call!.payload.tool_use_id);

      await runTurn("decline", "declined.txt");
      expect(server.serverRequests.map((r) => r.decision)).toEqual(["accept", "decline"]);
      expect(existsSync(join(sb.projectDir, "declined.txt"))).toBe(false);
      // A declined command gets no PostToolUse from Codex; at Stop the rollout's function_call_output
      // ("exec_command failed: ... rejected by user") closes its tool_call as a tool_error.
      const declined = rec.events(thread).slice(first.length);
      expect(kinds(declined)).toEqual([
        "user_prompt",
        "tool_call",
        "provider_event",
        "assistant_message",
        "turn_usage",
        "turn_usage",
        "tool_error",
      ]);
      const declinedCall = declined[1]!;
      const declinedError = declined.at(-1)!;
      expect(declinedError.payload).toMatchObject({
        tool_use_id: declinedCall.payload.tool_use_id,
        exit_code: null,
        never_ran: true,
        derived_from: "rollout",
      });
      expect(String(declinedError.payload.error)).toContain("rejected by user");
      expect(declinedError.turn_id).toBe(declinedCall.turn_id);
    });
  });

  it("uninstall removes exactly tapedeck's hooks and keeps the user's", async () => {
    const res = await rec.uninstall();
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("Removed 12 tapedeck entries from .codex/hooks.json");
    expect(readJson(hooksPath(sb))).toEqual({ hooks: { Stop: [{ hooks: [foreignHook] }] } });
    expect(readJson(join(rec.dir(), "config.json"))).toEqual({ schema_version: 1, providers: {} });
    // The recorded sessions stay.
    await rec.complete(mainThread.id);
    const doctor = await rec.cli(["doctor", "--project", sb.projectDir, "--provider", "codex", "--json"]);
    expect(doctor.code).toBe(1);
  });
});

describe("tapedeck run codex: the Responses API through the proxy", () => {
  const sb = useCodexSandbox("codex-proxy");
  const rec = recordingOf(sb);
  const CLEAN_SUB = "SCENARIO_AGENT echo via-proxy";

  it("install, then a direct run and a proxied run of the same prompt give codex the same output", async () => {
    const install = await rec.install("--yes");
    expect(install.code, install.stderr).toBe(0);
    const direct = await codex(sb, ["SCENARIO_BASH echo same"]);
    const served0 = sb.mock.usageLog.length;
    const proxied = await codex(sb, ["SCENARIO_BASH echo same"], "bypass", "proxy");
    expect(comparable(proxied.events)).toEqual(comparable(direct.events));
    expect(proxied.finalMessage).toBe("Done: same");
    // Both recorders saw each response (the Stop hook reads the rollout, the proxy the stream): one count each,
    // with the mock's numbers, whichever wrote first.
    const served = sb.mock.usageLog.slice(served0);
    expect(served).toHaveLength(2);
    const usage = turnUsageById(rec.events(proxied.threadId!));
    expect(Object.keys(usage).sort()).toEqual(served.map((u) => u.responseId).sort());
    for (const u of served) {
      const got = usage[u.responseId] as { source: "proxy" | "codex-transcript" };
      expect(["proxy", "codex-transcript"]).toContain(got.source);
      expect(got).toEqual(expectedUsage(u, got.source));
    }
    await rec.complete(proxied.threadId!);
  });

  it("hooks not trusted (skipped silently by codex): the proxy alone records every response, subagent's included", async () => {
    const served0 = sb.mock.usageLog.length;
    const res = await codex(sb, [CLEAN_SUB], "stored", "proxy");
    expect(res.finalMessage).toBe("Subagent reported: Done: via-proxy");
    const served = sb.mock.usageLog.slice(served0);
    expect(served.some((u) => u.subagent)).toBe(true);
    const events = rec.events(res.threadId!);
    // No hook ran: only what the proxy saw, one turn_usage per response the mock served.
    expect(events.map((e) => e.kind)).toEqual(served.map(() => "turn_usage"));
    expect(turnUsageById(events)).toEqual(
      Object.fromEntries(served.map((u) => [u.responseId, expectedUsage(u, "proxy")])),
    );
    for (const e of events) {
      const u = served.find((x) => x.responseId === e.payload.response_id)!;
      expect(e.agent_id).toBe(u.subagent ? u.threadId! : undefined);
      expect(e.turn_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(e).toMatchObject({ provider: "codex", session_id: `codex:${res.threadId}` });
    }
    expectNoSecrets(rec.dir(), NEEDLES);
    expect(JSON.stringify(events)).not.toContain("sk-mock-dummy");
    expectPrivateModes(rec.dir());
  });

  it("record stop: a proxied run writes nothing", async () => {
    const stop = await rec.cli(["record", "stop", "--provider", "codex", "--project", sb.projectDir]);
    expect(stop.code, stop.stderr).toBe(0);
    const before = snapshot(rec.dir());
    const res = await codex(sb, ["SCENARIO_BASH echo quiet"], "bypass", "proxy");
    expect(res.finalMessage).toBe("Done: quiet");
    expect(snapshot(rec.dir())).toEqual(before);
  });

  it("a provider without a base_url is a usage error that names the provider, and codex is not started", async () => {
    const res = await rec.cli(["run", "codex", "--", "-c", "model_provider=nowhere", "exec", "hi"], {
      TAPEDECK_CODEX_BIN: "/nonexistent/codex",
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('"nowhere" has no base_url');
  });
});

describe("codex notify: the fallback for turns the hooks miss", () => {
  const sb = useCodexSandbox("codex-notify");
  const rec = recordingOf(sb);
  const userConfig = () => join(sb.codexHome, "config.toml");
  let configBefore = "";

  /** Codex starts the notify program as the turn ends and may exit first: wait for its write. */
  async function eventsOf(threadId: string, count: number): Promise<Envelope[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const events = existsSync(join(rec.sessionDir(threadId), "events.jsonl")) ? rec.events(threadId) : [];
      if (events.length >= count || Date.now() > deadline) return events;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("install --notify adds one marked notify line at the top of the user-level config.toml", async () => {
    configBefore = readFileSync(userConfig(), "utf8");
    const res = await rec.install("--yes", "--notify", "--json");
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).extras).toEqual({ notify: userConfig() });
    const after = readFileSync(userConfig(), "utf8");
    expect(after.endsWith(configBefore)).toBe(true);
    const added = after.slice(0, after.length - configBefore.length).split("\n");
    expect(added[0]).toMatch(/^# >>> tapedeck notify/);
    expect(added[1]).toBe(
      `notify = [${[process.execPath, HOOK_JS, "codex", "--notify"].map((a) => JSON.stringify(a)).join(", ")}]`,
    );
    expect(added[2]).toBe("# <<< tapedeck notify");
    expect(
      readJson<{ providers: { codex: { fallback?: boolean } } }>(join(rec.dir(), "config.json")).providers
        .codex.fallback,
    ).toBe(true);
    const doctor = JSON.parse((await rec.cli(["doctor", "--json", "--project", sb.projectDir])).stdout);
    expect(doctor.providers[0].checks).toContainEqual({
      name: "notify",
      status: "ok",
      message: `installed in ${userConfig()}`,
    });
  });

  it("with the hooks running, notify records nothing: the turn is the hooks'", async () => {
    const res = await codex(sb, ["SCENARIO_BASH echo hooked"]);
    expect(res.finalMessage).toBe("Done: hooked");
    const events = await eventsOf(res.threadId!, 8);
    // Codex starts notify detached as the turn ends: its report has arrived once it consumed the hooks' mark
    // of the turn (the mark is written when the hooks record the prompt).
    const marks = join(rec.dir(), "turn-marks");
    const deadline = Date.now() + 15_000;
    while (existsSync(marks) && readdirSync(marks).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(existsSync(marks) ? readdirSync(marks) : []).toEqual([]);
    // ...and it wrote nothing: the turn is the hooks'.
    const settled = rec.events(res.threadId!);
    expect(settled).toEqual(events);
    expect(settled.filter((e) => e.payload.hook_event_name === "notify")).toEqual([]);
    expect(settled.filter((e) => e.kind === "user_prompt")).toHaveLength(1);
  });

  it("with the hooks untrusted (skipped silently), notify records the turn's prompt and reply", async () => {
    const res = await codex(sb, [`SCENARIO_BASH echo fallback ${GITHUB_TOKEN}`], "stored");
    expect(res.finalMessage).toBe(`Done: fallback ${GITHUB_TOKEN}`);
    const events = await eventsOf(res.threadId!, 2);
    expect(events.map((e) => [e.kind, e.payload.hook_event_name])).toEqual([
      ["user_prompt", "notify"],
      ["assistant_message", "notify"],
    ]);
    expect(events[0]!.payload.prompt).toBe(redacted(`SCENARIO_BASH echo fallback ${GITHUB_TOKEN}`));
    expect(events[1]!.payload.text).toBe(redacted(res.finalMessage!));
    expect(
      events.every((e) => e.turn_id === events[0]!.turn_id && e.session_id === `codex:${res.threadId}`),
    ).toBe(true);
    await writersDone(rec.dir());
    expectNoSecrets(rec.dir(), NEEDLES);
    expectPrivateModes(rec.dir());
  });

  it("uninstall keeps the user-level notify line (other projects share it); uninstall --notify removes it exactly", async () => {
    const withNotify = readFileSync(userConfig(), "utf8");
    const res = await rec.uninstall();
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("tapedeck uninstall codex --notify");
    expect(readFileSync(userConfig(), "utf8")).toBe(withNotify);
    // This project no longer records: a notify call for it writes nothing.
    const before = snapshot(rec.dir());
    const quiet = await codex(sb, ["SCENARIO_BASH echo after-uninstall"], "stored");
    expect(quiet.finalMessage).toBe("Done: after-uninstall");
    await new Promise((r) => setTimeout(r, 1000));
    expect(snapshot(rec.dir())).toEqual(before);
    const all = await rec.uninstall("--notify");
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("notify program");
    expect(readFileSync(userConfig(), "utf8")).toBe(configBefore);
  });

  it("a user's own notify program is never replaced", async () => {
    writeFileSync(userConfig(), `notify = ["my-notifier"]\n${configBefore}`);
    const before = snapshot(sb.projectDir);
    const res = await rec.install("--yes", "--notify");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("already sets a notify program");
    expect(readFileSync(userConfig(), "utf8")).toBe(`notify = ["my-notifier"]\n${configBefore}`);
    // Refused before anything was written: no hooks, no config change.
    expect(snapshot(sb.projectDir)).toEqual(before);
  });
});
