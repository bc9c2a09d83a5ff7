// A reader that stops early (`tapedeck … | head -1`, a pager that quits) closes the pipe under a command
// still writing: every command ends quietly, exit 0 and nothing on stderr (src/cli/main.ts). The project holds
// enough sessions that each output is several times what a pipe buffers, so the command is still writing
// when the reader goes.
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endQuietlyOnClosedPipe } from "../../src/cli/closed-pipe.ts";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { registerSession } from "../../src/core/archive/session-registry.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { CLI, ensureBuilt } from "../helpers/cli-run.ts";
import { identity, spec } from "../helpers/session.ts";
import { tempProject } from "../helpers/temp-project.ts";
import { slugOf } from "../import/fixture.ts";

/** Enough sessions, with ids long enough, that the shortest output (du's, a line per session) passes a pipe. */
const SESSIONS = 640;
const ID_TAIL = "-of-the-reader-that-went-away".repeat(3);
/** What a pipe buffers on Linux (64 KiB): each output is past it, so the command writes after the reader went. */
const PIPE_BYTES = 64 * 1024;

let temp: { root: string; cleanup: () => void };
let project: string;
let env: NodeJS.ProcessEnv;

function prompt(id: string, n: number, at: string): NormalizedEvent {
  return {
    kind: "user_prompt",
    event_id: `p-${id}-${n}`,
    timestamp: at,
    payload: {
      prompt: `find the needle ${n} in the haystack of ${id}, ${"then look under every stone of the yard ".repeat(3)}`,
    },
  };
}

/** Sessions with a prompt and usage each, one long session, and as many of Claude's own transcripts to import. */
function fixture(): void {
  const home = join(temp.root, "home");
  env = {
    ...process.env,
    HOME: home,
    TAPEDECK_HOME: join(home, ".tapedeck"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
    GEMINI_CLI_HOME: home,
  };
  for (let i = 0; i < SESSIONS; i++) {
    const id = `session-${String(i).padStart(5, "0")}${ID_TAIL}`;
    const at = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
    recordEvents(spec(project, { identity: identity(id) }), [
      { kind: "session_start", event_id: `s-${id}`, timestamp: at, payload: { source: "startup" } },
      prompt(id, i, at),
      {
        kind: "turn_usage",
        event_id: `u-${id}`,
        timestamp: at,
        payload: {},
        usage: {
          source: "claude-transcript",
          model: "claude-sonnet-4",
          input_tokens: 100 + i,
          output_tokens: 10,
        },
      },
    ]);
  }
  registerSession(
    {
      provider: "claude",
      provider_session_id: "session-00000",
      project_root: project,
      session_root: join(project, ".tapedeck", "claude-sessions"),
    } as never,
    env,
  );
  const long = Array.from({ length: SESSIONS }, (_, n) =>
    prompt("long", n, new Date(Date.UTC(2026, 11, 1) + n * 1000).toISOString()),
  );
  recordEvents(spec(project, { identity: identity("long") }), long);
  const transcripts = join(home, ".claude", "projects", slugOf(project));
  mkdirSync(transcripts, { recursive: true });
  for (let i = 0; i < SESSIONS; i++) {
    const sessionId = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const record = {
      type: "user",
      uuid: `10000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      parentUuid: null,
      sessionId,
      cwd: project,
      timestamp: new Date(Date.UTC(2026, 9, 1) + i * 60_000).toISOString(),
      message: { role: "user", content: `an old prompt ${i}` },
    };
    writeFileSync(join(transcripts, `${sessionId}.jsonl`), `${JSON.stringify(record)}\n`);
  }
}

beforeAll(() => {
  ensureBuilt();
  temp = tempProject("tapedeck-closed-pipe-");
  project = join(temp.root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  fixture();
});
afterAll(() => temp?.cleanup());

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The command with its stdout read whole, or (`closeAfterFirst`) closed by the reader after its first chunk. */
function run(args: string[], closeAfterFirst: boolean): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (closeAfterFirst) child.stdout.destroy();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const COMMANDS: string[][] = [
  ["import", "all", "--dry-run"],
  ["du", "--all-projects", "--top", "999999"],
  ["list"],
  ["show", "long", "--full"],
  ["usage", "session"],
  ["search", "needle", "--limit", "1000"],
  ["inspect", "long"],
  ["help"],
];

describe("a closed stdout", () => {
  it.each(COMMANDS.map((c) => [c.join(" "), c] as const))("ends %s quietly, exit 0", async (_name, args) => {
    const whole = await run(args, false);
    expect(whole.code, whole.stderr).toBe(0);
    const closed = await run(args, true);
    expect(closed.stderr).toBe("");
    expect(closed.signal).toBeNull();
    expect(closed.code).toBe(0);
    // The commands that print per session or per event were still writing when the reader went.
    if (!["help", "inspect"].includes(args[0]!)) expect(whole.stdout.length).toBeGreaterThan(PIPE_BYTES);
  });
});

describe("a closed stderr", () => {
  it("drops the notes and keeps the command's own exit code", async () => {
    const r = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [CLI, "show", "no-such-session"], {
        cwd: project,
        env,
        stdio: ["ignore", "ignore", "pipe"],
      });
      // Closed before the command writes its error: the write meets a pipe without a reader.
      child.stderr.destroy();
      child.on("close", (code) => resolve(code));
    });
    expect(r).toBe(3);
  });

  it("is told from any other error of a stream by the program's one handler", () => {
    const out = new EventEmitter();
    const err = new EventEmitter();
    const exits: number[] = [];
    endQuietlyOnClosedPipe(out, err, (code) => exits.push(code));
    const errno = (code: string) => Object.assign(new Error(`write ${code}`), { code });
    err.emit("error", errno("EPIPE"));
    err.emit("error", errno("ERR_STREAM_DESTROYED"));
    expect(exits).toEqual([]);
    expect(() => err.emit("error", errno("EIO"))).toThrow("write EIO");
    expect(() => out.emit("error", errno("ENOSPC"))).toThrow("write ENOSPC");
    out.emit("error", errno("EPIPE"));
    expect(exits).toEqual([0]);
  });
});
