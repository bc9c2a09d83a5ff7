// @module-tag gemini
/**
 * End to end: tapedeck records the real `gemini` CLI (0.61, offline, against the mock Gemini API in
 * src/demo/gemini-mock.ts) through the hooks `tapedeck install gemini --transport command` writes into the
 * project's `.gemini/settings.json` (Gemini has command hooks only). One session of four `gemini -p` runs (a shell
 * call with planted secrets, a failing command, an automatic compression, text), each after the first a
 * `--resume latest`, is checked event by event against what the client really does, then as a whole: tool
 * pairing by the adapter's synthetic ids, usage against the mock's own log, completion and checksums, redaction,
 * file modes. Then the switches around recording: a repeated SessionEnd, `record stop`, a broken session root,
 * and `uninstall`.
 *
 * Event kinds per `gemini -p` run, as Gemini CLI 0.61 fires them (every run is its own epoch; AfterModel fires
 * once per streamed chunk and only the final chunk of a response is recorded, as one turn_usage; the mock says a
 * text before each call, which the chat file holds and BeforeTool records before its tool_call):
 *   SCENARIO_BASH      session_start(startup) user_prompt turn_usage assistant_message tool_call tool_result
 *                      turn_usage assistant_message session_end
 *   SCENARIO_FAIL      session_start(resume) user_prompt turn_usage assistant_message tool_call tool_error
 *                      turn_usage assistant_message session_end
 *   SCENARIO_COMPRESS  session_start(resume) user_prompt turn_usage assistant_message tool_call tool_result
 *                      compaction turn_usage assistant_message session_end
 *                      (the mock claims a 900k-token prompt on the tool call, so Gemini compresses the history
 *                      before its next model call: two generateContent calls, then a request that starts with
 *                      the new <state_snapshot>, which is where the adapter sees the compression)
 *   SCENARIO_TEXT      session_start(resume) user_prompt turn_usage assistant_message session_end
 * and, after each run's assistant_message, one more turn_usage per model message from Gemini's chat file
 * (source gemini-chat): the cache-read and thought counts the hooks never carry. The kind lists below leave
 * those out; `turn` checks them against the mock's log.
 *
 * Not here: `/compress`. In `-p` mode Gemini 0.61 runs the manual compression concurrently with sending
 * "/compress" to the model as a prompt, and whether the compressed history is the one saved races with that
 * turn, so a run is not repeatable.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Envelope, Manifest } from "../../src/core/archive/schemas.ts";
import { type GeminiUsageRecord, HUGE_PROMPT_TOKENS } from "../../src/demo/gemini-mock.ts";
import { type GeminiResult, geminiChatFiles, runGemini } from "../../src/demo/gemini-offline.ts";
import {
  GEMINI_HOOK_EVENTS,
  GEMINI_HOOK_NAME,
  GEMINI_MARKER_KEY,
  GEMINI_SKIPPED_HOOK_EVENTS,
} from "../../src/providers/gemini/installer.ts";
import { nodeHookCommand } from "../../src/serve/client-command.ts";
import { GEMINI } from "./agents.ts";
import { type CliResult, expectNoSecrets, expectPrivateModes, snapshot } from "./archive-checks.ts";
import { GITHUB_TOKEN, GOOGLE_API_KEY, plantWithAgentKey } from "./planted-secrets.ts";
import { expectToolPairs, recording, writeSettings } from "./recording.ts";
import { type GeminiSandbox, HOOK_JS, useBuild, useGeminiSandbox } from "./sandboxes.ts";

useBuild();

// ---------------------------------------------------------------------------
// Planted secrets (see planted-secrets.ts).

const PLANTED = plantWithAgentKey({ google_api_key: GOOGLE_API_KEY });
const { needles: NEEDLES, marker, redacted } = PLANTED;

// ---------------------------------------------------------------------------
// Sandbox: a temp HOME and project, a mock on port 0, cleaned up afterwards.

type Sandbox = GeminiSandbox;
const recordingOf = (sb: Sandbox) => recording(sb, GEMINI, ["--provider", "gemini"]);

async function gemini(sb: Sandbox, args: string[]): Promise<GeminiResult> {
  const res = await runGemini({
    home: sb.home,
    cwd: sb.projectDir,
    baseUrl: sb.mock.url,
    args,
    timeoutMs: 45_000,
  });
  expect(res.timedOut, res.stderr).toBe(false);
  expect(res.json, `stdout: ${res.stdout}\nstderr: ${res.stderr}`).toBeDefined();
  expect(res.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  return res;
}

/** Feeds one hook payload to `node dist/hook.cjs gemini` as Gemini would (stdin, project cwd and env). */
function hook(sb: Sandbox, payload: Record<string, unknown>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK_JS, "gemini"], {
      cwd: sb.projectDir,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: sb.home,
        GEMINI_PROJECT_DIR: sb.projectDir,
        GEMINI_CWD: sb.projectDir,
        GEMINI_SESSION_ID: String(payload.session_id),
        CLAUDE_PROJECT_DIR: sb.projectDir,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

const settingsPath = (sb: Sandbox) => GEMINI.settings(sb);
const readJson = <T>(path: string) => JSON.parse(readFileSync(path, "utf8")) as T;

/** What a streamed response's final chunk tells the hooks: Gemini passes only these three counts to AfterModel. */
function hookUsage(served: GeminiUsageRecord) {
  return {
    source: "gemini-hook",
    model: served.model,
    input_tokens: served.usage.promptTokenCount,
    output_tokens: served.usage.candidatesTokenCount,
    total_tokens: served.usage.totalTokenCount,
  };
}

/** What Gemini's chat file says of a streamed response: the counts its hooks leave out. */
function chatUsage(served: GeminiUsageRecord) {
  return {
    source: "gemini-chat",
    message_id: expect.any(String),
    model: served.model,
    cache_read_input_tokens: served.usage.cachedContentTokenCount,
    reasoning_output_tokens: served.usage.thoughtsTokenCount,
  };
}

const streamed = (served: GeminiUsageRecord[]) => served.filter((u) => u.kind === "streamGenerateContent");
const isChatUsage = (e: Envelope) => e.kind === "turn_usage" && e.usage?.source === "gemini-chat";
const kinds = (events: Envelope[]) => events.map((e) => e.kind);
const only = (events: Envelope[], kind: string) => events.filter((e) => e.kind === kind);
const HOOK_COMMAND = `${nodeHookCommand(process.execPath, HOOK_JS, ["gemini"])} # tapedeck`;
/**
 * Gemini's stderr without the notes of its start-up profiler ("[STARTUP] Phase 'cleanup_ops' was started but
 * never ended..."), which come and go from run to run with timing alone.
 */
const stableStderr = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => !line.startsWith("[STARTUP] "))
    .join("\n");
