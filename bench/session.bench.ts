// What recording costs a whole scripted session: the real `claude` (and `codex`) against the offline mocks,
// three turns with tool calls, in projects without tapedeck, with the http transport and with the command
// transport, runs interleaved so that a slow moment of the machine hits every arm alike.
// Run: npm run build && npx tsx bench/session.bench.ts
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startAnthropicMock } from "../src/demo/anthropic-mock.ts";
import { makeClaudeHome, runClaude } from "../src/demo/claude-offline.ts";
import { makeCodexHome, runCodex } from "../src/demo/codex-offline.ts";
import { startOpenAIResponsesMock } from "../src/demo/openai-responses-mock.ts";
import { readRunFile, runFilePath } from "../src/serve/runfile.ts";
import { median, percentile, round, tempDir } from "./lib.ts";

type Arm = "not installed" | "http" | "command";
const ARMS: Arm[] = ["not installed", "http", "command"];
const CLI = join(process.cwd(), "dist", "cli.js");
/** The three turns of a session: a tool call, a failing tool call, plain text. */
const TURNS = ["SCENARIO_BASH echo one", "SCENARIO_FAIL", "SCENARIO_TEXT three"];

function install(
  provider: string,
  project: string,
  home: string,
  arm: Arm,
  extraEnv: Record<string, string> = {},
) {
  if (arm === "not installed") return;
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ...extraEnv };
  delete env.TAPEDECK_HOME;
  execFileSync(
    process.execPath,
    [CLI, "install", provider, "--yes", "--project", project, "--transport", arm],
    {
      env,
      stdio: "ignore",
    },
  );
}

function stopServer(project: string, home: string): void {
  const info = readRunFile(runFilePath(project, { TAPEDECK_HOME: join(home, ".tapedeck") }));
  if (!info) return;
  try {
    process.kill(info.pid, "SIGTERM");
  } catch {
    // gone already
  }
}

function summarize(samples: Record<Arm, number[]>) {
  const floor = median(samples["not installed"]);
  return ARMS.map((arm) => ({
    arm,
    median_ms: round(median(samples[arm]), 1),
    p90_ms: round(percentile(samples[arm], 90), 1),
    vs_not_installed: round(median(samples[arm]) / floor, 3),
  }));
}

export async function runClaudeSessionBench(rounds = 8) {
  const { dir, cleanup } = tempDir("tapedeck-sessionbench-claude-");
  const mock = await startAnthropicMock();
  const arms = Object.fromEntries(
    ARMS.map((arm, i) => {
      const h = makeClaudeHome(join(dir, `home-${i}`), join(dir, `project-${i}`));
      install("claude", h.projectDir, h.home, arm);
      return [arm, h];
    }),
  ) as Record<Arm, { home: string; projectDir: string }>;
  const samples = Object.fromEntries(ARMS.map((a) => [a, [] as number[]])) as Record<Arm, number[]>;
  try {
    // One warm-up round: the first http session of a project starts its server.
    for (let r = 0; r <= rounds; r += 1) {
      for (const arm of ARMS) {
        const { home, projectDir } = arms[arm];
        const env: Record<string, string> = {};
        const t0 = performance.now();
        let session: string | undefined;
        for (const prompt of TURNS) {
          const res = await runClaude({
            home,
            cwd: projectDir,
            baseUrl: mock.url,
            args: session ? ["--resume", session, prompt] : [prompt],
            env,
          });
          if (res.code !== 0 && prompt !== "SCENARIO_FAIL") throw new Error(`claude failed: ${res.stderr}`);
          session ??= res.sessionId;
        }
        if (r > 0) samples[arm].push(performance.now() - t0);
      }
    }
    return { name: "session-claude", rounds, turns: TURNS.length, rows: summarize(samples) };
  } finally {
    for (const arm of ARMS) stopServer(arms[arm].projectDir, arms[arm].home);
    await mock.close();
    cleanup();
  }
}

export async function runCodexSessionBench(rounds = 6) {
  const { dir, cleanup } = tempDir("tapedeck-sessionbench-codex-");
  const mock = await startOpenAIResponsesMock();
  const arms = Object.fromEntries(
    ARMS.map((arm, i) => {
      const h = makeCodexHome(join(dir, `home-${i}`), join(dir, `project-${i}`), mock.url);
      install("codex", h.projectDir, h.home, arm, { CODEX_HOME: h.codexHome });
      return [arm, h];
    }),
  ) as Record<Arm, { home: string; codexHome: string; projectDir: string }>;
  const samples = Object.fromEntries(ARMS.map((a) => [a, [] as number[]])) as Record<Arm, number[]>;
  try {
    for (let r = 0; r <= rounds; r += 1) {
      for (const arm of ARMS) {
        const h = arms[arm];
        const t0 = performance.now();
        let thread: string | undefined;
        for (const prompt of TURNS) {
          const res = await runCodex({
            codexHome: h.codexHome,
            home: h.home,
            cwd: h.projectDir,
            args: thread ? ["resume", thread, prompt] : [prompt],
          });
          thread ??= res.threadId;
        }
        if (r > 0) samples[arm].push(performance.now() - t0);
      }
    }
    return { name: "session-codex", rounds, turns: TURNS.length, rows: summarize(samples) };
  } finally {
    for (const arm of ARMS) stopServer(arms[arm].projectDir, arms[arm].home);
    await mock.close();
    cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const which = process.argv[2] ?? "all";
  const out = [];
  if (which !== "codex") out.push(await runClaudeSessionBench());
  if (which !== "claude") out.push(await runCodexSessionBench());
  console.log(JSON.stringify(out, null, 2));
}
