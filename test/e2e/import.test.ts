// @module-tag claude
// @module-tag codex
// @module-tag gemini
// @module-tag ccusage
/**
 * End to end: a user who ran the real agent (offline, against its mock) before installing tapedeck runs
 * `tapedeck import <agent>`, the same story for each: the past sessions (a command with a planted credential, a
 * failing command, and what the agent does besides: Claude's subagent and compaction, Codex's subagent with its
 * own rollout under the root thread, Gemini's resume in its chat file) come into the archive sealed, redacted
 * and git-ignored; list, show, search, export and promote work on them; no byte under .tapedeck holds the
 * credential; a second import adds nothing, a resumed session only its new turn; and the token counts equal a
 * hook recording of the same session. Claude's also: the viewer's data API, and totals equal to ccusage's over
 * the same transcripts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyChecksums } from "../../src/core/archive/recovery.ts";
import type { Envelope, Manifest } from "../../src/core/archive/schemas.ts";
import { startViewer } from "../../src/viewer/server.ts";
import { until } from "../helpers/poll.ts";
import { type Agent, CLAUDE, CODEX, GEMINI, rowsFor, runOk } from "./agents.ts";
import { type CliResult, expectNoSecrets, expectPrivateModes, readEventsFile } from "./archive-checks.ts";
import { AWS_KEY_ID, GITHUB_TOKEN, plantSecrets } from "./planted-secrets.ts";
import { REPO, type Sandbox, useBuild } from "./sandboxes.ts";

useBuild();

/** One agent's import, as far as it differs from the others'. */
interface ImportCase {
  agent: Agent;
  /** The agent as the user knows it. */
  title: string;
  planted: Record<string, string>;
  /** The user's past sessions, each as its prompts (the first starts it); the first session is checked in depth. */
  history: string[][];
  /** What the dry run says of the first session. */
  plan: Record<string, unknown>;
  /** Kinds of event the first session's import holds beyond every import's (IMPORTED_KINDS). */
  kinds: string[];
  /** What only this agent's import holds. */
  imported?(events: Envelope[]): void;
  /** The first session's title in `list`. */
  listTitle: RegExp;
  /** A word of the session that `show` prints, and one `search` finds it by. */
  shown: string;
  searched: string;
  /** The prompt that grows the first session, and what the next import says of it. */
  grown: { prompt: string; status: Record<string, unknown> };
  /** The session recorded by the hooks: install's flags beyond the project and --yes, and its prompts. */
  hooked: { install: string[]; prompts: string[] };
  /** The token counts an import and a hook recording of one session agree on. */
  counts(events: Envelope[]): unknown;
  /** Tests of this agent alone, run after the grown import. */
  more?(state: ImportState): void;
}

interface ImportState {
  sb: Sandbox;
  /** The past sessions' ids, once imported. */
  ids: string[];
  cli(args: string[]): Promise<CliResult>;
  json<T = Record<string, unknown>>(args: string[]): Promise<T>;
  sessionDir(id: string): string;
}

/** What every agent's first session holds once imported, as the hooks would have recorded it. */
const IMPORTED_KINDS = [
  "user_prompt",
  "tool_call",
  "tool_result",
  "tool_error",
  "assistant_message",
  "turn_usage",
];

/** Per message (Codex: response) id, what `pick` takes of its turn_usage; a message counted twice fails. */
function byMessage(events: Envelope[], pick: (e: Envelope) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of events.filter((x) => x.kind === "turn_usage")) {
    const id = String(e.usage?.message_id);
    expect(out[id], `${id} counted twice`).toBeUndefined();
    out[id] = pick(e);
  }
  return out;
}

type Tokens = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
};
const TOKENS: Array<keyof Tokens> = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
];
/** The four counts of `t` (a report row, a total), as they are. */
const pick = (t: Tokens): Tokens => Object.fromEntries(TOKENS.map((k) => [k, t[k]])) as Tokens;