/** Gemini's one-time notice about new project hooks, as it prints it on stderr. */
const TRUST_WARNING = `WARNING: The following project-level hooks have been detected in this workspace:\n  - ${GEMINI_HOOK_NAME}\n`;

// ---------------------------------------------------------------------------

describe("tapedeck records the real gemini CLI (command transport)", () => {
  const sb = useGeminiSandbox("gemini-record");
  const rec = recordingOf(sb);
  /** Each run's events and the mock's responses during it (router and compression calls included). */
  const session = rec.session(() => sb.mock.usageLog);
  const { runs } = session;
  /** A run's events but the chat file's turn_usage. */
  const hooked = (events: Envelope[]) => events.filter((e) => !isChatUsage(e));

  /** Runs one `gemini -p` in the session (resuming it after the first) and collects what it appended. */
  async function turn(name: string, prompt: string) {
    const appended = await session.run(name, async (id) => {
      const res = await gemini(sb, id ? ["--resume", "latest", prompt] : [prompt]);
      expect(res.code, res.stderr).toBe(0);
      return res;
    });
    const run = { ...appended, events: hooked(appended.events), chat: appended.events.filter(isChatUsage) };
    const { events } = run;
    // The counts the hooks lack, from the chat file at the turn's end: one per streamed response, with the
    // cache read Gemini reported (the mock's cachedContentTokenCount), after the assistant_message.
    expect(run.chat.map((e) => e.usage)).toEqual(streamed(run.served).map(chatUsage));
    expect(appended.events.slice(-1 - run.chat.length, -1)).toEqual(run.chat);
    expect(appended.events.at(-2 - run.chat.length)!.kind).toBe("assistant_message");
    expect(events[0]!.kind).toBe("session_start");
    expect(events.at(-1)!.kind).toBe("session_end");
    // One synthetic turn id for everything between the run's session_start and session_end, new in every run.
    const turnId = events[1]!.turn_id;
    expect(turnId).toMatch(/^turn-[0-9a-f]{24}$/);
    expect(events.slice(1, -1).map((e) => e.turn_id)).toEqual(events.slice(1, -1).map(() => turnId));
    expect(run.chat.map((e) => e.turn_id)).toEqual(run.chat.map(() => turnId));
    expect([events[0]!.turn_id, events.at(-1)!.turn_id]).toEqual([undefined, undefined]);
    for (const other of Object.values(runs)) {
      if (other !== appended) expect(other.events[1]!.turn_id).not.toBe(turnId);
    }
    // Exactly one turn_usage per streamed response, in order, with the usage of its final chunk, although
    // AfterModel fired once per chunk. The router's and the compressor's generateContent calls reach no hook.
    const usages = only(events, "turn_usage");
    expect(usages.map((e) => e.usage)).toEqual(streamed(run.served).map(hookUsage));
    for (const [i, e] of usages.entries()) {
      const served = streamed(run.served)[i]!;
      expect(e.payload).toMatchObject({
        hook_event_name: "AfterModel",
        finish_reason: "STOP",
        model: served.model,
      });
      // Gemini hands a hook only these three counts: the mock's cachedContentTokenCount and
      // thoughtsTokenCount never reach the recorder.
      expect(e.payload.usage_metadata).toEqual({
        promptTokenCount: served.usage.promptTokenCount,
        candidatesTokenCount: served.usage.candidatesTokenCount,
        totalTokenCount: served.usage.totalTokenCount,
      });
    }
    // Every run's first call is the model router's (a generateContent with a JSON schema).
    expect(run.served[0]).toMatchObject({ kind: "generateContent", scenario: "router" });
    // The session is finalized at every SessionEnd, and reopened by the next run's session_start.
    await rec.complete(session.id);
    return run;
  }

  it("install writes our hooks into .gemini/settings.json and the project config", async () => {
    const res = await rec.install("--yes", "--transport", "command");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^Transport +command$/m);
    expect(res.stdout).toContain(`Installed ${GEMINI_HOOK_EVENTS.length} hooks in .gemini/settings.json.`);
    expect(res.stdout).toContain("Gemini CLI runs project hooks only in a trusted folder");
    expect(res.stdout).toContain(`warns once that project hooks ("${GEMINI_HOOK_NAME}") were added`);

    rec.installed("command");
    const settings = readJson<{ hooks: Record<string, unknown[]> } & Record<string, unknown>>(
      settingsPath(sb),
    );
    // All of Gemini 0.61's hook events but BeforeToolSelection (recorded by nobody, one process per model call).
    expect(GEMINI_HOOK_EVENTS).toHaveLength(10);
    expect(GEMINI_SKIPPED_HOOK_EVENTS).toEqual(["BeforeToolSelection"]);
    expect(Object.keys(settings.hooks).sort()).toEqual([...GEMINI_HOOK_EVENTS].sort());
    for (const event of GEMINI_HOOK_EVENTS) {
      expect(settings.hooks[event], event).toEqual([
        {
          matcher: "*",
          hooks: [
            {
              type: "command",
              name: GEMINI_HOOK_NAME,
              command: HOOK_COMMAND,
              // Milliseconds: Gemini's unit.
              timeout: 10_000,
              description: expect.stringContaining("tapedeck"),
            },
          ],
        },
      ]);
    }
    // The master switch was not set in the file, so install set it, and noted that it did.
    expect(settings.hooksConfig).toEqual({ enabled: true });
    expect(settings[GEMINI_MARKER_KEY]).toEqual({ added: ["hooksConfig.enabled"] });
    expect(Object.keys(settings).sort()).toEqual(["hooks", "hooksConfig", GEMINI_MARKER_KEY].sort());

    // Install is idempotent: a second one leaves the very same file.
    const before = readFileSync(settingsPath(sb), "utf8");
    const again = await rec.install("--yes", "--transport", "command");
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(settingsPath(sb), "utf8")).toBe(before);
    // Without --transport, a re-install keeps the transport it finds (the http one is covered by
    // http-transport-agents.test.ts).
    const byDefault = await rec.install("--yes");
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toMatch(/^Transport +command$/m);
    expect(readFileSync(settingsPath(sb), "utf8")).toBe(before);
    expect(await rec.json(["status", "--provider", "gemini", "--project", sb.projectDir])).toMatchObject({
      recording: true,
    });
  });

  it("turn 1: a shell call with planted secrets in the prompt, the command and its output", async () => {
    const { prompt } = PLANTED;
    const { res, events, served } = await turn("bash", prompt);
    expect(res.response).toBe(`Done: hello token=${GITHUB_TOKEN}`);
    expect(served.map((u) => [u.kind, u.scenario, u.chunks])).toEqual([
      ["generateContent", "router", 1],
      ["streamGenerateContent", "bash", 3],
      ["streamGenerateContent", "bash-result", 1],
    ]);
    expect(kinds(events)).toEqual([
      "session_start",
      "user_prompt",
      "turn_usage",
      "assistant_message",
      "tool_call",
      "tool_result",
      "turn_usage",
      "assistant_message",
      "session_end",
    ]);
    const [start, userPrompt, , said, call, result, , message, end] = events;
    expect(start!.payload).toEqual({
      hook_event_name: "SessionStart",
      source: "startup",
      cwd: sb.projectDir,
    });
    expect(userPrompt!.payload).toEqual({ hook_event_name: "BeforeAgent", prompt: redacted(prompt) });
    expect(userPrompt!.redactions).toEqual(["payload.prompt"]);
    const command = `echo hello token=${marker("github_token")}`;
    expect(call!.payload).toEqual({
      hook_event_name: "BeforeTool",
      tool_name: "run_shell_command",
      tool_input: { command, description: "Run a command" },
      tool_use_id: expect.stringMatching(/^gemini-tool-[0-9a-f]{24}$/),
    });
    expect(call!.redactions).toContain("payload.tool_input.command");
    expect(result!.payload).toMatchObject({
      hook_event_name: "AfterTool",
      tool_name: "run_shell_command",
      tool_use_id: call!.payload.tool_use_id,
      tool_input: { command },
      tool_response: {
        llmContent: expect.stringContaining(`Output: hello token=${marker("github_token")}\n`),
        returnDisplay: `hello token=${marker("github_token")}`,
      },
    });
    expect(result!.redactions).toContain("payload.tool_response.returnDisplay");
    // What the model said before the call, from the chat file (no hook carries a response's text whole)...
    expect(said!.payload).toEqual({
      text: "Running the command now.",
      message_id: expect.any(String),
      source: "gemini-chat",
    });
    expect(Date.parse(said!.timestamp)).toBeLessThanOrEqual(Date.parse(call!.timestamp));
    // ...and the answer without it, where AfterAgent's prompt_response was " Running the command now. \n<answer>".
    expect(message!.payload).toEqual({
      hook_event_name: "AfterAgent",
      text: redacted(res.response!),
      text_from: "chat_file",
      stop_hook_active: false,
    });
    expect(end!.payload).toEqual({ hook_event_name: "SessionEnd", reason: "exit" });
    // The first start with our hooks: Gemini names them once, then trusts them for this project.
    expect(res.stderr.split(TRUST_WARNING)).toHaveLength(2);
    expect(readJson<Record<string, string[]>>(join(sb.home, ".gemini", "trusted_hooks.json"))).toEqual({
      [sb.projectDir]: [`${GEMINI_HOOK_NAME}:${HOOK_COMMAND}`],
    });
  }, 90_000);

  it("turn 2 (resume): a failing command becomes a tool_error with its exit code", async () => {
    const { res, events } = await turn("fail", "SCENARIO_FAIL");
    expect(res.response).toBe("Done: oops (exit 3)");
    expect(kinds(events)).toEqual([
      "session_start",
      "user_prompt",
      "turn_usage",
      "assistant_message",
      "tool_call",
      "tool_error",
      "turn_usage",
      "assistant_message",
      "session_end",
    ]);
    expect(events[0]!.payload).toMatchObject({ source: "resume" });
    // A resumed session's chat file holds the earlier runs' texts too: only this turn's is said here.
    expect(events[3]!.payload.text).toBe("Running the command now.");
    expect(events[3]!.payload.message_id).not.toBe(runs.bash!.events[3]!.payload.message_id);
    expect(events[7]!.payload).toMatchObject({ text: res.response, text_from: "chat_file" });
    const [, , , , call, failure] = events;
    expect(call!.payload).toMatchObject({
      tool_name: "run_shell_command",
      tool_input: { command: "echo oops >&2; exit 3", description: "Fail on purpose" },
    });
    expect(failure!.payload).toMatchObject({
      hook_event_name: "AfterTool",
      tool_name: "run_shell_command",
      tool_use_id: call!.payload.tool_use_id,
      success: false,
      error: "Exit Code: 3",
      exit_code: 3,
      tool_response: { returnDisplay: "oops" },
    });
    // Trusted since the first run: no warning any more.
    expect(res.stderr).not.toContain("project-level hooks");
  }, 90_000);

  it("turn 3 (resume): an automatic compression between two model calls of one turn", async () => {
    const { res, events, served } = await turn("compress", "SCENARIO_COMPRESS echo big");
    expect(res.response).toBe("Done: big");
    expect(served.map((u) => [u.kind, u.scenario])).toEqual([
      ["generateContent", "router"],
      ["streamGenerateContent", "compress"],
      ["generateContent", "compress"],
      ["generateContent", "compress-verify"],
      ["streamGenerateContent", "bash-result"],
    ]);
    expect(served[1]!.usage.promptTokenCount).toBe(HUGE_PROMPT_TOKENS);
    expect(kinds(events)).toEqual([
      "session_start",
      "user_prompt",
      "turn_usage",
      "assistant_message",
      "tool_call",
      "tool_result",
      "compaction",
      "turn_usage",
      "assistant_message",
      "session_end",
    ]);
    // The compression rewrote the chat file between the two texts: each is still recorded once.
    expect(only(events, "assistant_message").map((e) => e.payload.text)).toEqual([
      "Running the command now.",
      res.response,
    ]);
    const compaction = events[6]!;
    expect(compaction.payload).toMatchObject({
      hook_event_name: "PreCompress",
      trigger: "auto",
      phase: "post",
      detected_by: "state_snapshot",
      pre_compress_at: expect.any(String),
    });
    const { messages_before, messages_after } = compaction.payload as Record<string, number>;
    expect(messages_after).toBeLessThan(messages_before!);
    // The request after it is the compressed history: the usage of that response says so too.
    expect(events[7]!.payload.message_count).toBe(messages_after);
    // The compaction is dated by the PreCompress that preceded it, before the request that showed it.
    expect(Date.parse(String(compaction.payload.pre_compress_at))).toBeLessThanOrEqual(
      Date.parse(compaction.timestamp),
    );
  }, 90_000);

  it("turn 4 (resume): plain text; the compressed history is what Gemini resumes, no second compaction", async () => {
    const { res, events } = await turn("text", "SCENARIO_TEXT final");
    expect(res.response).toBe("Mock reply.");
    expect(kinds(events)).toEqual([
      "session_start",
      "user_prompt",
      "turn_usage",
      "assistant_message",
      "session_end",
    ]);
    expect(events[3]!.payload).toMatchObject({ text: "Mock reply." });
  }, 90_000);

  it("the whole session: epochs, tool pairing, usage, completion, checksums", async () => {
    const recorded = session.expectWhole();
    const events = hooked(recorded);
    expect(only(events, "session_start").map((e) => e.payload.source)).toEqual([
      "startup",
      "resume",
      "resume",
      "resume",
    ]);
    expect(only(events, "session_end")).toHaveLength(4);
    expect(only(events, "compaction")).toHaveLength(1);
    expect(only(events, "provider_event")).toEqual([]);

    // Every tool_call has exactly one later result or error carrying its synthetic tool_use_id: the very next
    // event, of the same turn and input.
    const pairs = expectToolPairs(events, 3, ["tool_result", "tool_error"], /^gemini-tool-[0-9a-f]{24}$/);
    for (const [call, outcome] of pairs) {
      expect(outcome.sequence).toBe(call.sequence + 1);
      expect(outcome.turn_id).toBe(call.turn_id);
      expect(outcome.payload.tool_input).toEqual(call.payload.tool_input);
    }
    expect(new Set(recorded.map((e) => e.event_id)).size).toBe(recorded.length);

    // Usage: exactly the mock's streamed responses, one turn_usage each; never the router's or compressor's.
    const all = sb.mock.usageLog;
    expect(all.filter((u) => u.kind === "generateContent").map((u) => u.scenario)).toEqual([
      "router",
      "router",
      "router",
      "compress",
      "compress-verify",
      "router",
    ]);
    expect(only(events, "turn_usage").map((e) => e.usage)).toEqual(streamed(all).map(hookUsage));
    const inspected = await rec.complete(session.id);
    const sum = (k: "promptTokenCount" | "candidatesTokenCount") =>
      streamed(all).reduce((acc, u) => acc + u.usage[k], 0);
    // Gemini's hooks carry no cache or thought counts (the mock sent both): the cache read comes from the chat
    // file, counted once per response; input and output from the hooks alone.
    expect(streamed(all).every((u) => u.usage.cachedContentTokenCount > 0)).toBe(true);
    expect(recorded.filter(isChatUsage).map((e) => e.usage)).toEqual(streamed(all).map(chatUsage));
    const cached = streamed(all).reduce((acc, u) => acc + u.usage.cachedContentTokenCount, 0);
    const thoughts = streamed(all).reduce((acc, u) => acc + u.usage.thoughtsTokenCount, 0);
    // As recorded beside the one meaning every command shows: the cache reads out of input, thinking in output.
    expect(inspected.usage).toEqual({
      input_tokens: sum("promptTokenCount") - cached,
      output_tokens: sum("candidatesTokenCount") + thoughts,
      cache_read_input_tokens: cached,
      cache_creation_input_tokens: 0,
      total_tokens: sum("promptTokenCount") + sum("candidatesTokenCount") + thoughts,
      sources: ["gemini-hook", "gemini-chat"],
      unknown: [],
      recorded: {
        input_tokens: sum("promptTokenCount"),
        output_tokens: sum("candidatesTokenCount"),
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
        reasoning_output_tokens: thoughts,
      },
    });
    const human = await rec.cli(["inspect", session.id, "--project", sb.projectDir]);
    expect(human.stdout).toContain(
      `Tokens: ${sum("promptTokenCount") - cached} in · ${sum("candidatesTokenCount") + thoughts} out · ${cached} cache read (gemini-hook, gemini-chat)`,
    );
    expect(inspected.redaction_count).toBeGreaterThan(0);

    const list = await rec.json<Array<{ session_id: string; status: string }>>([
      "list",
      "--provider",
      "gemini",
      "--project",
      sb.projectDir,
    ]);
    expect(list).toMatchObject([{ session_id: `gemini:${session.id}`, status: "complete" }]);
  });

  it("SessionEnd is idempotent: repeats (as /quit fires them) add nothing and keep the checksums", async () => {
    const dir = rec.sessionDir(session.id);
    const before = snapshot(dir);
    const manifestBefore = readJson<Manifest>(join(dir, "manifest.json"));
    const stateBefore = readJson<{ duplicate_count: number }>(join(dir, "state.json"));
    const transcript = geminiChatFiles(sb.home).find((f) => f.includes(session.id.slice(0, 8)));
    expect(transcript).toBeDefined();
    for (const offset of [1, 2]) {
      const res = await hook(sb, {
        session_id: session.id,
        transcript_path: transcript,
        cwd: sb.projectDir,
        hook_event_name: "SessionEnd",
        timestamp: new Date(Date.now() + offset).toISOString(),
        reason: "exit",
      });
      expect(res).toEqual({ code: 0, stdout: "", stderr: "" });
    }
    // Not a byte of the record changes; the writer only counts the duplicates it ignored (state.json has the
    // exact count; the manifest's counters are advisory and refreshed at most every few hundred ms).
    const { "manifest.json": _m0, "state.json": _s0, ...recordBefore } = before;
    const { "manifest.json": _m1, "state.json": _s1, ...recordAfter } = snapshot(dir);
    expect(recordAfter).toEqual(recordBefore);
    const { duplicate_count: duplicatesBefore, ...manifestRestBefore } = manifestBefore;
    const { duplicate_count: duplicatesAfter, ...manifestRestAfter } = readJson<Manifest>(
      join(dir, "manifest.json"),
    );
    expect(manifestRestAfter).toEqual(manifestRestBefore);
    expect(duplicatesAfter).toBeGreaterThan(duplicatesBefore ?? 0);
    expect(readJson<{ duplicate_count: number }>(join(dir, "state.json")).duplicate_count).toBe(
      stateBefore.duplicate_count + 2,
    );
    await rec.complete(session.id);
  });

  it("no planted secret reaches .tapedeck; every file is 0600 and every directory 0700", () => {
    // Gemini's own chat recording holds every needle.
    const chats = geminiChatFiles(sb.home).map((f) => readFileSync(f));
    rec.expectSecretsKeptOut(session.id, PLANTED, chats);
  });

  let probe: GeminiResult | undefined;

  it("record stop: a new gemini run writes nothing; record start records again", async () => {
    await rec.stop();
    const before = snapshot(rec.dir());
    const off = await gemini(sb, ["SCENARIO_BASH echo probe"]);
    expect(off.code).toBe(0);
    expect(off.response).toBe("Done: probe");
    expect(snapshot(rec.dir())).toEqual(before);
    expect(existsSync(rec.sessionDir(off.sessionId!))).toBe(false);

    await rec.start();
    probe = await gemini(sb, ["SCENARIO_BASH echo probe"]);
    expect(probe.code).toBe(0);
    // Recording or not, gemini's own output is the same.
    expect([probe.response, stableStderr(probe.stderr)]).toEqual([off.response, stableStderr(off.stderr)]);
    expect(probe.stderr).not.toMatch(/hook|tapedeck/i);
    expect(kinds(hooked(rec.events(probe.sessionId!)))).toEqual(kinds(hooked(runs.bash!.events)));
    await rec.complete(probe.sessionId!);
  }, 90_000);

  it("a broken session root never disturbs gemini", async () => {
    expect(probe).toBeDefined();
    // Nothing recorded, the archive untouched, and the failure noted without content.
    const broken = await rec.withBrokenRoot(() => gemini(sb, ["SCENARIO_BASH echo probe"]));
    // Same outcome as the recorded run of the same prompt (the mock is deterministic per prompt).
    expect(broken.code).toBe(0);
    expect(broken.response).toBe(probe!.response);
    expect(stableStderr(broken.stderr)).toBe(stableStderr(probe!.stderr));
    expect(broken.stderr).not.toMatch(/hook|tapedeck|ENOTDIR/i);
    expect(broken.stdout).not.toMatch(/hook|tapedeck|ENOTDIR/i);
    await rec.complete(session.id);
  }, 90_000);

  it("after every run: still no secrets, still private modes", () => {
    expectNoSecrets(rec.dir(), NEEDLES);
    expectPrivateModes(rec.dir());
  });
});

