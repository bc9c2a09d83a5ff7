// @module-tag claude
/**
 * End to end with the real `claude` (offline, against the mock Messages API): a transcript Claude Code lost
 * comes back from the hook archive alone, or from the proxy mirror and the archive together, and resumes.
 *
 * 1. Hooks only (default transport, no proxy): three turns with tool calls; the transcript becomes a
 *    metadata-only stub (CC#66734); `doctor --transcripts` and `inspect` report it; `restore --from archive`
 *    (refused without --force, a dry run writes nothing, the stub is backed up); `claude -p --resume` sends the
 *    earlier prompts, tool calls and results to the mock and completes. The same with the transcript deleted.
 * 2. A resume from a damaged transcript (cut to its first turn) records a `transcript_loss` event, and the
 *    status line says so while that session runs; the hook prints nothing.
 * 3. Both channels: the session runs through `tapedeck run claude --mirror`; `auto` takes the mirror's turns
 *    (thinking included) and the archive's for a turn run without the proxy.
 * 4. Bad input: a session that matches nothing (exit 3), a transcript directory that is a symlink, a
 *    transcript that holds more than the archive knows (recording was off for a turn: not restored over, and
 *    the gap is stated).
 */
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { type AnthropicMock, type LoggedRequest, startAnthropicMock } from "../mocks/anthropic-mock.ts";
import { type CliResult, readEventsFile, runCli } from "./archive-checks.ts";
import {
  CLAUDE_BIN,
  type ClaudeResult,
  claudeTranscriptPath,
  makeClaudeHome,
  offlineClaudeEnv,
  runClaude,
} from "./claude-runner.ts";
import { CLI_JS, HOOK_JS, hookServerPids, useBuild } from "./sandboxes.ts";
import { type Block, contentBlocks, isReminder, THREE_TURNS, threeTurns } from "./three-turns.ts";

useBuild();

interface Sandbox {
  root: string;
  home: string;
  projectDir: string;
  mirrorDir: string;
  mock: AnthropicMock;
  /** Set by a test: the mock runs the status line while claude waits for its reply. */
  statusProbe?: { sessionId: string; seen: string[]; cli: string[] };
}

function statusLine(sb: Sandbox, sessionId: string): string {
  const payload = { session_id: sessionId, workspace: { project_dir: sb.projectDir }, cwd: sb.projectDir };
  return execFileSync(process.execPath, [HOOK_JS, "--statusline", "claude"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sb.home },
  });
}

/** `tapedeck status --statusline` as a status-line command runs: Claude puts the session's id in its environment. */
function cliStatusLine(sb: Sandbox, sessionId: string): string {
  return execFileSync(process.execPath, [CLI_JS, "status", "--statusline"], {
    cwd: sb.projectDir,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sb.home, CLAUDE_CODE_SESSION_ID: sessionId },
  });
}

function useSandbox(prefix: string): Sandbox {
  const sb = {} as Sandbox;
  beforeAll(async () => {
    sb.root = mkdtempSync(join(tmpdir(), `tapedeck-${prefix}-`));
    Object.assign(sb, makeClaudeHome(join(sb.root, "home"), join(sb.root, "project")));
    sb.mirrorDir = join(sb.root, "mirror");
    sb.mock = await startAnthropicMock({
      port: 0,
      script: (ctx) => {
        const probe = sb.statusProbe;
        if (probe && ctx.sessionId === probe.sessionId && ctx.agentId === null) {
          probe.seen.push(statusLine(sb, probe.sessionId));
          probe.cli.push(cliStatusLine(sb, probe.sessionId));
        }
        return undefined;
      },
    });
  });
  afterAll(async () => {
    await sb.mock?.close();
    for (const pid of sb.projectDir ? hookServerPids(sb.projectDir) : []) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    if (sb.root) rmSync(sb.root, { recursive: true, force: true });
  });
  return sb;
}

function tapedeck(sb: Sandbox, args: string[]): Promise<CliResult> {
  return runCli(CLI_JS, args, {
    cwd: sb.projectDir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sb.home },
  });
}

async function claude(sb: Sandbox, args: string[]): Promise<ClaudeResult> {
  const res = await runClaude({ home: sb.home, cwd: sb.projectDir, baseUrl: sb.mock.url, args });
  expect(res.timedOut, res.stderr).toBe(false);
  return res;
}

