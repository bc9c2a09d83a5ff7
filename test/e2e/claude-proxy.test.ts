// @module-tag claude
/**
 * End to end: the API proxy between the real `claude` CLI (offline) and the mock Messages API.
 *
 * 1. Parity: a multi-turn session (Bash with thinking, a failing tool, a subagent, text) through an in-process
 *    proxy with the transcript mirror on (redaction off), record by record against Claude Code's own transcript:
 *    key sets equal up to the documented differences (asserted exactly), content blocks identical, subagent
 *    traffic in its own file.
 * 2. Transparency: what claude receives through the proxy is what the mock sent (bytes, and claude's result).
 * 3. Restore: `tapedeck run claude --mirror`, Claude's transcript replaced by a metadata-only stub (CC#66734),
 *    `tapedeck mirror restore` (refuses without --force), then `claude --resume` sends the whole conversation.
 * 4. Archive feed: through `tapedeck proxy`, every response the mock served (the /compact summary too) is one
 *    turn_usage event in the archive, with the mock's exact usage; nothing is written while recording is stopped.
 * 5. `tapedeck run claude`: claude's exit code, signals forwarded, and no proxy left behind.
 *
 * Every process gets its own TAPEDECK_HOME (the session registry), HOME (claude's config) and project.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { constants, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { createMirrorExtension, type MirrorExtension } from "../../src/providers/claude/mirror/extension.ts";
import { defaultMirrorSettings } from "../../src/providers/claude/mirror/settings.ts";
import { AGENTS_DIR, compareMirrorFiles, mirrorDirName } from "../../src/providers/claude/mirror/writer.ts";
import { createArchiveFeed } from "../../src/proxy/extensions/archive-feed.ts";
import { type ProxyLogEntry, type RunningProxy, startProxy } from "../../src/proxy/server.ts";
import { pidAlive, until } from "../helpers/poll.ts";
import {
  type AnthropicMock,
  type LoggedRequest,
  type MockUsage,
  startAnthropicMock,
} from "../mocks/anthropic-mock.ts";
import {
  CLAUDE_BIN,
  type ClaudeResult,
  claudeTranscriptPath,
  DUMMY_API_KEY,
  makeClaudeHome,
  runClaude,
} from "./claude-runner.ts";
import { type Block, contentBlocks, isReminder, THREE_TURNS, threeTurns } from "./three-turns.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CLI_JS = join(REPO, "dist", "cli.js");

beforeAll(() => {
  // CI builds before vitest; a local run of just this file may not have.
  if (!existsSync(CLI_JS)) execFileSync("npm", ["run", "build", "--silent"], { cwd: REPO, stdio: "inherit" });
}, 120_000);

// ---------------------------------------------------------------------------
// Sandboxes and processes

interface Sandbox {
  root: string;
  home: string;
  projectDir: string;
  /** TAPEDECK_HOME of every process of this sandbox: its own session registry. */
  tapedeckHome: string;
  mirrorDir: string;
  mock: AnthropicMock;
}

function useSandbox(prefix: string): Sandbox {
  const sb = {} as Sandbox;
  beforeAll(async () => {
    sb.root = mkdtempSync(join(tmpdir(), `tapedeck-${prefix}-`));
    const { home, projectDir } = makeClaudeHome(join(sb.root, "home"), join(sb.root, "project"));
    sb.home = home;
    sb.projectDir = projectDir;
    sb.tapedeckHome = join(sb.root, "tapedeck-home");
    sb.mirrorDir = join(sb.root, "mirror");
    sb.mock = await startAnthropicMock({ port: 0 });
  });
  afterAll(async () => {
    await sb.mock?.close();
    if (sb.root) rmSync(sb.root, { recursive: true, force: true });
  });
  return sb;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

interface Started {
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): { stdout: string; stderr: string };
  done: Promise<Exit>;
}

/** Spawns in its own process group (killed as a whole at the timeout), collecting stdout and stderr. */
function startProcess(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Started {
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const done = new Promise<Exit>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, opts.timeoutMs ?? 45_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
  return { child, output: () => ({ stdout, stderr }), done };
}

/** The environment `runClaude` gives claude, for claude started by `tapedeck run`. */
function claudeEnv(sb: Sandbox, baseUrl: string): Record<string, string> {
  const scratch = join(sb.home, ".claude-tmp");
  mkdirSync(scratch, { recursive: true, mode: 0o700 });
  return {
    HOME: sb.home,
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: DUMMY_API_KEY,
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
    CLAUDE_CODE_TMPDIR: scratch,
    TAPEDECK_HOME: sb.tapedeckHome,
  };
}

/** `node dist/cli.js ...` in the sandbox's project, with its HOME and TAPEDECK_HOME. */
function tapedeck(sb: Sandbox, args: string[]): Promise<Exit> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sb.home, TAPEDECK_HOME: sb.tapedeckHome };
  return startProcess(process.execPath, [CLI_JS, ...args], { cwd: sb.projectDir, env, timeoutMs: 30_000 })
    .done;
}

const PRINT_ARGS = ["-p", "--output-format", "json", "--permission-mode", "bypassPermissions"];

/** `tapedeck run claude [opts] -- -p <claudeArgs>`, upstream = $ANTHROPIC_BASE_URL. */
function tapedeckRun(
  sb: Sandbox,
  opts: { runArgs?: string[]; claudeArgs: string[]; baseUrl: string; claudeBin?: string },
): Started {
  return startProcess(
    process.execPath,
    [CLI_JS, "run", "claude", ...(opts.runArgs ?? []), "--", ...PRINT_ARGS, ...opts.claudeArgs],
    {
      cwd: sb.projectDir,
      env: { ...claudeEnv(sb, opts.baseUrl), TAPEDECK_CLAUDE_BIN: opts.claudeBin ?? CLAUDE_BIN },
    },
  );
}

