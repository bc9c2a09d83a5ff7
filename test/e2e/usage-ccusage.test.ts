// @module-tag claude
// @module-tag ccusage
/**
 * End to end: sessions recorded from the real `claude` offline against the mock, in two projects (one session
 * each, resumed, with a subagent), then `tapedeck usage daily|session --json` beside `ccusage daily|session
 * --json` (the peer most users read their Claude usage with, a dev dependency) on the same transcripts: the
 * token counts agree, day by day and session by session. ccusage groups a "session" by the transcript's
 * directory, the project's slug (a subagent's transcript, one level down, is a session of its own named
 * `subagents`), so each project holds one session and ccusage's rows are summed by the slug they name.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeProjectSlug, runClaude } from "./claude-runner.ts";
import { REPO, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

const CCUSAGE = join(REPO, "node_modules", ".bin", "ccusage");

interface CcTokens {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

interface Tokens {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

const fromCc = (r: CcTokens): Tokens => ({
  input_tokens: r.inputTokens,
  output_tokens: r.outputTokens,
  cache_read_input_tokens: r.cacheReadTokens,
  cache_creation_input_tokens: r.cacheCreationTokens,
});

const tokensOf = (r: Tokens): Tokens => ({
  input_tokens: r.input_tokens,
  output_tokens: r.output_tokens,
  cache_read_input_tokens: r.cache_read_input_tokens,
  cache_creation_input_tokens: r.cache_creation_input_tokens,
});

function add(a: Tokens | undefined, b: Tokens): Tokens {
  if (!a) return { ...b };
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  };
}

/** ccusage offline (its bundled prices; no network here), on the sandbox's Claude config dir only. */
function ccusage(home: string, args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CCUSAGE, ...args, "--json", "--offline", "--timezone", "UTC"],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: home,
          CLAUDE_CONFIG_DIR: join(home, ".claude"),
        },
        encoding: "utf8",
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`ccusage ${args.join(" ")}: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

describe("tapedeck usage and ccusage on the same Claude transcripts", () => {
  const sb = useClaudeSandbox("usage-ccusage");

  /** A second project claude trusts, as makeClaudeHome set up the first. */
  function secondProject(): string {
    const dir = join(sb.root, "project-two");
    mkdirSync(dir, { recursive: true });
    const project = realpathSync(dir);
    execFileSync("git", ["init", "-q"], { cwd: project, stdio: "ignore" });
    const configPath = join(sb.home, ".claude.json");
    const config = JSON.parse(readFileSync(configPath, "utf8"));
    config.projects[project] = config.projects[sb.projectDir];
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    return project;
  }

  async function claude(cwd: string, args: string[]): Promise<string> {
    const r = await runClaude({ home: sb.home, cwd, baseUrl: sb.mock.url, args });
    expect(r.code, r.stderr).toBe(0);
    return r.sessionId!;
  }

  async function tapedeckJson(args: string[]) {
    const r = await sb.cli([...args, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  }

  it("agrees with ccusage daily and ccusage session, token for token", async () => {
    const two = secondProject();
    for (const project of [sb.projectDir, two]) {
      const r = await sb.cli(["install", "claude", "--yes", "--project", project]);
      expect(r.code, r.stderr).toBe(0);
    }
    const first = await claude(sb.projectDir, ["SCENARIO_BASH echo one"]);
    await claude(sb.projectDir, ["--resume", first, "SCENARIO_AGENT echo from a subagent"]);
    await claude(sb.projectDir, ["--resume", first, "SCENARIO_TEXT done"]);
    await claude(two, ["SCENARIO_BASH echo two"]);

    const daily = await tapedeckJson(["usage", "daily", "--all-projects", "--timezone", "UTC"]);
    const ccDaily = (await ccusage(sb.home, ["daily"])) as {
      daily: Array<CcTokens & { date: string }>;
      totals: CcTokens;
    };
    expect(daily.rows.map((r: { date: string }) => r.date)).toEqual(ccDaily.daily.map((d) => d.date));
    expect(daily.rows.map(tokensOf)).toEqual(ccDaily.daily.map(fromCc));
    const { cost_usd: cost, ...totals } = daily.totals;
    expect(totals).toEqual(fromCc(ccDaily.totals));
    // Something was counted: four runs, a subagent's own transcript among them.
    expect(totals.output_tokens).toBeGreaterThan(0);
    expect(totals.cache_read_input_tokens).toBeGreaterThan(0);
    // The mock answers as the model Claude asked for, which the table prices.
    expect(cost).toBeGreaterThan(0);

    const sessions = await tapedeckJson(["usage", "session", "--all-projects", "--timezone", "UTC"]);
    expect(sessions.rows).toHaveLength(2);
    const ccSessions = (await ccusage(sb.home, ["session"])) as {
      sessions: Array<CcTokens & { sessionId: string; projectPath: string }>;
    };
    const bySlug = new Map<string, Tokens>();
    for (const s of ccSessions.sessions) {
      // A subagent's transcript is `<slug>/<session>/subagents/agent-*.jsonl`: its "session" is `subagents`.
      const slug = s.sessionId === "subagents" ? s.projectPath.split("/").at(-2)! : s.sessionId;
      bySlug.set(slug, add(bySlug.get(slug), fromCc(s)));
    }
    // The subagent's own transcript was read by both.
    expect(ccSessions.sessions.some((s) => s.sessionId === "subagents")).toBe(true);
    expect(bySlug.size).toBe(2);
    for (const row of sessions.rows as Array<Tokens & { project: string; provider_session_id: string }>) {
      expect(tokensOf(row), row.project).toEqual(bySlug.get(claudeProjectSlug(row.project)));
    }
    const firstRow = sessions.rows.find(
      (r: { provider_session_id: string }) => r.provider_session_id === first,
    );
    expect(firstRow.sources).toEqual(["claude-transcript"]);
  });
});
