// One agent's recording in its sandbox, as the record suites (claude-, codex-, gemini-record) check it: where
// its archive is, the CLI's calls about it, the runs of one session, and the checks every suite makes of an
// install, a finished session, its tool calls, the planted secrets and a broken session root.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import type { Agent, AgentResult } from "./agents.ts";
import {
  type CliResult,
  expectCompleteSession,
  expectNoSecrets,
  expectPrivateModes,
  readEventsFile,
  snapshot,
} from "./archive-checks.ts";
import type { Sandbox } from "./sandboxes.ts";

/** The usage `tapedeck inspect --json` sums over a session. */
export interface InspectedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  sources: string[];
  unknown?: string[];
}

export interface InspectJson {
  session_id: string;
  status: string;
  event_count: number;
  byte_count: number;
  counts_by_kind: Record<string, number>;
  redaction_count: number;
  malformed_lines: number;
  sequence_anomalies: number;
  checksums: { ok: boolean; reason: string } | null;
  usage: InspectedUsage;
}

/** The events of a run with one shell command, as Claude Code and Codex fire their hooks. */
export const SHELL_RUN_KINDS = [
  "session_start",
  "user_prompt",
  "tool_call",
  "tool_result",
  "assistant_message",
  "turn_usage",
  "turn_usage",
  "session_end",
];