// ---------------------------------------------------------------------------

type Settings = Record<string, unknown>;

/** Settings a user might already have: none of it may change across install and uninstall. */
function userSettings(extra: Settings = {}): Settings {
  return {
    general: { vimMode: true },
    model: { compressionThreshold: 0.6 },
    hooks: {
      BeforeTool: [
        {
          matcher: "run_shell_command",
          hooks: [{ type: "command", name: "mine", command: "touch user-hook-ran" }],
        },
      ],
    },
    hooksConfig: { notifications: false },
    ...extra,
  };
}

describe("uninstall removes exactly what install added", () => {
  const sb = useGeminiSandbox("gemini-uninstall");
  const rec = recordingOf(sb);
  const install = () => rec.install("--yes", "--transport", "command");
  const uninstall = () => rec.uninstall();

  it("keeps the user's hook and settings; both hooks run; recording stops with ours", async () => {
    const original = userSettings();
    writeSettings(settingsPath(sb), original);

    const installed = await install();
    expect(installed.code, installed.stderr).toBe(0);
    const settings = readJson<Settings & { hooks: Record<string, unknown[]> }>(settingsPath(sb));
    expect(settings.general).toEqual(original.general);
    expect(settings.model).toEqual(original.model);
    const userHook = (original.hooks as Record<string, unknown[]>).BeforeTool![0];
    expect(settings.hooks.BeforeTool).toHaveLength(2);
    expect(settings.hooks.BeforeTool![0]).toEqual(userHook);
    expect(JSON.stringify(settings.hooks.BeforeTool![1])).toContain("gemini; exit 0 # tapedeck");
    expect(Object.keys(settings.hooks)).toHaveLength(GEMINI_HOOK_EVENTS.length);
    // The user's hooksConfig is kept; the switch it did not set is added, and noted.
    expect(settings.hooksConfig).toEqual({ notifications: false, enabled: true });
    expect(settings[GEMINI_MARKER_KEY]).toEqual({ added: ["hooksConfig.enabled"] });

    const recorded = await gemini(sb, ["SCENARIO_BASH echo both"]);
    expect(recorded.response).toBe("Done: both");
    expect(existsSync(join(sb.projectDir, "user-hook-ran"))).toBe(true);
    expect(kinds(rec.events(recorded.sessionId!))).toContain("tool_result");
    // The warning names both new hooks, the user's too: Gemini trusts hooks one by one.
    expect(recorded.stderr).toContain(`  - mine\n  - ${GEMINI_HOOK_NAME}\n`);

    const removed = await uninstall();
    expect(removed.code, removed.stderr).toBe(0);
    // Ten hooks plus the hooksConfig.enabled it added.
    expect(removed.stdout).toContain(`Removed ${GEMINI_HOOK_EVENTS.length + 1} tapedeck entries`);
    expect(readJson(settingsPath(sb))).toEqual(original);
    expect(readFileSync(settingsPath(sb), "utf8")).toBe(`${JSON.stringify(original, null, 2)}\n`);
    const config = readJson<{ providers: Record<string, unknown> }>(join(rec.dir(), "config.json"));
    expect(config.providers.gemini).toBeUndefined();

    // With our hooks gone nothing is recorded, and the recorded session is kept.
    rmSync(join(sb.projectDir, "user-hook-ran"));
    const before = snapshot(rec.dir());
    const after = await gemini(sb, ["SCENARIO_BASH echo gone"]);
    expect(after.response).toBe("Done: gone");
    expect(existsSync(join(sb.projectDir, "user-hook-ran"))).toBe(true);
    expect(snapshot(rec.dir())).toEqual(before);
    expect(existsSync(join(rec.sessionDir(recorded.sessionId!), "events.jsonl"))).toBe(true);
  }, 120_000);

  it("never overrides or removes a hooksConfig.enabled the file sets itself", async () => {
    for (const enabled of [true, false]) {
      const original = userSettings({ hooksConfig: { enabled, notifications: false } });
      writeSettings(settingsPath(sb), original);
      const installed = await install();
      expect(installed.code, installed.stderr).toBe(0);
      const settings = readJson<Settings>(settingsPath(sb));
      expect(settings.hooksConfig).toEqual(original.hooksConfig);
      expect(settings[GEMINI_MARKER_KEY]).toBeUndefined();
      // A file that switches hooks off is kept as it is, and install says what that means.
      if (enabled) expect(installed.stdout).not.toContain("hooksConfig.enabled is false");
      else expect(installed.stdout).toContain("hooksConfig.enabled is false in .gemini/settings.json");
      const removed = await uninstall();
      expect(removed.stdout).toContain(`Removed ${GEMINI_HOOK_EVENTS.length} tapedeck entries`);
      expect(readJson(settingsPath(sb))).toEqual(original);
    }
  });

  it("takes back only its own value: a switch the user changed after install stays theirs", async () => {
    const original = userSettings();
    writeSettings(settingsPath(sb), original);
    expect((await install()).code).toBe(0);
    const settings = readJson<Settings & { hooksConfig: Record<string, unknown> }>(settingsPath(sb));
    settings.hooksConfig.enabled = false;
    writeSettings(settingsPath(sb), settings);
    expect((await uninstall()).code).toBe(0);
    expect(readJson(settingsPath(sb))).toEqual({
      ...original,
      hooksConfig: { notifications: false, enabled: false },
    });
  });

  it("a project without settings: install creates the file, uninstall removes it again", async () => {
    rmSync(join(sb.projectDir, ".gemini"), { recursive: true, force: true });
    expect((await install()).code).toBe(0);
    expect(Object.keys(readJson<Settings>(settingsPath(sb))).sort()).toEqual(
      ["hooks", "hooksConfig", GEMINI_MARKER_KEY].sort(),
    );
    expect((await uninstall()).code).toBe(0);
    expect(existsSync(settingsPath(sb))).toBe(false);
    expect(existsSync(join(sb.projectDir, ".gemini"))).toBe(false);
  });
});