async function claude(sb: Sandbox, baseUrl: string, args: string[]): Promise<ClaudeResult> {
  const res = await runClaude({
    home: sb.home,
    cwd: sb.projectDir,
    baseUrl,
    args,
    env: { TAPEDECK_HOME: sb.tapedeckHome },
  });
  expect(res.timedOut, res.stderr).toBe(false);
  return res;
}

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${what} is not JSON: ${text.slice(0, 500)}`);
  }
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/** The records of a mirror directory's files, oldest file first. */
function readMirrorDir<T>(dir: string): T[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort(compareMirrorFiles);
  expect(files.length, dir).toBeGreaterThan(0);
  return files.flatMap((f) => readJsonl<T>(join(dir, f)));
}

/** "connected", or the error code of a TCP connect to 127.0.0.1:port. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? "error"));
  });
}

const usageOf = (u: Partial<MockUsage> | undefined): MockUsage => ({
  input_tokens: u?.input_tokens ?? -1,
  output_tokens: u?.output_tokens ?? -1,
  cache_read_input_tokens: u?.cache_read_input_tokens ?? -1,
  cache_creation_input_tokens: u?.cache_creation_input_tokens ?? -1,
});

// ---------------------------------------------------------------------------
// Transcript records (Claude's and the mirror's share one shape)

interface Message {
  id?: string;
  role?: string;
  model?: string;
  content?: string | Block[];
  usage?: Partial<MockUsage> & { service_tier?: string };
  [key: string]: unknown;
}

interface TranscriptRecord {
  type: string;
  uuid?: string;
  parentUuid?: string | null;
  message?: Message;
  agentId?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  isCompactSummary?: boolean;
  apiBlockIndex?: number | null;
  [key: string]: unknown;
}

const blocksOf = (rec: TranscriptRecord): Block[] => contentBlocks(rec.message?.content);
const toolResultIds = (rec: TranscriptRecord) =>
  blocksOf(rec)
    .filter((b) => b.type === "tool_result")
    .map((b) => b.tool_use_id!);
const isToolResult = (rec: TranscriptRecord) => rec.type === "user" && toolResultIds(rec).length > 0;
const isPrompt = (rec: TranscriptRecord) =>
  rec.type === "user" && !rec.isMeta && !rec.isCompactSummary && !isToolResult(rec);

/** "+k": only the mirror record has key k; "-k": only Claude's; message keys prefixed "message.". */
function keyDiff(
  mirror: TranscriptRecord,
  claudeKeys: Set<string>,
  claudeMessageKeys: Set<string>,
): string[] {
  const diff = (ours: string[], theirs: Set<string>, prefix: string) => [
    ...ours.filter((k) => !theirs.has(k)).map((k) => `+${prefix}${k}`),
    ...[...theirs].filter((k) => !ours.includes(k)).map((k) => `-${prefix}${k}`),
  ];
  const out = diff(Object.keys(mirror), claudeKeys, "");
  if (mirror.message) out.push(...diff(Object.keys(mirror.message), claudeMessageKeys, "message."));
  return out.sort();
}

const keysOf = (recs: TranscriptRecord[], pick: (r: TranscriptRecord) => object | undefined) =>
  new Set(recs.flatMap((r) => Object.keys(pick(r) ?? {})));

/** Top-level fields both sides fill from the same source (request headers and body, response). */
const SHARED_ASSISTANT_FIELDS = [
  "type",
  "isSidechain",
  "agentId",
  "sessionId",
  "requestId",
  "requestedModel",
  "effort",
  "perTurnEffort",
  "madeBy",
  "userType",
] as const;
const SHARED_MESSAGE_FIELDS = ["id", "type", "role", "model", "stop_reason", "stop_sequence"] as const;
const pickUsage = (m: Message | undefined) => ({
  ...usageOf(m?.usage),
  service_tier: m?.usage?.service_tier,
});

interface Parity {
  /** Label (record kind, with block types or tool name) -> each distinct key difference seen under it. */
  keyDiffs: Record<string, string[][]>;
  messageIds: string[];
  toolResultIds: string[];
  prompts: string[];
}

/**
 * Matches every mirror record to Claude's record(s) of the same content and compares them: assistant messages
 * by message.id (Claude writes one record per content block, so the mirror's blocks must equal the
 * concatenation of Claude's), tool results by tool_use_id, prompts in order by their text (the mirror keeps the
 * wire form, where Claude's context reminders precede the typed prompt; Claude keeps the prompt alone), mirrored
 * system context by key set against Claude's own attachment records.
 */
function compareToClaude(mirror: TranscriptRecord[], claudeRecs: TranscriptRecord[]): Parity {
  const parity: Parity = { keyDiffs: {}, messageIds: [], toolResultIds: [], prompts: [] };
  const note = (label: string, diff: string[]) => {
    parity.keyDiffs[label] ??= [];
    const seen = parity.keyDiffs[label];
    if (!seen.some((d) => JSON.stringify(d) === JSON.stringify(diff))) seen.push(diff);
  };
  const toolNames = new Map<string, string>();
  const claudePrompts = claudeRecs.filter(isPrompt);
  let promptCursor = 0;
  // The mirror writes system-role context only; Claude's user-role renderings carry keys of their own.
  const claudeAttachments = claudeRecs.filter((r) => r.type === "attachment" && r.renderedRole === "system");

  for (const rec of mirror) {
    expect(rec.source).toBe("tapedeck-mirror");
    if (rec.type === "assistant") {
      const id = rec.message!.id!;
      parity.messageIds.push(id);
      const theirs = claudeRecs
        .filter((r) => r.type === "assistant" && r.message?.id === id)
        .sort((a, b) => (a.apiBlockIndex ?? 0) - (b.apiBlockIndex ?? 0));
      const blocks = blocksOf(rec);
      expect(theirs.length, `Claude's records of ${id}`).toBe(blocks.length);
      expect(blocks, `content of ${id}`).toEqual(theirs.flatMap(blocksOf));
      expect(theirs.map((r) => r.apiBlockIndex)).toEqual(blocks.map((_, i) => i));
      for (const b of blocks) if (b.type === "tool_use") toolNames.set(b.id!, b.name!);
      const last = theirs.at(-1)!;
      for (const f of SHARED_ASSISTANT_FIELDS) expect(rec[f], `${id} ${f}`).toEqual(last[f]);
      for (const f of SHARED_MESSAGE_FIELDS)
        expect(rec.message![f], `${id} message.${f}`).toEqual(last.message![f]);
      expect(pickUsage(rec.message), `${id} usage`).toEqual(pickUsage(last.message));
      note(
        `assistant(${blocks.map((b) => b.type).join(",")})`,
        keyDiff(
          rec,
          keysOf(theirs, (r) => r),
          keysOf(theirs, (r) => r.message),
        ),
      );
    } else if (isToolResult(rec)) {
      const ids = toolResultIds(rec);
      parity.toolResultIds.push(...ids);
      const theirs = claudeRecs.filter(
        (r) => isToolResult(r) && JSON.stringify(toolResultIds(r)) === JSON.stringify(ids),
      );
      expect(theirs, `Claude's tool results ${ids}`).toHaveLength(1);
      expect(rec.message, `tool result ${ids}`).toEqual(theirs[0]!.message);
      note(
        `tool_result(${ids.map((id) => toolNames.get(id) ?? "?").join(",")})`,
        keyDiff(
          rec,
          keysOf(theirs, (r) => r),
          keysOf(theirs, (r) => r.message),
        ),
      );
    } else if (rec.type === "user") {
      const blocks = blocksOf(rec);
      const reminders = blocks.filter(isReminder);
      const typed = blocks.filter((b) => !isReminder(b));
      // The reminders come first: context Claude puts in front of the prompt on the wire.
      expect(blocks.slice(0, reminders.length)).toEqual(reminders);
      const theirs = claudePrompts[promptCursor++];
      expect(theirs, `Claude's prompt for ${JSON.stringify(typed)}`).toBeDefined();
      expect(typed).toEqual(blocksOf(theirs!));
      parity.prompts.push(typed.map((b) => b.text).join("\n"));
      for (const f of ["isSidechain", "agentId", "sessionId", "userType"] as const) {
        expect(rec[f], `prompt ${f}`).toEqual(theirs![f]);
      }
      note(
        "prompt",
        keyDiff(
          rec,
          keysOf([theirs!], (r) => r),
          keysOf([theirs!], (r) => r.message),
        ),
      );
    } else {
      expect(rec.type).toBe("attachment");
      expect(rec.renderedRole).toBe("system");
      expect(claudeAttachments.length).toBeGreaterThan(0);
      note(
        "attachment(system context)",
        keyDiff(
          rec,
          keysOf(claudeAttachments, (r) => r),
          new Set(),
        ),
      );
    }
  }
  // Every prompt Claude recorded was matched: the mirror is complete, not just consistent.
  expect(promptCursor).toBe(claudePrompts.length);
  return parity;
}