export interface Recording<R extends AgentResult> {
  provider: string;
  /** The project's .tapedeck, the provider's session root in it, and one session's directory. */
  dir(): string;
  root(): string;
  sessionDir(id: string): string;
  events(id: string): Envelope[];
  /** The built CLI in the project; asynchronous, because the mock lives in this process and must keep serving. */
  cli(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** A command's `--json` answer; it exits 0. */
  json<T>(args: string[]): Promise<T>;
  /** `install` and `uninstall` of the provider in the project, with `flags`. */
  install(...flags: string[]): Promise<CliResult>;
  uninstall(...flags: string[]): Promise<CliResult>;
  /** `record stop`, and `status` agreeing; `record start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A finished session: complete, checksums over the exact bytes, and `inspect --json` agreeing. */
  complete(id: string): Promise<InspectJson>;
  /** The project config install wrote: recording on, capture-only, over `transport`, with what it `added`. */
  installed(transport: "command" | "http", added?: Record<string, unknown>): Record<string, unknown>;
  /**
   * The runs of one session, by name: each run (given the session's id, "" before the first) continues the
   * session the first one started, and every event it appends is the provider's, of that session.
   */
  session<U>(served: () => U[]): SessionRuns<R, U>;
  /**
   * No planted secret, whole or in part, in any byte under .tapedeck, every kind's marker in session `id`'s
   * events instead, every file 0600 and every directory 0700. The agent's own files are the positive control:
   * they hold every needle, so the scan would have found a leak.
   */
  expectSecretsKeptOut(id: string, planted: Planted, agentFiles: Buffer[]): void;
  /**
   * Runs `run` with the session root replaced by a regular file, then puts the root back, and checks that
   * nothing was recorded: no directory for the run's session, the archive as it was, and the failure noted by
   * its code alone. chmod cannot stop root (CI runs as root); below a file every mkdir and open fails with
   * ENOTDIR for any user.
   */
  withBrokenRoot(run: () => Promise<R>): Promise<R>;
}

/** One run of a session: what it answered, the events it appended, and what the mock served meanwhile. */
export interface SessionRun<R, U> {
  res: R;
  events: Envelope[];
  served: U[];
}

export interface SessionRuns<R, U> {
  readonly runs: Record<string, SessionRun<R, U>>;
  /** The session's id, "" before the first run. */
  readonly id: string;
  /** How many events the session's runs appended. */
  readonly seen: number;
  run(name: string, exec: (id: string) => Promise<R>): Promise<SessionRun<R, U>>;
  /** The session's events, which are its runs' and nothing else. */
  expectWhole(): Envelope[];
}

/** Planted secrets (planted-secrets.ts): the secrets by redaction kind, the needles, a kind's marker. */
export interface Planted {
  secrets: Record<string, string>;
  needles: readonly string[];
  marker(kind: string): string;
}

/**
 * `agent`'s recording in the sandbox's project; `scope` is how the suite names the provider to record, status
 * and inspect (nothing where the project records only that one).
 */
export function recording<S extends Sandbox, R extends AgentResult>(
  sb: S,
  agent: Agent<S, R>,
  scope: string[],
): Recording<R> {
  const provider = agent.name;
  const dir = () => join(sb.projectDir, ".tapedeck");
  const root = () => join(dir(), `${provider}-sessions`);
  const sessionDir = (id: string) => join(root(), id);
  const events = (id: string) => readEventsFile(join(sessionDir(id), "events.jsonl"));
  const cli = (args: string[], env?: Record<string, string>) => sb.cli(args, env);
  async function json<T>(args: string[]): Promise<T> {
    const res = await cli([...args, "--json"]);
    expect(res.code, res.stderr).toBe(0);
    return JSON.parse(res.stdout) as T;
  }
  const project = () => ["--project", sb.projectDir];
  return {
    provider,
    dir,
    root,
    sessionDir,
    events,
    cli,
    json,
    install: (...flags) => cli(["install", provider, ...flags, ...project()]),
    uninstall: (...flags) => cli(["uninstall", provider, ...flags, ...project()]),
    async stop() {
      const stop = await cli(["record", "stop", ...scope, ...project()]);
      expect(stop.code, stop.stderr).toBe(0);
      expect(await json(["status", ...scope, ...project()])).toMatchObject({ recording: false });
    },
    async start() {
      const start = await cli(["record", "start", ...scope, ...project()]);
      expect(start.code, start.stderr).toBe(0);
    },
    complete: (id) =>
      expectCompleteSession({
        dir: sessionDir(id),
        provider,
        id,
        inspect: () => json<InspectJson>(["inspect", id, ...scope, ...project()]),
      }),
    installed(transport, added = {}) {
      const config = JSON.parse(readFileSync(join(dir(), "config.json"), "utf8"));
      expect(config).toEqual({
        schema_version: 1,
        providers: {
          [provider]: {
            recording: "on",
            recording_since: expect.stringMatching(/^\d{4}-/),
            mode: "capture-only",
            transport,
            ...added,
          },
        },
      });
      return config.providers[provider];
    },
    session<U>(served: () => U[]): SessionRuns<R, U> {
      let id = "";
      let seen = 0;
      const runs: Record<string, SessionRun<R, U>> = {};
      return {
        runs,
        get id() {
          return id;
        },
        get seen() {
          return seen;
        },
        async run(name, exec) {
          const served0 = served().length;
          const res = await exec(id);
          id ||= agent.session(res)!;
          expect(agent.session(res)).toBe(id);
          const all = events(id);
          const run = { res, events: all.slice(seen), served: served().slice(served0) };
          seen = all.length;
          for (const e of run.events) expect(e).toMatchObject({ provider, session_id: `${provider}:${id}` });
          runs[name] = run;
          return run;
        },
        expectWhole() {
          const all = events(id);
          expect(all).toEqual(Object.values(runs).flatMap((r) => r.events));
          return all;
        },
      };
    },
    expectSecretsKeptOut(id, planted, agentFiles) {
      expectNoSecrets(dir(), planted.needles);
      const raw = readFileSync(join(sessionDir(id), "events.jsonl"), "utf8");
      for (const kind of Object.keys(planted.secrets)) expect(raw).toContain(planted.marker(kind));
      for (const needle of planted.needles)
        expect(
          agentFiles.some((file) => file.includes(Buffer.from(needle))),
          needle,
        ).toBe(true);
      expectPrivateModes(dir());
    },
    async withBrokenRoot(run) {
      const saved = join(sb.root, "saved-sessions");
      const diagnostics = join(dir(), "diagnostics.jsonl");
      const diagBefore = existsSync(diagnostics) ? readFileSync(diagnostics, "utf8") : "";
      const archived = snapshot(root());
      renameSync(root(), saved);
      writeFileSync(root(), "not a directory\n", { mode: 0o600 });
      let result: R;
      try {
        result = await run();
        expect(readFileSync(root(), "utf8")).toBe("not a directory\n");
      } finally {
        rmSync(root(), { force: true });
        renameSync(saved, root());
      }
      expect(existsSync(sessionDir(agent.session(result)!))).toBe(false);
      expect(snapshot(root())).toEqual(archived);
      const diagNew = readFileSync(diagnostics, "utf8").slice(diagBefore.length).trim().split("\n");
      expect(diagNew.length).toBeGreaterThan(0);
      // The store refuses a session root that is not a real directory (UnsafePathError) before a mkdir below
      // it would fail with ENOTDIR; either way it is noted by its code alone.
      for (const line of diagNew)
        expect(JSON.parse(line)).toMatchObject({
          what: "error",
          code: expect.stringMatching(/^(UnsafePathError|ENOTDIR)$/),
        });
      return result;
    },
  };
}

/**
 * Every tool call has exactly one outcome (an event of `outcomes`) with its tool_use_id, later and from the same
 * agent, and no id is used twice; answers each call with its outcome.
 */
export function expectToolPairs(
  events: Envelope[],
  calls: number,
  outcomes: string[],
  id?: RegExp,
): Array<[Envelope, Envelope]> {
  const called = events.filter((e) => e.kind === "tool_call");
  const answered = events.filter((e) => outcomes.includes(e.kind));
  expect(called).toHaveLength(calls);
  expect(answered).toHaveLength(called.length);
  const pairs = called.map((call): [Envelope, Envelope] => {
    const callId = call.payload.tool_use_id;
    if (id) expect(callId).toMatch(id);
    const matching = answered.filter((o) => o.payload.tool_use_id === callId);
    expect(matching, String(callId)).toHaveLength(1);
    expect(matching[0]!.sequence).toBeGreaterThan(call.sequence);
    expect(matching[0]!.agent_id).toBe(call.agent_id);
    return [call, matching[0]!];
  });
  expect(new Set(called.map((c) => c.payload.tool_use_id)).size).toBe(called.length);
  return pairs;
}

/** Writes a user's settings file as their editor would (two-space JSON, a final newline), its folder made. */
export function writeSettings(path: string, settings: object): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(settings, null, 2)}\n`);
}