describe("folder trust decides whether Gemini runs the project's hooks", () => {
  const sb = useGeminiSandbox("gemini-trust");
  const rec = recordingOf(sb);
  const run = (args: string[], env?: Record<string, string>) =>
    runGemini({
      home: sb.home,
      cwd: sb.projectDir,
      baseUrl: sb.mock.url,
      args,
      timeoutMs: 45_000,
      ...(env ? { env } : {}),
    });
  const recorded = () => (existsSync(rec.root()) ? readdirSync(rec.root()) : []);

  beforeAll(() => {
    // Folder trust on, and this project in no trust rule: what a user has before answering Gemini's dialog.
    rmSync(join(sb.home, ".gemini", "trustedFolders.json"));
  });

  it("untrusted: gemini -p refuses; --skip-trust runs without our hooks; GEMINI_CLI_TRUST_WORKSPACE records", async () => {
    const installed = await rec.install("--yes", "--transport", "command");
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain("--skip-trust runs without this project's settings");

    const refused = await run(["SCENARIO_BASH echo untrusted"]);
    expect(refused.code).toBe(55);
    expect(refused.stderr).toContain("Gemini CLI is not running in a trusted directory");
    expect(sb.mock.requests).toEqual([]);

    // Gemini 0.61 reads the settings before it handles the flag, so the project's settings (our hooks) are left out.
    const skipped = await run(["--skip-trust", "SCENARIO_BASH echo skipped"]);
    expect([skipped.code, skipped.response]).toEqual([0, "Done: skipped"]);
    expect(skipped.stderr).not.toContain("project-level hooks");
    expect(recorded()).toEqual([]);

    const trusted = await run(["SCENARIO_BASH echo trusted"], { GEMINI_CLI_TRUST_WORKSPACE: "true" });
    expect([trusted.code, trusted.response]).toEqual([0, "Done: trusted"]);
    expect(trusted.stderr).toContain(TRUST_WARNING);
    expect(recorded()).toEqual([trusted.sessionId]);
    await rec.complete(trusted.sessionId!);
  }, 120_000);
});