// ---------------------------------------------------------------------------
// 1. Parity

/**
 * The documented differences (src/providers/claude/mirror/envelope.ts), "+" only in the mirror's record, "-" only in
 * Claude's: `source` added everywhere; omitted are the per-block timing keys (thinkingDurationMs,
 * thinkingDisplay, toolInputStreamMs) and Claude's enriched tool-result state (toolUseResult,
 * sourceToolAssistantUUID, permissionDecision, and sandboxed on Bash results). Message key sets are identical.
 */
const TOOL_RESULT_OMITTED = ["-permissionDecision", "-sourceToolAssistantUUID", "-toolUseResult"];
/** The records the main thread and a subagent both write, with the same differences. */
const SHARED_KEY_DIFFS: Record<string, string[][]> = {
  prompt: [["+source"]],
  "attachment(system context)": [["+source"]],
  "assistant(thinking,text,tool_use)": [
    ["+source", "-thinkingDisplay", "-thinkingDurationMs", "-toolInputStreamMs"],
  ],
  "assistant(text)": [["+source"]],
};
const MAIN_KEY_DIFFS: Record<string, string[][]> = {
  ...SHARED_KEY_DIFFS,
  "assistant(text,tool_use)": [["+source", "-toolInputStreamMs"]],
  "tool_result(Bash)": [["+source", ...TOOL_RESULT_OMITTED, "-sandboxed"].sort()],
  "tool_result(Agent)": [["+source", ...TOOL_RESULT_OMITTED].sort()],
};
/** A subagent's tool result carries no toolUseResult in Claude's own file either. */
const AGENT_KEY_DIFFS: Record<string, string[][]> = {
  ...SHARED_KEY_DIFFS,
  "tool_result(Bash)": [["+source", "-permissionDecision", "-sandboxed", "-sourceToolAssistantUUID"]],
};