const GEMINI_COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "reasoning_output_tokens",
  "total_tokens",
] as const;

/** Sums of every count over a session's turn_usage events. */
function sums(events: Envelope[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(GEMINI_COUNTS.map((k) => [k, 0]));
  for (const e of events.filter((x) => x.kind === "turn_usage")) {
    for (const k of GEMINI_COUNTS) out[k]! += (e.usage?.[k] as number | undefined) ?? 0;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Claude's own: its transcripts are what ccusage reads, and the viewer's data API.

const CCUSAGE = join(REPO, "node_modules", "ccusage", "dist", "index.js");

function ccusage(sb: Sandbox, args: string[], env: Record<string, string> = {}) {
  const out = execFileSync(process.execPath, [CCUSAGE, ...args, "--json", "--offline"], {
    env: { PATH: process.env.PATH ?? "", HOME: sb.home, CLAUDE_CONFIG_DIR: join(sb.home, ".claude"), ...env },
    encoding: "utf8",
  });
  return JSON.parse(out);
}

/** ccusage's names for the four counts. */
const fromCcusage = (t: {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}): Tokens => ({
  input_tokens: t.inputTokens,
  output_tokens: t.outputTokens,
  cache_read_input_tokens: t.cacheReadTokens,
  cache_creation_input_tokens: t.cacheCreationTokens,
});

function claudeOnly({ sb, ids, json, sessionDir }: ImportState): void {
  const manifestOf = (id: string): Manifest =>
    JSON.parse(readFileSync(join(sessionDir(id), "manifest.json"), "utf8"));

  it("the viewer's data API serves them", async () => {
    const [id] = ids;
    const viewer = await startViewer({ projects: [sb.projectDir] });
    try {
      const get = async (path: string) => (await fetch(`${viewer.url}${path}`)).json();
      const { sessions } = (await get("api/sessions")) as {
        sessions: Array<{ key: string; session_id: string }>;
      };
      const mine = sessions.find((s) => s.session_id === `claude:${id}`)!;
      expect(mine).toBeDefined();
      const page = (await get(`api/sessions/${mine.key}/events`)) as { turns: unknown[] };
      expect(page.turns.length).toBeGreaterThanOrEqual(3);
      const integrity = (await get(`api/sessions/${mine.key}/integrity`)) as {
        checksums: { events_sha256: string } | null;
        scan: { malformed_lines: number; valid_events: number };
      };
      expect(integrity.checksums?.events_sha256).toMatch(/^[0-9a-f]{64}$/);
      const events = readEventsFile(join(sessionDir(id!), "events.jsonl"));
      expect(integrity.scan).toMatchObject({ malformed_lines: 0, valid_events: events.length });
    } finally {
      await viewer.close();
    }
  }, 60_000);

  it("token totals equal ccusage's over the same transcripts", () => {
    const ours = Object.fromEntries(TOKENS.map((k) => [k, 0])) as Tokens;
    for (const s of ids) {
      const t = manifestOf(s).tokens!;
      for (const k of TOKENS) ours[k] += t[k];
    }
    expect(ours.input_tokens).toBeGreaterThan(0);
    expect(ours.cache_read_input_tokens).toBeGreaterThan(0);
    expect(ours).toEqual(fromCcusage(ccusage(sb, ["session"], { TZ: "UTC" }).totals));
  }, 60_000);

  it("tapedeck usage daily over the imported sessions equals ccusage daily, day by day", async () => {
    const ours = await json<{ rows: Array<Tokens & { date: string }>; totals: Tokens }>([
      "usage",
      "daily",
      "--timezone",
      "UTC",
    ]);
    const cc = ccusage(sb, ["daily", "--timezone", "UTC"]) as {
      daily: Array<Parameters<typeof fromCcusage>[0] & { date: string }>;
    };
    expect(ours.rows.map((r) => r.date)).toEqual(cc.daily.map((d) => d.date));
    expect(ours.rows.map(pick)).toEqual(cc.daily.map(fromCcusage));
    expect(pick(ours.totals).output_tokens).toBeGreaterThan(0);
  }, 60_000);
}

// ---------------------------------------------------------------------------

const IMPORTS: ImportCase[] = [
  {
    agent: CLAUDE,
    title: "Claude Code",
    planted: { aws_access_key_id: AWS_KEY_ID, github_token: GITHUB_TOKEN },
    history: [
      [
        `SCENARIO_BASH echo deploying with key ${AWS_KEY_ID}`,
        "SCENARIO_FAIL",
        `SCENARIO_AGENT echo ${GITHUB_TOKEN} from a subagent`,
        "/compact",
      ],
      ["SCENARIO_TEXT a second session"],
    ],
    plan: { status: "new", files: 2 },
    kinds: ["session_start", "subagent_start", "subagent_stop", "compaction"],
    listTitle: /^SCENARIO_BASH echo deploying with key \[REDACTED:/,
    shown: "subagent",
    searched: "subagent",
    grown: { prompt: "SCENARIO_TEXT one more turn", status: { status: "grown", duplicates: 0 } },
    // The default (http) transport.
    hooked: {
      install: [],
      prompts: ["SCENARIO_AGENT echo recorded by the hooks", "SCENARIO_BASH echo and once more"],
    },
    counts: (events) =>
      byMessage(events, (e) => Object.fromEntries(TOKENS.map((k) => [k, e.usage?.[k] ?? 0]))),
    more: claudeOnly,
  },
  {
    agent: CODEX,
    title: "Codex",
    planted: { github_token: GITHUB_TOKEN },
    history: [
      [
        `SCENARIO_BASH echo deploying with ${GITHUB_TOKEN}`,
        "SCENARIO_FAIL",
        "SCENARIO_AGENT echo from-subagent",
      ],
    ],
    plan: { files: 2 },
    kinds: ["session_start", "subagent_start", "subagent_stop"],
    // The subagent's rollout, imported under the root thread.
    imported: (events) => expect(events.filter((e) => e.agent_id !== undefined).length).toBeGreaterThan(3),
    listTitle: /^SCENARIO_BASH echo deploying with \[REDACTED:/,
    shown: "subagent",
    searched: "from-subagent",
    grown: { prompt: "SCENARIO_TEXT one more", status: { status: "grown", duplicates: 0 } },
    hooked: {
      install: [],
      prompts: ["SCENARIO_AGENT echo recorded by the hooks", "SCENARIO_BASH echo again"],
    },
    counts: (events) =>
      byMessage(events, (e) => {
        const { model: _m, ...counts } = e.usage ?? {};
        return { ...counts, agent: e.agent_id ?? null };
      }),
  },
  {
    agent: GEMINI,
    title: "Gemini CLI",
    planted: { github_token: GITHUB_TOKEN },
    history: [[`SCENARIO_BASH echo deploying with ${GITHUB_TOKEN}`, "SCENARIO_FAIL"]],
    plan: { status: "new" },
    kinds: [],
    imported: (events) =>
      expect(events.filter((e) => e.kind === "session_start").map((e) => e.payload.source)).toEqual([
        "import",
        "resume",
      ]),
    listTitle: /^SCENARIO_BASH echo deploying with \[REDACTED:/,
    shown: "run_shell_command",
    searched: "deploying",
    // Gemini sometimes writes a record of the first run again when it resumes; the store drops it by its id
    // (counted in `duplicates`), so the archive still holds every event once.
    grown: { prompt: "SCENARIO_TEXT one more", status: { status: "grown" } },
    hooked: { install: ["--transport", "command"], prompts: ["SCENARIO_BASH echo recorded by the hooks"] },
    // The hooks split each response's counts between AfterModel and the chat file: equal as sums.
    counts: sums,
  },
];

describe.each(rowsFor(IMPORTS, (r) => r.agent.name))(
  "tapedeck import, for a user who ran $title before installing tapedeck",
  (row) => {
    const { agent } = row;
    const { needles } = plantSecrets(row.planted);
    const sb = agent.sandbox(`import-${agent.name}`);
    const tapedeckDir = () => join(sb.projectDir, ".tapedeck");
    const sessionDir = (id: string) => join(tapedeckDir(), `${agent.name}-sessions`, id);
    const manifestOf = (id: string): Manifest =>
      JSON.parse(readFileSync(join(sessionDir(id), "manifest.json"), "utf8"));
    const eventsOf = (id: string): Envelope[] => readEventsFile(join(sessionDir(id), "events.jsonl"));
    const ids: string[] = [];

    /** One session of `prompts`: the first starts it, each further one resumes it. */
    async function session(prompts: string[]): Promise<string> {
      let id = "";
      for (const prompt of prompts) {
        const res = await runOk(agent, sb, id ? agent.resume(id, prompt) : [prompt]);
        id ||= agent.session(res)!;
        expect(agent.session(res), res.stderr).toMatch(/^[0-9a-f-]{36}$/);
      }
      return id;
    }

    async function cli(args: string[]): Promise<CliResult> {
      const r = await sb.cli(args);
      for (const needle of needles) expect(r.stdout + r.stderr).not.toContain(needle);
      return r;
    }

    async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
      const r = await cli([...args, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as T;
    }

    it("lists the past sessions in a dry run and writes nothing", async () => {
      for (const prompts of row.history) ids.push(await session(prompts));
      expect(existsSync(tapedeckDir())).toBe(false);
      const dry = await json<{ would_import: Array<Record<string, unknown>> }>([
        "import",
        agent.name,
        "--dry-run",
      ]);
      expect(dry.would_import.map((s) => s.session_id).sort()).toEqual(
        ids.map((id) => `${agent.name}:${id}`).sort(),
      );
      expect(dry.would_import.find((s) => s.session_id === `${agent.name}:${ids[0]}`)).toMatchObject(
        row.plan,
      );
      expect(existsSync(tapedeckDir())).toBe(false);
    }, 240_000);

    it("imports them: sealed, redacted, private, git-ignored, with the hooks' kinds of events", async () => {
      const [id] = ids as [string];
      const result = await json<{ sessions: number; skipped: unknown[] }>(["import", agent.name]);
      expect(result).toMatchObject({ sessions: ids.length, skipped: [] });
      expect(manifestOf(id)).toMatchObject({
        identity_source: "import",
        status: "complete",
        provider_session_id: id,
      });
      expect(verifyChecksums(sessionDir(id)).ok).toBe(true);
      const events = eventsOf(id);
      const kinds = new Set(events.map((e) => e.kind));
      for (const k of [...IMPORTED_KINDS, ...row.kinds]) expect(kinds, k).toContain(k);
      // Each result is its call's: the agent's files name the call.
      const calls = new Set(events.filter((e) => e.kind === "tool_call").map((e) => e.payload.tool_use_id));
      for (const r of events.filter((e) => e.kind === "tool_result" || e.kind === "tool_error"))
        expect(calls).toContain(r.payload.tool_use_id);
      row.imported?.(events);
      expectNoSecrets(tapedeckDir(), needles);
      expectPrivateModes(tapedeckDir());
      expect(readFileSync(join(tapedeckDir(), ".gitignore"), "utf8")).toBe("*\n");
      expect(
        execFileSync("git", ["status", "--porcelain", "--ignored"], { cwd: sb.projectDir, encoding: "utf8" }),
      ).not.toMatch(/\?\? \.tapedeck/);
    }, 60_000);

    it("list, show, search, export and promote work on them", async () => {
      const [id] = ids as [string];
      const listed = await json<Array<Record<string, unknown>>>(["list"]);
      expect(listed.map((s) => s.provider_session_id).sort()).toEqual([...ids].sort());
      expect(listed.find((s) => s.provider_session_id === id)).toMatchObject({
        title: expect.stringMatching(row.listTitle),
        tool_errors: 1,
      });
      const show = await cli(["show", id]);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain(row.shown);
      expect(show.stdout).toMatch(/Tokens: \d+ in/);
      const hits = await json<Array<{ session_id: string }>>(["search", row.searched]);
      expect(hits.some((h) => h.session_id === `${agent.name}:${id}`)).toBe(true);
      const md = await cli(["export", id, "--format", "md"]);
      expect(md.code, md.stderr).toBe(0);
      expect(md.stdout).toContain("SCENARIO_FAIL");
      const jsonl = await cli(["export", id, "--format", "jsonl"]);
      expect(jsonl.stdout.split("\n").filter(Boolean).length).toBe(eventsOf(id).length + 1);
      const promoted = await json<{ created: string[] }>(["promote", id, "--kinds", "user_prompt", "--yes"]);
      expect(promoted.created.length).toBeGreaterThan(0);
      const memory = await json<unknown[]>(["memory", "list"]);
      expect(memory.length).toBe(promoted.created.length);
    }, 120_000);

    it("a second import adds nothing; a resumed session adds only its new turn", async () => {
      const [id] = ids as [string];
      const again = await json(["import", agent.name]);
      expect(again).toMatchObject({ sessions: 0, events: 0, unchanged: ids.length });
      const before = eventsOf(id);
      await runOk(agent, sb, agent.resume(id, row.grown.prompt));
      const grown = await json<{ imported: Array<Record<string, unknown>> }>(["import", agent.name]);
      expect(grown.imported).toEqual([expect.objectContaining(row.grown.status)]);
      const after = eventsOf(id);
      expect(after.slice(0, before.length)).toEqual(before);
      const added = after.slice(before.length);
      expect(added.filter((e) => e.kind === "user_prompt").map((e) => e.payload.prompt)).toEqual([
        row.grown.prompt,
      ]);
      expect(new Set(after.map((e) => e.event_id)).size).toBe(after.length);
      expect(verifyChecksums(sessionDir(id)).ok).toBe(true);
    }, 120_000);

    row.more?.({ sb, ids, cli, json, sessionDir });

    it("token counts equal a hook recording of the same session", async () => {
      const install = await cli([
        "install",
        agent.name,
        "--project",
        sb.projectDir,
        "--yes",
        ...row.hooked.install,
      ]);
      expect(install.code, install.stderr).toBe(0);
      const hooked = await session(row.hooked.prompts);
      // The http transport's server appends asynchronously; the session is complete once SessionEnd is in.
      await until(
        () => existsSync(sessionDir(hooked)) && manifestOf(hooked).status === "complete",
        20_000,
        100,
      );
      const hookEvents = eventsOf(hooked);
      expect(hookEvents.some((e) => e.kind === "turn_usage")).toBe(true);
      const skipped = await json<{ skipped: Array<{ reason: string }> }>(["import", agent.name]);
      expect(skipped.skipped.map((s) => s.reason)).toEqual([expect.stringContaining("recorded by hooks")]);
      // The hook recording moved away, the same session imported from the agent's own files.
      const aside = mkdtempSync(join(tmpdir(), "tapedeck-hooked-"));
      try {
        renameSync(sessionDir(hooked), join(aside, hooked));
        expect(await json(["import", agent.name])).toMatchObject({ sessions: 1 });
        expect(row.counts(eventsOf(hooked))).toEqual(row.counts(hookEvents));
        expect(manifestOf(hooked).tokens).toEqual(
          JSON.parse(readFileSync(join(aside, hooked, "manifest.json"), "utf8")).tokens,
        );
      } finally {
        rmSync(aside, { recursive: true, force: true });
      }
    }, 180_000);
  },
);