/** `tapedeck run claude --mirror --mirror-dir DIR -- -p ...`: the proxy and its mirror for this one run. */
function viaProxy(sb: Sandbox, args: string[]): Promise<CliResult> {
  const env = { ...offlineClaudeEnv(sb.home, sb.mock.url), TAPEDECK_CLAUDE_BIN: CLAUDE_BIN };
  const argv = [CLI_JS, "run", "claude", "--mirror", "--mirror-dir", sb.mirrorDir, "--"];
  argv.push("-p", "--output-format", "json", "--permission-mode", "bypassPermissions", ...args);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: sb.projectDir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function install(sb: Sandbox): Promise<void> {
  const res = await tapedeck(sb, ["install", "claude", "--project", sb.projectDir, "--yes"]);
  expect(res.code, res.stderr).toBe(0);
}

/** The three turns recorded by the hooks alone (installed first): the session id. */
async function recordedByHooks(sb: Sandbox): Promise<string> {
  await install(sb);
  return threeTurns((args) => claude(sb, args));
}

const transcriptOf = (sb: Sandbox, id: string) => claudeTranscriptPath(sb.home, sb.projectDir, id);
const eventsOf = (sb: Sandbox, id: string): Envelope[] =>
  readEventsFile(join(sb.projectDir, ".tapedeck", "claude-sessions", id, "events.jsonl"));

function readJsonl(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The metadata-only stub of CC#66734: a summary and the last-prompt record, no message. */
function stubTranscript(path: string): string {
  const lastPrompt = readJsonl(path)
    .filter((r) => r.type === "last-prompt")
    .at(-1);
  const stub = `${JSON.stringify({ type: "summary", summary: "Scripted mock session", leafUuid: null })}\n${JSON.stringify(lastPrompt)}\n`;
  writeFileSync(path, stub);
  return stub;
}

interface Message {
  role: string;
  content: string | Block[];
}

/** The one main-thread Messages request of the resume that began at mock request `from`. */
function resumedMessages(sb: Sandbox, from: number, id: string): Message[] {
  const reqs = sb.mock.requests
    .slice(from)
    .filter(
      (r: LoggedRequest) => r.path.startsWith("/v1/messages") && r.agentId === null && r.sessionId === id,
    );
  expect(reqs).toHaveLength(1);
  return (reqs[0]!.body as { messages: Message[] }).messages;
}

/** The conversation as one line per message: what a resume sent the model. */
function conversation(messages: Message[]): string[] {
  return messages
    .filter((m) => m.role !== "system")
    .map((m) => {
      const parts = contentBlocks(m.content)
        .filter((b) => !isReminder(b))
        .map((b) =>
          b.type === "text"
            ? `text:${b.text}`
            : b.type === "tool_use"
              ? `use:${b.id}:${b.name}`
              : b.type === "tool_result"
                ? `result:${b.tool_use_id}:${String(b.content)}:${b.is_error}`
                : b.type,
        );
      return `${m.role} ${parts.join(" | ")}`;
    });
}

/** What the archive-only rebuild of the three turns makes Claude send (thinking and pre-tool text were never seen). */
const REBUILT_HISTORY = [
  `user text:${THREE_TURNS.prompts[0]}`,
  "assistant use:toolu_mock_1:Bash",
  "user result:toolu_mock_1:first:false",
  `assistant text:${THREE_TURNS.answers[0]}`,
  `user text:${THREE_TURNS.prompts[1]}`,
  "assistant use:toolu_mock_2:Bash",
  "user result:toolu_mock_2:Exit code 3\noops:true",
  `assistant text:${THREE_TURNS.answers[1]}`,
  `user text:${THREE_TURNS.prompts[2]}`,
  `assistant text:${THREE_TURNS.answers[2]}`,
];

interface RestoreJson {
  dry_run: boolean;
  path: string;
  records: number;
  bytes: number;
  by_type: Record<string, number>;
  used: { mirror_turns: number; archive_turns: number };
  backup?: string;
  not_rebuilt: string[];
  redacted_events: number;
  gaps: Array<{ from: string; to: string | null; reason: string }>;
  current: { finding: string };
}

interface DoctorJson {
  ok: boolean;
  checked: number;
  lost: Array<{ session_id: string; finding: string; restore_command: string; path: string }>;
}

describe("hooks only: a stubbed or deleted transcript comes back from the archive and resumes", () => {
  const sb = useSandbox("restore-archive");
  let id = "";

  it("three turns with tool calls, recorded by the hooks alone", async () => {
    id = await recordedByHooks(sb);
    const kinds = eventsOf(sb, id).map((e) => e.kind);
    expect(kinds.filter((k) => k === "user_prompt")).toHaveLength(3);
    expect(kinds.filter((k) => k === "tool_call")).toHaveLength(2);
    const doctor = await tapedeck(sb, ["doctor", "--transcripts", "--json"]);
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ ok: true, checked: 1, lost: [] });
  });

  it("the stub is reported by doctor --transcripts and inspect, with the command that restores it", async () => {
    stubTranscript(transcriptOf(sb, id));
    const doctor = await tapedeck(sb, ["doctor", "--transcripts", "--json"]);
    expect(doctor.code).toBe(1);
    const report = JSON.parse(doctor.stdout) as DoctorJson;
    expect(report.lost).toHaveLength(1);
    expect(report.lost[0]).toMatchObject({ session_id: id, finding: "stub", path: transcriptOf(sb, id) });
    expect(report.lost[0]!.restore_command).toContain(`tapedeck restore ${id}`);
    expect(report.lost[0]!.restore_command).toContain("--from archive --force");
    // --all-projects: every project of the session registry, whatever the current project.
    const all = await tapedeck(sb, [
      "doctor",
      "--transcripts",
      "--all-projects",
      "--project",
      sb.root,
      "--json",
    ]);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stdout)).toMatchObject({ projects: [sb.projectDir], lost: [{ session_id: id }] });
    const human = await tapedeck(sb, ["doctor", "--transcripts"]);
    expect(human.stdout).toContain("stub: a metadata-only stub");
    const inspect = await tapedeck(sb, ["inspect", id]);
    expect(inspect.stdout).toMatch(/^Transcript +stub: /m);
  });

  it("restore refuses to replace it without --force; a dry run says what it would write and writes nothing", async () => {
    const stub = readFileSync(transcriptOf(sb, id), "utf8");
    const refused = await tapedeck(sb, ["restore", id, "--from", "archive"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--force");
    const dry = await tapedeck(sb, ["restore", id, "--from", "archive", "--dry-run", "--json"]);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as RestoreJson;
    expect(plan).toMatchObject({
      dry_run: true,
      by_type: {
        "user:prompt": 3,
        "assistant:tool_use": 2,
        "user:tool_result": 2,
        "assistant:text": 3,
        "last-prompt": 1,
      },
      used: { mirror_turns: 0, archive_turns: 3 },
      current: { finding: "stub" },
    });
    expect(plan.not_rebuilt.join(" ")).toContain("thinking");
    expect(readFileSync(transcriptOf(sb, id), "utf8")).toBe(stub);
    expect(readdirSync(dirname(transcriptOf(sb, id))).filter((n) => n.includes(".bak-"))).toEqual([]);
  });

  it("restore --from archive --force keeps the stub as a backup and writes a 0600 transcript", async () => {
    const stub = readFileSync(transcriptOf(sb, id), "utf8");
    const res = await tapedeck(sb, ["restore", id, "--from", "archive", "--force", "--json"]);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as RestoreJson;
    expect(readFileSync(out.backup!, "utf8")).toBe(stub);
    expect(lstatSync(out.backup!).mode & 0o777).toBe(0o600);
    expect(lstatSync(transcriptOf(sb, id)).mode & 0o777).toBe(0o600);
    expect(readJsonl(transcriptOf(sb, id))).toHaveLength(out.records);
    expect(out.bytes).toBe(lstatSync(transcriptOf(sb, id)).size);
  });

  it("claude -p --resume sends the earlier prompts, tool calls and results, and completes", async () => {
    const from = sb.mock.requests.length;
    const res = await claude(sb, ["--resume", id, "next"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.result).toBe("Mock reply.");
    expect(conversation(resumedMessages(sb, from, id))).toEqual([...REBUILT_HISTORY, "user text:next"]);
    // The restored file is smaller than Claude's was: that is the restore, not a loss.
    expect(eventsOf(sb, id).filter((e) => e.payload.type === "transcript_loss")).toEqual([]);
  });

  it("deleted: doctor says missing, restore needs no --force, the resume sends the history again", async () => {
    unlinkSync(transcriptOf(sb, id));
    const doctor = JSON.parse(
      (await tapedeck(sb, ["doctor", "--transcripts", "--json"])).stdout,
    ) as DoctorJson;
    expect(doctor.lost[0]).toMatchObject({ finding: "missing" });
    expect(doctor.lost[0]!.restore_command).not.toContain("--force");
    const res = await tapedeck(sb, ["restore", id, "--from", "archive"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("not rebuilt");
    const from = sb.mock.requests.length;
    const resumed = await claude(sb, ["--resume", id, "again"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(conversation(resumedMessages(sb, from, id))).toEqual([
      ...REBUILT_HISTORY,
      "user text:next",
      "assistant text:Mock reply.",
      "user text:again",
    ]);
  });
});

describe("a resume from a damaged transcript records the loss, and the status line says so", () => {
  const sb = useSandbox("restore-loss");
  let id = "";

  it("the transcript cut to its first turn: the resume records transcript_loss, the status line warns while it runs", async () => {
    id = await recordedByHooks(sb);
    const path = transcriptOf(sb, id);
    const records = readFileSync(path, "utf8").split("\n");
    const second = records.findIndex(
      (l) => l.includes(THREE_TURNS.prompts[1]!) && l.includes('"type":"user"'),
    );
    writeFileSync(path, `${records.slice(0, second).join("\n")}\n`);
    const probe = { sessionId: id, seen: [] as string[], cli: [] as string[] };
    sb.statusProbe = probe;
    const res = await claude(sb, ["--resume", id, "after the loss"]);
    sb.statusProbe = undefined;
    // Nothing reached the conversation: claude's answer is the mock's, as for any resume.
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.result).toBe("Mock reply.");
    const loss = eventsOf(sb, id).filter(
      (e) => e.kind === "provider_event" && e.payload.type === "transcript_loss",
    );
    expect(loss).toHaveLength(1);
    expect(loss[0]!.payload).toMatchObject({ finding: "shrunk", hook_event_name: "SessionStart" });
    const expected = loss[0]!.payload.expected as { bytes_at_least: number; answers: number };
    const found = loss[0]!.payload.found as { bytes: number };
    expect(expected.answers).toBe(3);
    expect(found.bytes).toBeLessThan(expected.bytes_at_least);
    // The mock ran the status line while claude waited for its reply: the session was running.
    expect(probe.seen.length).toBeGreaterThan(0);
    expect(probe.seen[0]).toMatch(/^tapedeck ● REC capture-only · ⚠ transcript shrunk: tapedeck restore /);
    expect(probe.cli[0]).toMatch(/^tapedeck ● REC capture-only · ⚠ transcript shrunk: tapedeck restore /);
    // The session has ended (SessionEnd): the warning is gone.
    expect(statusLine(sb, id)).toBe("tapedeck ● REC capture-only\n");
    expect(cliStatusLine(sb, id)).toBe("tapedeck ● REC capture-only\n");
  });

  it("the hook itself prints nothing on a loss", () => {
    const path = transcriptOf(sb, id);
    writeFileSync(path, "");
    const payload = {
      session_id: id,
      transcript_path: path,
      cwd: sb.projectDir,
      hook_event_name: "SessionStart",
      source: "resume",
    };
    const out = execFileSync(process.execPath, [HOOK_JS, "claude"], {
      input: JSON.stringify(payload),
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sb.home, CLAUDE_PROJECT_DIR: sb.projectDir },
    });
    expect(out).toBe("");
    const loss = eventsOf(sb, id).filter(
      (e) => e.kind === "provider_event" && e.payload.type === "transcript_loss",
    );
    expect(loss.map((e) => e.payload.finding)).toEqual(["shrunk", "stub"]);
  });
});

describe("both channels: auto prefers the mirror, and takes the archive for what the mirror lacks", () => {
  const sb = useSandbox("restore-auto");
  let id = "";

  it("three turns through the proxy with the mirror on, a fourth without it, then the transcript is stubbed", async () => {
    await install(sb);
    id = await threeTurns(async (args) => {
      const res = await viaProxy(sb, args);
      expect(res.code, res.stderr).toBe(0);
      return { json: JSON.parse(res.stdout) };
    });
    const fourth = await claude(sb, ["--resume", id, "fourth, without the proxy"]);
    expect(fourth.code, fourth.stderr).toBe(0);
    const ok = await tapedeck(sb, ["doctor", "--transcripts", "--mirror-dir", sb.mirrorDir, "--json"]);
    expect(ok.code, ok.stdout).toBe(0);
    stubTranscript(transcriptOf(sb, id));
    const lost = await tapedeck(sb, ["doctor", "--transcripts", "--mirror-dir", sb.mirrorDir, "--json"]);
    const report = JSON.parse(lost.stdout) as DoctorJson & { lost: Array<{ mirror: boolean }> };
    expect(report.lost[0]).toMatchObject({ finding: "stub", mirror: true });
    expect(report.lost[0]!.restore_command).toContain("--from auto --force");
  });

  it("restore --from auto: the mirror's three turns (thinking kept) and the archive's fourth; the resume sends all", async () => {
    const res = await tapedeck(sb, [
      "restore",
      id,
      "--from",
      "auto",
      "--mirror-dir",
      sb.mirrorDir,
      "--force",
      "--json",
    ]);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as RestoreJson;
    expect(out.used).toMatchObject({ mirror_turns: 3, archive_turns: 1 });
    const restored = readJsonl(transcriptOf(sb, id));
    const sources = restored.filter((r) => r.type === "user" || r.type === "assistant").map((r) => r.source);
    expect(new Set(sources)).toEqual(new Set(["tapedeck-mirror", "tapedeck-archive"]));
    const from = sb.mock.requests.length;
    const resumed = await claude(sb, ["--resume", id, "next"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const conv = conversation(resumedMessages(sb, from, id));
    expect(conv.filter((l) => l.startsWith("user text:"))).toEqual([
      ...THREE_TURNS.prompts.map((p) => `user text:${p}`),
      "user text:fourth, without the proxy",
      "user text:next",
    ]);
    // From the mirror: the first turn's message as the model sent it, thinking and the text before the call.
    expect(conv[1]).toBe("assistant thinking | text:Running the command. | use:toolu_mock_1:Bash");
  });
});

describe("bad input", () => {
  const sb = useSandbox("restore-bad");
  let id = "";

  it("a session that matches nothing: exit 3", async () => {
    id = await recordedByHooks(sb);
    const res = await tapedeck(sb, ["restore", "no-such-session", "--from", "archive"]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain("no session matches");
    expect((await tapedeck(sb, ["restore", id, "--from", "bogus"])).code).toBe(2);
  });

  it("a transcript directory that is a symlink is refused, and nothing is written through it", async () => {
    const dir = dirname(transcriptOf(sb, id));
    const real = `${dir}.real`;
    renameSync(dir, real);
    const elsewhere = join(sb.root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, dir);
    try {
      const res = await tapedeck(sb, ["restore", id, "--from", "archive", "--force"]);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain("is a symlink");
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      unlinkSync(dir);
      renameSync(real, dir);
    }
  });

  it("a turn run while recording was off: the transcript holds more than the archive, is not restored over, and the gap is stated", async () => {
    expect((await tapedeck(sb, ["record", "stop"])).code).toBe(0);
    const off = await claude(sb, ["--resume", id, "SCENARIO_BASH echo unrecorded"]);
    expect(off.code, off.stderr).toBe(0);
    expect((await tapedeck(sb, ["record", "start"])).code).toBe(0);
    const on = await claude(sb, ["--resume", id, "recorded again"]);
    expect(on.code, on.stderr).toBe(0);
    const before = readFileSync(transcriptOf(sb, id));
    const refused = await tapedeck(sb, ["restore", id, "--from", "archive"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("holds more than the archive knows");
    expect(readFileSync(transcriptOf(sb, id)).equals(before)).toBe(true);
    const doctor = JSON.parse(
      (await tapedeck(sb, ["doctor", "--transcripts", "--json"])).stdout,
    ) as DoctorJson;
    expect(doctor.lost).toEqual([]);
    const dry = JSON.parse(
      (await tapedeck(sb, ["restore", id, "--from", "archive", "--dry-run", "--json"])).stdout,
    ) as RestoreJson;
    expect(dry.current.finding).toBe("newer");
    expect(dry.gaps).toHaveLength(1);
    expect(dry.gaps[0]!.reason).toBe("recording was switched off");
    expect(dry.gaps[0]!.to).not.toBeNull();
    const human = await tapedeck(sb, ["restore", id, "--from", "archive", "--dry-run"]);
    expect(human.stdout).toMatch(/gap: recording was switched off from \S+ until \S+/);
    expect(existsSync(transcriptOf(sb, id))).toBe(true);
  });
});
