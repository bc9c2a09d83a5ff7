/**
 * End to end: a user who ran the real `claude` (offline, against the mock) before installing tapedeck runs
 * `tapedeck import claude`. Their sessions (a command with a planted credential, a failing command, a subagent,
 * a compaction) come into the archive: list, show, search, export, promote and the viewer's data API work on
 * them, no byte under .tapedeck holds the credential, a second import adds nothing, a resumed session adds only
 * its new turn, and the token totals equal ccusage's over the same files and a hook recording of the same
 * session.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyChecksums } from "../../src/core/recovery.ts";
import type { Envelope, Manifest } from "../../src/core/schemas.ts";
import { startViewer } from "../../src/viewer/server.ts";
import { expectNoSecrets, expectPrivateModes, readEventsFile } from "./archive-checks.ts";
import { runClaude } from "./claude-runner.ts";
import { AWS_KEY_ID, GITHUB_TOKEN, plantSecrets } from "./planted-secrets.ts";
import { REPO, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

const { secrets, needles } = plantSecrets({ aws_access_key_id: AWS_KEY_ID, github_token: GITHUB_TOKEN });
const sb = useClaudeSandbox("import-claude");
const CCUSAGE = join(REPO, "node_modules", "ccusage", "dist", "index.js");

async function claude(args: string[]): Promise<string> {
  const res = await runClaude({ home: sb.home, cwd: sb.projectDir, baseUrl: sb.mock.url, args });
  expect(res.timedOut, res.stderr).toBe(false);
  expect(res.sessionId, `stdout: ${res.stdout}\nstderr: ${res.stderr}`).toMatch(/^[0-9a-f-]{36}$/);
  return res.sessionId!;
}

async function tapedeck(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await sb.cli(args);
  for (const needle of needles) expect(r.stdout + r.stderr).not.toContain(needle);
  return r;
}

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const r = await tapedeck([...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

const sessionDir = (id: string) => join(sb.projectDir, ".tapedeck", "claude-sessions", id);
const manifestOf = (id: string): Manifest =>
  JSON.parse(readFileSync(join(sessionDir(id), "manifest.json"), "utf8"));
const eventsOf = (id: string): Envelope[] => readEventsFile(join(sessionDir(id), "events.jsonl"));

type Tokens = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
};
const zero = (): Tokens => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

/** message id -> counts of a session's turn_usage events; a message counted twice fails. */
function usageByMessage(events: Envelope[]): Record<string, Tokens> {
  const out: Record<string, Tokens> = {};
  for (const e of events.filter((x) => x.kind === "turn_usage")) {
    const id = String(e.usage?.message_id);
    expect(out[id], `${id} counted twice`).toBeUndefined();
    out[id] = {
      input_tokens: e.usage?.input_tokens ?? 0,
      output_tokens: e.usage?.output_tokens ?? 0,
      cache_read_input_tokens: e.usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: e.usage?.cache_creation_input_tokens ?? 0,
    };
  }
  return out;
}

function ccusageTotals(): Tokens {
  const out = execFileSync(process.execPath, [CCUSAGE, "session", "--json", "--offline"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: sb.home,
      CLAUDE_CONFIG_DIR: join(sb.home, ".claude"),
      TZ: "UTC",
    },
    encoding: "utf8",
  });
  const t = JSON.parse(out).totals;
  return {
    input_tokens: t.inputTokens,
    output_tokens: t.outputTokens,
    cache_read_input_tokens: t.cacheReadTokens,
    cache_creation_input_tokens: t.cacheCreationTokens,
  };
}