describe("parity: the mirror against Claude Code's own transcript of the same session", () => {
  const sb = useSandbox("proxy-parity");
  let mirror: MirrorExtension;
  let proxy: RunningProxy;
  const proxyLog: ProxyLogEntry[] = [];
  let sessionId = "";
  const PROMPTS = [
    "SCENARIO_BASH echo parity",
    "SCENARIO_FAIL",
    "SCENARIO_AGENT echo sub",
    "a plain question",
  ];

  beforeAll(async () => {
    mirror = createMirrorExtension({
      ...defaultMirrorSettings(sb.home),
      enabled: true,
      dir: sb.mirrorDir,
      redact: false,
    });
    proxy = await startProxy({
      port: 0,
      upstream: sb.mock.url,
      extensions: [mirror],
      log: (e) => proxyLog.push(e),
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const mainTranscript = () => claudeTranscriptPath(sb.home, sb.projectDir, sessionId);
  const mainMirrorDir = () => join(sb.mirrorDir, mirrorDirName(sessionId));
  const agentIds = () => [...new Set(sb.mock.usageLog.flatMap((u) => (u.agentId ? [u.agentId] : [])))];
  const mainMessageIds = () => sb.mock.usageLog.filter((u) => u.agentId === null).map((u) => u.messageId);

  it("four turns of one session through the proxy", async () => {
    for (const prompt of PROMPTS) {
      const res = await claude(sb, proxy.url, sessionId ? ["--resume", sessionId, prompt] : [prompt]);
      expect(res.code, res.stderr).toBe(0);
      sessionId ||= res.sessionId!;
      expect(res.sessionId).toBe(sessionId);
    }
    await mirror.idle();
    expect(sb.mock.usageLog.map((u) => [u.scenario, u.agentId === null])).toEqual([
      ["bash", true],
      ["bash-result", true],
      ["fail", true],
      ["bash-result", true],
      ["agent", true],
      ["bash", false],
      ["bash-result", false],
      ["agent-result", true],
      ["text", true],
    ]);
    expect(agentIds()).toHaveLength(1);
  });

  it("claude keeps the proxy's secret path on every request: main, subagent, count_tokens; none refused", () => {
    expect(proxy.url).toMatch(/\/tpx_[A-Za-z0-9_-]{43}$/);
    expect(proxyLog.filter((e) => e.msg === "refused")).toEqual([]);
    const forwarded = proxyLog.filter((e) => e.msg === "request");
    // Every request the mock saw came through the gate, with the secret stripped on the way.
    expect(forwarded.length).toBe(sb.mock.requests.length);
    expect(forwarded.map((e) => e.path).sort()).toEqual(
      sb.mock.requests.map((r) => r.path.split("?")[0]).sort(),
    );
    expect(JSON.stringify(sb.mock.requests)).not.toContain(proxy.secret);
    expect(JSON.stringify(proxyLog)).not.toContain(proxy.secret);
    // Subagent calls carry their agent id: the prefix held for them too.
    expect(sb.mock.requests.some((r) => r.agentId)).toBe(true);
  });

  it("the main file: each message once, every record matching Claude's up to the documented differences", () => {
    const ours = readMirrorDir<TranscriptRecord>(mainMirrorDir());
    const theirs = readJsonl<TranscriptRecord>(mainTranscript());
    const parity = compareToClaude(ours, theirs);
    expect(parity.keyDiffs).toEqual(MAIN_KEY_DIFFS);
    // Complete and without duplicates: every main-thread response the mock served, in order, once.
    expect(parity.messageIds).toEqual(mainMessageIds());
    const claudeIds = [...new Set(theirs.filter((r) => r.type === "assistant").map((r) => r.message!.id!))];
    expect(claudeIds).toEqual(mainMessageIds());
    expect(parity.toolResultIds).toEqual(theirs.filter(isToolResult).flatMap(toolResultIds));
    expect(parity.toolResultIds).toHaveLength(3);
    expect(parity.prompts).toEqual(PROMPTS);
    // The linear synthetic chain, on the main thread only.
    expect(ours.map((r) => r.parentUuid)).toEqual([null, ...ours.slice(0, -1).map((r) => r.uuid)]);
    for (const r of ours) {
      expect(r).toMatchObject({ isSidechain: false, sessionId, entrypoint: "tapedeck-mirror" });
      expect(r).not.toHaveProperty("agentId");
    }
  });

  it("the subagent's traffic is in its own agent file, matching Claude's subagent transcript", () => {
    const [agentId] = agentIds();
    expect(mirrorDirName(agentId!)).toBe(agentId);
    const sessionMirror = mainMirrorDir();
    expect(readdirSync(join(sessionMirror, AGENTS_DIR))).toEqual([agentId]);
    const ours = readMirrorDir<TranscriptRecord>(join(sessionMirror, AGENTS_DIR, agentId!));
    const claudeAgentFile = join(dirname(mainTranscript()), sessionId, "subagents", `agent-${agentId}.jsonl`);
    const parity = compareToClaude(ours, readJsonl<TranscriptRecord>(claudeAgentFile));
    expect(parity.keyDiffs).toEqual(AGENT_KEY_DIFFS);
    const agentMessages = sb.mock.usageLog.filter((u) => u.agentId === agentId).map((u) => u.messageId);
    expect(parity.messageIds).toEqual(agentMessages);
    expect(parity.prompts).toEqual(["SCENARIO_BASH echo sub"]);
    for (const r of ours) expect(r).toMatchObject({ isSidechain: true, agentId, sessionId });
    // None of it leaked into the main file: not its messages, not its tool calls or results.
    const main = JSON.stringify(readMirrorDir<TranscriptRecord>(sessionMirror));
    const agentToolIds = ours.flatMap(blocksOf).flatMap((b) => (b.type === "tool_use" ? [b.id!] : []));
    expect(agentToolIds).toHaveLength(1);
    for (const id of [...agentMessages, ...agentToolIds]) expect(main.includes(`"${id}"`), id).toBe(false);
  });
});

// ---------------------------------------------------------------------------
// 2. Transparency

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function post(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // `${url}${path}`, not new URL(path, url): the proxy's URL ends in its secret path segment.
    const req = http.request(`${url}${path}`, { method: "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** What differs between two runs of the same prompt by design: ids and timings. */
function stableResult(json: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(json).filter(([k]) => k !== "session_id" && k !== "uuid" && !k.endsWith("_ms")),
  );
}

describe("the proxy is invisible to claude", () => {
  const sb = useSandbox("proxy-transparent");
  const opened: Array<{ close(): Promise<void> }> = [];
  /** claude's first Messages request of the direct run. */
  let claudeRequest: LoggedRequest | undefined;
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
  });

  /** A fresh mock behind a fresh proxy (mirror and archive feed on), so ids and usage counters start over. */
  async function fresh(viaProxy: boolean): Promise<{ mock: AnthropicMock; url: string }> {
    const mock = await startAnthropicMock({ port: 0 });
    opened.push(mock);
    if (!viaProxy) return { mock, url: mock.url };
    const mirror = createMirrorExtension({
      ...defaultMirrorSettings(sb.home),
      enabled: true,
      dir: sb.mirrorDir,
    });
    const proxy = await startProxy({
      port: 0,
      upstream: mock.url,
      extensions: [mirror, createArchiveFeed()],
    });
    opened.push(proxy);
    return { mock, url: proxy.url };
  }

  it("claude's -p JSON result, usage and transcript are the same with and without the proxy", async () => {
    const runs: ClaudeResult[] = [];
    for (const viaProxy of [false, true]) {
      const { mock, url } = await fresh(viaProxy);
      const res = await claude(sb, url, ["SCENARIO_BASH echo same"]);
      expect(res.code, res.stderr).toBe(0);
      runs.push(res);
      claudeRequest ??= mock.requests.find((r) => r.path.startsWith("/v1/messages"));
    }
    const [direct, proxied] = runs as [ClaudeResult, ClaudeResult];
    expect(proxied.json.result).toBe("Done: same");
    expect(proxied.json.usage).toEqual(direct.json.usage);
    expect(proxied.json.modelUsage).toEqual(direct.json.modelUsage);
    expect(stableResult(proxied.json)).toEqual(stableResult(direct.json));
    expect(proxied.stderr).toBe(direct.stderr);
    // What claude stored of the responses: identical messages (same ids, since both mocks started fresh).
    const messages = (res: ClaudeResult) =>
      readJsonl<TranscriptRecord>(claudeTranscriptPath(sb.home, sb.projectDir, res.sessionId!))
        .filter((r) => r.type === "assistant" || isToolResult(r))
        .map((r) => r.message);
    // One record per content block (thinking, text, tool_use), the tool result, the final text.
    expect(messages(proxied)).toHaveLength(5);
    expect(messages(proxied)).toEqual(messages(direct));
  });

  it("byte for byte: a streamed answer and an API error, replayed directly and through the proxy", async () => {
    // claude's own first request of the direct run above, replayed as it was sent.
    const sent = claudeRequest!;
    expect(sent).toBeDefined();
    const headers = Object.fromEntries(
      Object.entries(sent.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)),
    );
    const body = sent.body as Record<string, unknown>;
    const failing = { ...body, messages: [{ role: "user", content: "SCENARIO_APIERROR" }] };
    const statuses: number[] = [];
    for (const payload of [body, failing]) {
      const replies: RawResponse[] = [];
      for (const viaProxy of [false, true]) {
        const { url } = await fresh(viaProxy);
        replies.push(await post(url, sent.path, headers, JSON.stringify(payload)));
      }
      const [direct, proxied] = replies as [RawResponse, RawResponse];
      statuses.push(direct.status);
      expect(proxied.status).toBe(direct.status);
      expect(proxied.body.equals(direct.body), proxied.body.toString("utf8").slice(0, 300)).toBe(true);
      // All headers but the per-connection ones (the proxy's client connection is its own) and the clock.
      const endToEnd = (h: RawResponse["headers"]) =>
        Object.fromEntries(
          Object.entries(h).filter(([k]) => !["date", "connection", "keep-alive"].includes(k)),
        );
      expect(endToEnd(proxied.headers)).toEqual(endToEnd(direct.headers));
      expect(proxied.headers["request-id"]).toBe("req_mock_1");
    }
    expect(statuses).toEqual([200, 400]);
  });
});

// ---------------------------------------------------------------------------
// 3. Restore round trip

interface ResumeBody {
  messages: Array<{ role: string; content: string | Block[] }>;
}

/**
 * The conversation up to the last assistant message, in one spelling: a string content is the one text block
 * it stands for, and cache_control markers (placed per request) are left out.
 */
function history(body: ResumeBody): unknown {
  const lastAssistant = body.messages.map((m) => m.role).lastIndexOf("assistant");
  return JSON.parse(
    JSON.stringify(
      body.messages.slice(0, lastAssistant + 1).map((m) => ({
        ...m,
        content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
      })),
      (k, v) => (k === "cache_control" ? undefined : v),
    ),
  );
}

interface RestoreJson {
  path: string;
  records: number;
  backup?: string;
  files: number;
  skippedLines: number;
}

describe("restore: a transcript lost to the stub rewrite comes back from the mirror and resumes", () => {
  const sb = useSandbox("proxy-restore");
  let sessionId = "";
  let stub = "";
  /** Claude's own transcript before the stub replaced it. */
  let original = "";
  /** The request of the resume from the restored transcript. */
  let resumedBody: ResumeBody | undefined;

  const transcript = () => claudeTranscriptPath(sb.home, sb.projectDir, sessionId);
  /** The one main-thread Messages request of a `claude --resume` run that began at mock request `from`. */
  const resumeRequest = (from: number): ResumeBody => {
    const requests = sb.mock.requests
      .slice(from)
      .filter((r) => r.path.startsWith("/v1/messages") && r.agentId === null && r.sessionId === sessionId);
    expect(requests).toHaveLength(1);
    return requests[0]!.body as ResumeBody;
  };

  it("three turns through `tapedeck run claude --mirror`", async () => {
    sessionId = await threeTurns(async (args) => {
      const run = tapedeckRun(sb, {
        runArgs: ["--mirror", "--mirror-dir", sb.mirrorDir],
        claudeArgs: args,
        baseUrl: sb.mock.url,
      });
      const res = await run.done;
      expect(res.code, res.stderr).toBe(0);
      return { json: parseJson<{ session_id: string; result: string }>(res.stdout, "claude's result") };
    });
    expect(sb.mock.usageLog).toHaveLength(5);
    const mirrored = readMirrorDir<TranscriptRecord>(join(sb.mirrorDir, sessionId));
    expect(mirrored.filter((r) => r.type === "assistant").map((r) => r.message!.id)).toEqual(
      sb.mock.usageLog.map((u) => u.messageId),
    );
  });

  it("Claude's transcript becomes a metadata-only stub (CC#66734)", () => {
    const records = readJsonl<TranscriptRecord>(transcript());
    const lastPrompt = records.filter((r) => r.type === "last-prompt").at(-1);
    expect(lastPrompt).toBeDefined();
    const summary = {
      type: "summary",
      summary: "Scripted mock session",
      leafUuid: records.at(-1)!.uuid ?? null,
    };
    stub = `${JSON.stringify(summary)}\n${JSON.stringify(lastPrompt)}\n`;
    original = readFileSync(transcript(), "utf8");
    writeFileSync(transcript(), stub);
  });

  it("restore refuses to replace an existing transcript without --force", async () => {
    const args = [
      "mirror",
      "restore",
      sessionId,
      "--project",
      sb.projectDir,
      "--claude-home",
      join(sb.home, ".claude"),
      "--mirror-dir",
      sb.mirrorDir,
    ];
    const refused = await tapedeck(sb, args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("exists");
    expect(readFileSync(transcript(), "utf8")).toBe(stub);
    expect(readdirSync(dirname(transcript())).filter((f) => f.includes(".bak-"))).toEqual([]);

    const forced = await tapedeck(sb, [...args, "--force", "--json"]);
    expect(forced.code, forced.stderr).toBe(0);
    const result = parseJson<RestoreJson>(forced.stdout, "restore --json");
    expect(result).toMatchObject({ path: transcript(), files: 1, skippedLines: 0 });
    expect(result.backup).toMatch(/\.jsonl\.bak-/);
    expect(readFileSync(result.backup!, "utf8")).toBe(stub);
    const restored = readJsonl<TranscriptRecord>(transcript());
    expect(restored).toHaveLength(result.records);
    expect(restored.at(-1)).toMatchObject({
      type: "last-prompt",
      lastPrompt: THREE_TURNS.prompts[2],
      sessionId,
    });
  });

  it("claude --resume sends the whole earlier conversation", async () => {
    const from = sb.mock.requests.length;
    const res = await claude(sb, sb.mock.url, ["--resume", sessionId, "next"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.sessionId).toBe(sessionId);
    expect(res.json.result).toBe("Mock reply.");
    resumedBody = resumeRequest(from);
    const messages = resumedBody.messages;
    const turns = messages.filter((m) => m.role !== "system");
    const blocks = (m: { content: string | Block[] }) => contentBlocks(m.content);
    const typed = (m: { content: string | Block[] }) =>
      blocks(m)
        .filter((b) => !isReminder(b))
        .map((b) =>
          b.type === "text"
            ? `text:${b.text}`
            : b.type === "tool_result"
              ? `result:${b.tool_use_id}`
              : b.type,
        )
        .join(" | ");
    const assistant = (m: { content: string | Block[] }) =>
      blocks(m)
        .map((b) =>
          b.type === "text" ? `text:${b.text}` : b.type === "tool_use" ? `use:${b.id}:${b.name}` : b.type,
        )
        .join(" | ");
    // The whole conversation, in order: prompts, answers, and each tool call answered by its result.
    expect(turns.map((m) => `${m.role} ${m.role === "user" ? typed(m) : assistant(m)}`)).toEqual([
      `user text:${THREE_TURNS.prompts[0]}`,
      "assistant thinking | text:Running the command. | use:toolu_mock_1:Bash",
      "user result:toolu_mock_1",
      `assistant text:${THREE_TURNS.answers[0]}`,
      `user text:${THREE_TURNS.prompts[1]}`,
      "assistant thinking | text:Running the command. | use:toolu_mock_2:Bash",
      "user result:toolu_mock_2",
      `assistant text:${THREE_TURNS.answers[1]}`,
      `user text:${THREE_TURNS.prompts[2]}`,
      `assistant text:${THREE_TURNS.answers[2]}`,
      "user text:next",
    ]);
    const results = turns.flatMap((m) => blocks(m)).filter((b) => b.type === "tool_result");
    expect(results.map((b) => [b.tool_use_id, b.content, b.is_error])).toEqual([
      ["toolu_mock_1", "first", false],
      ["toolu_mock_2", "Exit code 3\noops", true],
    ]);
    const uses = turns.flatMap((m) => blocks(m)).filter((b) => b.type === "tool_use");
    expect(uses.map((b) => b.input)).toEqual([
      { command: "echo first", description: "Run a command" },
      { command: "echo oops >&2; exit 3", description: "Fail on purpose" },
    ]);
  });

  it("that history is the one a resume from Claude's intact transcript sends", async () => {
    expect(resumedBody).toBeDefined();
    writeFileSync(transcript(), original);
    const from = sb.mock.requests.length;
    const res = await claude(sb, sb.mock.url, ["--resume", sessionId, "next"]);
    expect(res.code, res.stderr).toBe(0);
    const intact = resumeRequest(from);
    // Same messages, blocks, thinking signatures, tool inputs and results, in the same order. (What follows the
    // history differs: from the restored file Claude re-sends its session context with the new prompt.)
    expect(history(resumedBody!)).toEqual(history(intact));
    for (const body of [resumedBody!, intact]) {
      const lastUser = body.messages.filter((m) => m.role === "user").at(-1)!;
      const typed = contentBlocks(lastUser.content)
        .filter((b) => !isReminder(b))
        .map((b) => b.text);
      expect(typed).toEqual(["next"]);
    }
  });
});

// ---------------------------------------------------------------------------
// 4. Archive feed

describe("archive feed: exact usage of every response, once, into the recorded session", () => {
  const sb = useSandbox("proxy-feed");
  let proxyRun: Started | undefined;
  let proxyUrl = "";
  let sessionId = "";

  const eventsPath = (id: string) => join(sb.projectDir, ".tapedeck", "claude-sessions", id, "events.jsonl");
  const readEvents = (id: string) => (existsSync(eventsPath(id)) ? readJsonl<Envelope>(eventsPath(id)) : []);

  afterAll(async () => {
    if (proxyRun && proxyRun.child.exitCode === null) {
      proxyRun.child.kill("SIGTERM");
      await proxyRun.done;
    }
    // Stops the project's hook server, which this test's SessionStart hooks started.
    if (!sb.projectDir) return;
    const serveState = join(sb.projectDir, ".tapedeck", "serve.json");
    const server = existsSync(serveState)
      ? parseJson<{ pid: number }>(readFileSync(serveState, "utf8"), "serve.json")
      : undefined;
    await tapedeck(sb, ["uninstall", "claude", "--project", sb.projectDir]);
    if (server && !(await until(() => !pidAlive(server.pid), 5000, 25))) process.kill(server.pid, "SIGKILL");
  });

  it("tapedeck installed, `tapedeck proxy` in front of the mock", async () => {
    const install = await tapedeck(sb, ["install", "claude", "--project", sb.projectDir, "--yes"]);
    expect(install.code, install.stderr).toBe(0);
    proxyRun = startProcess(
      process.execPath,
      [CLI_JS, "proxy", "--port", "0", "--upstream", sb.mock.url, "--json", "--verbose"],
      {
        cwd: sb.root,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sb.home, TAPEDECK_HOME: sb.tapedeckHome },
        timeoutMs: 300_000,
      },
    );
    const up = await until(() => proxyRun!.output().stdout.includes("\n"), 10_000, 25);
    expect(up, proxyRun.output().stderr).toBe(true);
    const info = parseJson<{ url: string; mirror: boolean }>(proxyRun.output().stdout, "proxy --json");
    expect(info.mirror).toBe(false);
    proxyUrl = info.url;
  });

  it("a session with a subagent and /compact: turn_usage equals the mock's usage log, each message once", async () => {
    for (const args of [["SCENARIO_BASH echo feed"], ["SCENARIO_AGENT echo sub"], ["/compact"], ["after"]]) {
      const res = await claude(sb, proxyUrl, sessionId ? ["--resume", sessionId, ...args] : args);
      expect(res.code, res.stderr).toBe(0);
      sessionId ||= res.sessionId!;
      expect(res.sessionId).toBe(sessionId);
    }
    const served = sb.mock.usageLog;
    expect(served.map((u) => u.scenario)).toEqual([
      "bash",
      "bash-result",
      "agent",
      "bash",
      "bash-result",
      "agent-result",
      "compact",
      "text",
    ]);
    // The SessionStart hook registered the session for the proxy, under this sandbox's TAPEDECK_HOME.
    const registered = join(sb.tapedeckHome, "registry", "claude", `${sessionId}.json`);
    expect(parseJson(readFileSync(registered, "utf8"), "registry entry")).toMatchObject({
      provider: "claude",
      provider_session_id: sessionId,
      project_root: sb.projectDir,
    });

    const usage = readEvents(sessionId).filter((e) => e.kind === "turn_usage");
    const ids = usage.map((e) => String(e.payload.message_id));
    expect(new Set(ids).size, `duplicates in ${ids}`).toBe(ids.length);
    const byId = Object.fromEntries(usage.map((e) => [e.payload.message_id, e]));
    expect(Object.fromEntries(usage.map((e) => [e.payload.message_id, usageOf(e.usage)]))).toEqual(
      Object.fromEntries(served.map((u) => [u.messageId, u.usage])),
    );
    for (const u of served) {
      const e = byId[u.messageId]!;
      expect(e.event_id).toBe(`turn_usage:${u.messageId}`);
      expect(e.agent_id ?? null, u.messageId).toBe(u.agentId);
      expect(["proxy", "claude-transcript"]).toContain(e.usage!.source);
    }
    // The hooks recorded this session too (their Stop and SubagentStop read the same usage from the
    // transcripts): the single count above is dedup by event id, not a recorder that missed it.
    const kinds = [...new Set(readEvents(sessionId).map((e) => e.kind))];
    for (const k of ["session_start", "user_prompt", "assistant_message", "subagent_stop", "compaction"]) {
      expect(kinds).toContain(k);
    }
    // No transcript holds the compaction summary's usage: only the proxy can have recorded it.
    const compact = served.find((u) => u.scenario === "compact")!;
    expect(byId[compact.messageId]!.usage).toMatchObject({ source: "proxy", model: compact.model });
    // `--verbose`: one line per request, none refused (claude kept the secret path through the subagent and
    // /compact), and no line shows the secret, a header or content.
    const stderr = proxyRun!.output().stderr;
    const lines = stderr.split("\n").filter((l) => l.startsWith("tapedeck proxy: POST "));
    expect(lines.length).toBe(sb.mock.requests.length);
    for (const l of lines)
      expect(l).toMatch(
        /^tapedeck proxy: POST \/v1\/messages(\/count_tokens)? 200 \d+ B in \d+ B out [\d.]+ ms$/,
      );
    expect(stderr).not.toContain("refused");
    expect(stderr).not.toContain(new URL(proxyUrl).pathname.slice(1));
    expect(stderr).not.toContain("SCENARIO_");
    expect(stderr).not.toContain(DUMMY_API_KEY);
  });

  it("with recording stopped, the proxy writes nothing to the archive", async () => {
    const stop = await tapedeck(sb, ["record", "stop", "--project", sb.projectDir]);
    expect(stop.code, stop.stderr).toBe(0);
    const sessions = join(sb.projectDir, ".tapedeck", "claude-sessions");
    const before = readdirSync(sessions);
    const eventsBefore = readFileSync(eventsPath(sessionId));
    const served0 = sb.mock.usageLog.length;
    // The recorded session (registered: the proxy knows its project) and a new one.
    const resumed = await claude(sb, proxyUrl, ["--resume", sessionId, "SCENARIO_BASH echo off"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const fresh = await claude(sb, proxyUrl, ["SCENARIO_BASH echo off"]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(sb.mock.usageLog.length).toBe(served0 + 4);
    expect(readFileSync(eventsPath(sessionId)).equals(eventsBefore)).toBe(true);
    expect(readdirSync(sessions)).toEqual(before);

    // Stopping the proxy: SIGTERM closes it cleanly.
    proxyRun!.child.kill("SIGTERM");
    const exit = await proxyRun!.done;
    expect(exit.code, exit.stderr).toBe(0);
    expect(readFileSync(eventsPath(sessionId)).equals(eventsBefore)).toBe(true);
    expect(readdirSync(sessions)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------
// 5. tapedeck run claude: exit code, signals, no proxy left behind

/** A claude that reports its pid and the ANTHROPIC_BASE_URL `tapedeck run` gave it, then becomes the real one. */
function reportingClaude(dir: string): { bin: string; report(): Array<{ pid: number; url: string }> } {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const bin = join(dir, "claude-wrapper.sh");
  const out = join(dir, "claude-wrapper.log");
  writeFileSync(
    bin,
    `#!/bin/sh\nprintf '%s %s\\n' "$$" "$ANTHROPIC_BASE_URL" >> ${q(out)}\nexec ${q(CLAUDE_BIN)} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return {
    bin,
    report: () =>
      existsSync(out)
        ? readFileSync(out, "utf8")
            .trim()
            .split("\n")
            .map((line) => {
              const [pid, url] = line.split(" ");
              return { pid: Number(pid), url: url! };
            })
        : [],
  };
}

/** An upstream that takes requests and never answers: claude waits on it until it is stopped. */
async function startSilentUpstream(): Promise<{ url: string; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req) => {
    req.resume();
    if (req.url?.startsWith("/v1/messages")) hits++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("tapedeck run claude: exit code and signals", () => {
  const sb = useSandbox("proxy-run");

  it("exits with claude's exit code (API error: 1) and leaves no proxy behind", async () => {
    const direct = await claude(sb, sb.mock.url, ["SCENARIO_APIERROR"]);
    expect(direct.code).toBe(1);
    const attempts = sb.mock.requests.filter((r) => r.scenario === "apierror").length;
    const wrapper = reportingClaude(sb.root);
    const res = await tapedeckRun(sb, {
      claudeArgs: ["SCENARIO_APIERROR"],
      baseUrl: sb.mock.url,
      claudeBin: wrapper.bin,
    }).done;
    // Soft: the checks below still run when this one fails.
    expect.soft(res.code, "tapedeck run's exit code").toBe(direct.code);
    expect(res.signal).toBeNull();
    const json = parseJson<{ is_error: boolean; api_error_status: number }>(res.stdout, "claude's result");
    expect(json).toMatchObject({ is_error: true, api_error_status: 400 });
    // claude talked to the proxy, the proxy to the mock; the proxy is gone now.
    const [seen] = wrapper.report();
    const proxyUrl = new URL(seen!.url);
    expect(proxyUrl.hostname).toBe("127.0.0.1");
    expect(Number(proxyUrl.port)).not.toBe(sb.mock.port);
    // The same requests as without the proxy (claude's own retries included).
    expect(sb.mock.requests.filter((r) => r.scenario === "apierror")).toHaveLength(2 * attempts);
    expect(await tryConnect(Number(proxyUrl.port))).toBe("ECONNREFUSED");
  });

  // Claude Code 2.1.332 on its own exits 143 on SIGTERM, 0 on SIGINT, 129 on SIGHUP.
  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "%s goes to claude; tapedeck exits as claude did, with the proxy and claude gone",
    async (signal) => {
      const upstream = await startSilentUpstream();
      try {
        // Claude on its own, interrupted mid-request.
        const alone = startProcess(CLAUDE_BIN, [...PRINT_ARGS, "waiting"], {
          cwd: sb.projectDir,
          env: claudeEnv(sb, upstream.url),
        });
        expect(await until(() => upstream.hits() >= 1, 20_000, 25)).toBe(true);
        alone.child.kill(signal);
        const aloneExit = await alone.done;
        expect(aloneExit.timedOut).toBe(false);

        // The same through tapedeck run: the signal goes to tapedeck only.
        const hits0 = upstream.hits();
        mkdirSync(join(sb.root, signal));
        const wrapper = reportingClaude(join(sb.root, signal));
        const run = tapedeckRun(sb, {
          claudeArgs: ["waiting"],
          baseUrl: upstream.url,
          claudeBin: wrapper.bin,
        });
        expect(await until(() => upstream.hits() > hits0, 20_000, 25)).toBe(true);
        const [seen] = wrapper.report();
        run.child.kill(signal);
        const exit = await run.done;
        expect(exit.timedOut).toBe(false);
        const expected = aloneExit.code ?? 128 + constants.signals[signal];
        expect
          .soft({ code: exit.code, signal: exit.signal }, `claude alone: ${JSON.stringify(aloneExit)}`)
          .toEqual({
            code: expected,
            signal: null,
          });
        expect(pidAlive(seen!.pid)).toBe(false);
        expect(await tryConnect(Number(new URL(seen!.url).port))).toBe("ECONNREFUSED");
      } finally {
        await upstream.close();
      }
    },
  );
});
