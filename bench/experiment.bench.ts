// What the experiment machinery costs around the agent: `tapedeck replay` of a recorded two-prompt claude
// session (clone at the revision, config root, install, hook timer, clean-up) beside a bare scripted loop
// running the same claude commands (`-p --session-id`, then `-p --resume`) in a plain directory, rounds
// interleaved so a slow moment of the machine hits both alike. Offline, against the mock.
// Run: npm run build && npx tsx bench/experiment.bench.ts
import { execFile, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startAnthropicMock } from "../src/demo/anthropic-mock.ts";
import { DUMMY_API_KEY, makeClaudeHome, runClaude } from "../src/demo/claude-offline.ts";
import type { ExperimentRecord } from "../src/experiment/record.ts";
import { median, round, tempDir } from "./lib.ts";

const CLI = join(process.cwd(), "dist", "cli.js");
const PROMPTS = ["SCENARIO_BASH echo one", "SCENARIO_TEXT two"];

/** Asynchronous: the mock answers from this process, so a synchronous child would wait on it forever. */
function tapedeck(args: string[], cwd: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env, timeout: 300_000 }, (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

export async function runExperimentBench(rounds = 5) {
  const { dir, cleanup } = tempDir("tapedeck-experimentbench-");
  const mock = await startAnthropicMock();
  try {
    const { home, projectDir } = makeClaudeHome(join(dir, "home"), join(dir, "project"));
    const git = (args: string[]) =>
      execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.invalid", ...args], {
        cwd: projectDir,
      });
    writeFileSync(join(projectDir, "README.md"), "bench\n");
    git(["add", "-A"]);
    git(["commit", "-q", "-m", "init"]);
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: DUMMY_API_KEY,
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      IS_SANDBOX: "1",
    };
    await tapedeck(["install", "claude", "--yes", "--transport", "command"], projectDir, env);
    const first = await runClaude({ home, cwd: projectDir, baseUrl: mock.url, args: [PROMPTS[0]!] });
    await runClaude({
      home,
      cwd: projectDir,
      baseUrl: mock.url,
      args: ["--resume", first.sessionId!, PROMPTS[1]!],
    });
    const bareDir = makeClaudeHome(join(dir, "bare-home"), join(dir, "bare")).projectDir;
    const bare: number[] = [];
    const replay: number[] = [];
    const agent: number[] = [];
    for (let r = 0; r <= rounds; r += 1) {
      const t0 = performance.now();
      const id = randomUUID();
      await runClaude({ home, cwd: bareDir, baseUrl: mock.url, args: ["--session-id", id, PROMPTS[0]!] });
      await runClaude({ home, cwd: bareDir, baseUrl: mock.url, args: ["--resume", id, PROMPTS[1]!] });
      const bareMs = performance.now() - t0;
      const root = join(dir, `exp-${r}`);
      const t1 = performance.now();
      await tapedeck(["replay", "last", "--experiment-root", root, "--json"], projectDir, env);
      const replayMs = performance.now() - t1;
      const record = JSON.parse(readFileSync(join(root, "experiment.json"), "utf8")) as ExperimentRecord;
      // Round 0 warms both paths (page cache, claude's first start) and is not counted.
      if (r === 0) continue;
      bare.push(bareMs);
      replay.push(replayMs);
      agent.push(record.runs[0]?.agent_ms ?? 0);
    }
    const overhead = replay.map((ms, i) => ms - agent[i]!);
    return {
      rounds,
      bare_loop_median_ms: round(median(bare), 1),
      replay_median_ms: round(median(replay), 1),
      replay_agents_median_ms: round(median(agent), 1),
      orchestration_overhead_median_ms: round(median(overhead), 1),
      replay_vs_bare_loop: round(median(replay) / median(bare), 3),
    };
  } finally {
    await mock.close();
    cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(
    JSON.stringify(await runExperimentBench(Number(process.env.TAPEDECK_BENCH_ROUNDS ?? 5)), null, 2),
  );
}