describe("tapedeck import claude, for a user who ran Claude Code before installing tapedeck", () => {
  let id = "";
  let second = "";

  it("lists the past sessions in a dry run and writes nothing", async () => {
    id = await claude([`SCENARIO_BASH echo deploying with key ${secrets.aws_access_key_id}`]);
    await claude(["--resume", id, "SCENARIO_FAIL"]);
    await claude(["--resume", id, `SCENARIO_AGENT echo ${secrets.github_token} from a subagent`]);
    await claude(["--resume", id, "/compact"]);
    second = await claude(["SCENARIO_TEXT a second session"]);
    expect(existsSync(join(sb.projectDir, ".tapedeck"))).toBe(false);
    const dry = await json<{ would_import: Array<Record<string, unknown>> }>([
      "import",
      "claude",
      "--dry-run",
    ]);
    expect(dry.would_import.map((s) => s.session_id).sort()).toEqual(
      [`claude:${id}`, `claude:${second}`].sort(),
    );
    expect(dry.would_import.find((s) => s.session_id === `claude:${id}`)).toMatchObject({
      status: "new",
      files: 2,
    });
    expect(existsSync(join(sb.projectDir, ".tapedeck"))).toBe(false);
  }, 240_000);

  it("imports them: sealed, redacted, private, git-ignored, with the hooks' kinds of events", async () => {
    const result = await json<{ imported: unknown[]; skipped: unknown[]; sessions: number; events: number }>([
      "import",
      "claude",
    ]);
    expect(result).toMatchObject({ sessions: 2, skipped: [] });
    const m = manifestOf(id);
    expect(m).toMatchObject({ identity_source: "import", status: "complete", provider_session_id: id });
    expect(verifyChecksums(sessionDir(id)).ok).toBe(true);
    const kinds = new Set(eventsOf(id).map((e) => e.kind));
    for (const k of [
      "session_start",
      "user_prompt",
      "tool_call",
      "tool_result",
      "tool_error",
      "assistant_message",
      "subagent_start",
      "subagent_stop",
      "compaction",
      "turn_usage",
    ]) {
      expect(kinds, k).toContain(k);
    }
    expectNoSecrets(join(sb.projectDir, ".tapedeck"), needles);
    expectPrivateModes(join(sb.projectDir, ".tapedeck"));
    expect(readFileSync(join(sb.projectDir, ".tapedeck", ".gitignore"), "utf8")).toBe("*\n");
    expect(
      execFileSync("git", ["status", "--porcelain", "--ignored"], { cwd: sb.projectDir, encoding: "utf8" }),
    ).not.toMatch(/\?\? \.tapedeck/);
  }, 60_000);

  it("list, show, search, export and promote work on them", async () => {
    const listed = await json<Array<Record<string, unknown>>>(["list"]);
    expect(listed.map((s) => s.provider_session_id).sort()).toEqual([id, second].sort());
    expect(listed.find((s) => s.provider_session_id === id)).toMatchObject({
      title: expect.stringMatching(/^SCENARIO_BASH echo deploying with key \[REDACTED:/),
      tool_errors: 1,
    });
    const show = await tapedeck(["show", id]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("subagent");
    expect(show.stdout).toMatch(/Tokens: \d+ in/);
    const hits = await json<Array<{ session_id: string }>>(["search", "subagent"]);
    expect(hits.some((h) => h.session_id === `claude:${id}`)).toBe(true);
    const md = await tapedeck(["export", id, "--format", "md"]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain("SCENARIO_FAIL");
    const jsonl = await tapedeck(["export", id, "--format", "jsonl"]);
    expect(jsonl.stdout.split("\n").filter(Boolean).length).toBe(eventsOf(id).length + 1);
    const promoted = await json<{ created: string[] }>(["promote", id, "--kinds", "user_prompt", "--yes"]);
    expect(promoted.created.length).toBeGreaterThan(0);
    const memory = await json<unknown[]>(["memory", "list"]);
    expect(memory.length).toBe(promoted.created.length);
  }, 120_000);

  it("the viewer's data API serves them", async () => {
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
      expect(integrity.scan).toMatchObject({ malformed_lines: 0, valid_events: eventsOf(id).length });
    } finally {
      await viewer.close();
    }
  }, 60_000);

  it("a second import adds nothing; a resumed session adds only its new turn", async () => {
    const again = await json<{ sessions: number; events: number; unchanged: number }>(["import", "claude"]);
    expect(again).toMatchObject({ sessions: 0, events: 0, unchanged: 2 });
    const before = eventsOf(id);
    await claude(["--resume", id, "SCENARIO_TEXT one more turn"]);
    const grown = await json<{ imported: Array<Record<string, unknown>> }>(["import", "claude"]);
    expect(grown.imported).toHaveLength(1);
    expect(grown.imported[0]).toMatchObject({ status: "grown", duplicates: 0 });
    const after = eventsOf(id);
    expect(after.slice(0, before.length)).toEqual(before);
    const added = after.slice(before.length);
    expect(added.filter((e) => e.kind === "user_prompt").map((e) => e.payload.prompt)).toEqual([
      "SCENARIO_TEXT one more turn",
    ]);
    expect(new Set(after.map((e) => e.event_id)).size).toBe(after.length);
    expect(verifyChecksums(sessionDir(id)).ok).toBe(true);
  }, 120_000);

  it("token totals equal ccusage's over the same transcripts", () => {
    const ours = zero();
    for (const s of [id, second]) {
      const t = manifestOf(s).tokens!;
      for (const k of Object.keys(ours) as Array<keyof Tokens>) ours[k] += t[k];
    }
    expect(ours.input_tokens).toBeGreaterThan(0);
    expect(ours.cache_read_input_tokens).toBeGreaterThan(0);
    expect(ours).toEqual(ccusageTotals());
  }, 60_000);

  it("tapedeck usage daily over the imported sessions equals ccusage daily, day by day", async () => {
    const ours = await json<{ rows: Array<Tokens & { date: string }>; totals: Tokens }>([
      "usage",
      "daily",
      "--timezone",
      "UTC",
    ]);
    const cc = JSON.parse(
      execFileSync(process.execPath, [CCUSAGE, "daily", "--json", "--offline", "--timezone", "UTC"], {
        env: { PATH: process.env.PATH ?? "", HOME: sb.home, CLAUDE_CONFIG_DIR: join(sb.home, ".claude") },
        encoding: "utf8",
      }),
    ) as {
      daily: Array<{
        date: string;
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheCreationTokens: number;
      }>;
    };
    const pick = (t: Tokens): Tokens => ({
      input_tokens: t.input_tokens,
      output_tokens: t.output_tokens,
      cache_read_input_tokens: t.cache_read_input_tokens,
      cache_creation_input_tokens: t.cache_creation_input_tokens,
    });
    expect(ours.rows.map((r) => r.date)).toEqual(cc.daily.map((d) => d.date));
    expect(ours.rows.map(pick)).toEqual(
      cc.daily.map((d) => ({
        input_tokens: d.inputTokens,
        output_tokens: d.outputTokens,
        cache_read_input_tokens: d.cacheReadTokens,
        cache_creation_input_tokens: d.cacheCreationTokens,
      })),
    );
    expect(pick(ours.totals).output_tokens).toBeGreaterThan(0);
  }, 60_000);

  it("token totals per message equal a hook recording of the same session", async () => {
    const install = await tapedeck(["install", "claude", "--project", sb.projectDir, "--yes"]);
    expect(install.code, install.stderr).toBe(0);
    const hooked = await claude(["SCENARIO_AGENT echo recorded by the hooks"]);
    await claude(["--resume", hooked, "SCENARIO_BASH echo and once more"]);
    // The http transport's server appends asynchronously; the session is complete once SessionEnd is in.
    const deadline = Date.now() + 20_000;
    while (manifestOf(hooked).status !== "complete" && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const hookEvents = eventsOf(hooked);
    const skipped = await json<{ skipped: Array<{ source: string; reason: string }> }>(["import", "claude"]);
    expect(skipped.skipped.map((s) => s.reason)).toEqual([expect.stringContaining("recorded by hooks")]);
    // The hook recording moved away, the same session imported from Claude's transcript.
    const aside = mkdtempSync(join(tmpdir(), "tapedeck-hooked-"));
    try {
      renameSync(sessionDir(hooked), join(aside, hooked));
      const imported = await json<{ sessions: number }>(["import", "claude"]);
      expect(imported.sessions).toBe(1);
      expect(usageByMessage(eventsOf(hooked))).toEqual(usageByMessage(hookEvents));
      expect(manifestOf(hooked).tokens).toEqual(
        JSON.parse(readFileSync(join(aside, hooked, "manifest.json"), "utf8")).tokens,
      );
    } finally {
      rmSync(aside, { recursive: true, force: true });
    }
  }, 180_000);
});
