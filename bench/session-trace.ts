// Where a scripted `claude -p` turn spends its wall time with the http transport: the turn runs under
// `strace -f` (process starts, forks and exits only), and every hook's start and end is put on one time line with
// the mock model server's requests, from claude's start to its exit. What is between the hooks and the
// requests is claude's own work; a hook's span is what claude waits on (it runs hooks one at a time).
// strace slows every process start a little, so read the spans against each other, not as absolute costs.
// Run: npm run build && npx tsx bench/session-trace.ts [--arm http|command|not-installed] [--turns 2]
// TAPEDECK_TRACE_KEEP=<file> keeps the turn's strace log, TAPEDECK_TRACE_SERVER=<file> traces the warm server too.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startAnthropicMock } from "../src/demo/anthropic-mock.ts";
import { CLAUDE_BIN, makeClaudeHome, offlineClaudeEnv } from "../src/demo/claude-offline.ts";
import { readRunFile, runFilePath } from "../src/serve/runfile.ts";
import { round, tempDir } from "./lib.ts";

const CLI = join(process.cwd(), "dist", "cli.js");

interface Span {
  what: string;
  start_ms: number;
  end_ms: number;
  /** ms from the hook's start: its shell's exec of bash, and each child's exec and exit (`cat`, a Node fallback) */
  phases: Array<[string, number]>;
}

const HOOK_SCRIPT = /hook-client\.sh|hook\.cjs/;

/** Hook processes from an `strace -f -ttt -e trace=execve,clone…` log: each top-level hook command's span. */
function hookSpans(log: string, t0: number): Span[] {
  /** a hook's top-level pid -> its span so far */
  const open = new Map<string, Span & { startAbs: number }>();
  /** any pid of a hook's tree -> the top-level pid */
  const root = new Map<string, string>();
  const spans: Span[] = [];
  for (const line of log.split("\n")) {
    const m = /^(\d+)\s+(\d+\.\d+) (.*)$/.exec(line);
    if (!m) continue;
    const [, pid, ts, rest] = m as unknown as [string, string, string, string];
    const at = Number(ts) * 1000 - t0;
    const top = root.get(pid);
    const exec = /^execve\("([^"]+)", \[(.*?)\]/.exec(rest);
    if (exec && !rest.includes("= -1")) {
      if (top === undefined && HOOK_SCRIPT.test(rest)) {
        // The shell's `-c` line names the hook; matched on the whole line (it holds brackets and quotes).
        const script = /(hook-client\.sh|hook\.cjs)/.exec(rest)![1]!;
        open.set(pid, { what: script, start_ms: round(at, 1), end_ms: 0, phases: [], startAbs: at });
        root.set(pid, pid);
      } else if (top !== undefined) {
        const s = open.get(top);
        s?.phases.push([
          `${pid === top ? "" : "child "}exec ${exec[1]!.split("/").pop()}`,
          round(at - s.startAbs, 1),
        ]);
      }
      continue;
    }
    const clone = /^(?:(?:clone3?|vfork|fork)\(|<\.\.\. (?:clone3?|vfork|fork) resumed>).* = (\d+)$/.exec(
      rest,
    );
    if (clone && top !== undefined) root.set(clone[1]!, top);
    if (/^\+\+\+ exited/.test(rest) && top !== undefined) {
      const s = open.get(top);
      if (!s) continue;
      if (pid !== top) {
        s.phases.push(["child exit", round(at - s.startAbs, 1)]);
        continue;
      }
      const { startAbs: _, ...span } = s;
      spans.push({ ...span, end_ms: round(at, 1) });
      open.delete(top);
    }
  }
  return spans;
}

function exited(child: ChildProcess): Promise<{ status: number | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("exit", (status) => {
      clearTimeout(timer);
      resolve({ status });
    });
  });
}

export async function runSessionTrace(arm = "http", turns = 2) {
  const { dir, cleanup } = tempDir("tapedeck-sessiontrace-");
  const mock = await startAnthropicMock();
  const h = makeClaudeHome(join(dir, "home"), join(dir, "project"));
  try {
    if (arm !== "not-installed") {
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: h.home };
      delete env.TAPEDECK_HOME;
      execFileSync(
        process.execPath,
        [CLI, "install", "claude", "--yes", "--project", h.projectDir, "--transport", arm],
        { env, stdio: "ignore" },
      );
    }
    const prompts = ["SCENARIO_BASH echo one", "SCENARIO_TEXT two"].slice(0, turns);
    const env = offlineClaudeEnv(h.home, mock.url);
    const out: unknown[] = [];
    // The first session of a project starts its server: trace the second, as a session in a used project.
    for (const [round_, traced] of [
      [0, false],
      [1, true],
    ] as const) {
      // With TAPEDECK_TRACE_SERVER=<file>, the warm server's own system calls during the traced round.
      const serverLog = process.env.TAPEDECK_TRACE_SERVER;
      const serverPid = readRunFile(
        runFilePath(h.projectDir, { TAPEDECK_HOME: join(h.home, ".tapedeck") }),
      )?.pid;
      const serverTrace =
        traced && serverLog && serverPid
          ? spawn("strace", ["-f", "-ttt", "-q", "-s", "80", "-p", String(serverPid), "-o", serverLog], {
              stdio: "ignore",
            })
          : undefined;
      if (serverTrace) await new Promise((r) => setTimeout(r, 500));
      for (const prompt of prompts) {
        mock.requests.length = 0;
        const log = join(dir, `strace-${round_}.log`);
        const t0 = Date.now();
        const argv = ["-p", prompt, "--output-format", "json", "--permission-mode", "bypassPermissions"];
        const strace = [
          "-f",
          "-ttt",
          "-q",
          "-s",
          "512",
          "-e",
          "trace=execve,clone,clone3,vfork,fork",
          "-o",
          log,
        ];
        // Not spawnSync: the mock answers from this very process.
        const run = await exited(
          traced
            ? spawn("strace", [...strace, CLAUDE_BIN, ...argv], { cwd: h.projectDir, env, stdio: "ignore" })
            : spawn(CLAUDE_BIN, argv, { cwd: h.projectDir, env, stdio: "ignore" }),
        );
        const wall = Date.now() - t0;
        if (!traced) continue;
        const requests = mock.requests.map((r) => ({
          what: `model request ${r.scenario}`,
          at_ms: Date.parse(r.ts) - t0,
        }));
        const spans = hookSpans(readFileSync(log, "utf8"), t0);
        const hookMs = spans.reduce((s, x) => s + (x.end_ms - x.start_ms), 0);
        out.push({
          prompt,
          status: run.status,
          wall_ms: wall,
          hooks: spans.length,
          hook_ms: round(hookMs, 1),
          spans,
          requests,
        });
      }
      serverTrace?.kill("SIGINT");
    }
    if (process.env.TAPEDECK_TRACE_KEEP)
      execFileSync("cp", [join(dir, "strace-1.log"), process.env.TAPEDECK_TRACE_KEEP]);
    return { name: "session-trace", arm, turns: out };
  } finally {
    const info = readRunFile(runFilePath(h.projectDir, { TAPEDECK_HOME: join(h.home, ".tapedeck") }));
    if (info) {
      try {
        process.kill(info.pid, "SIGTERM");
      } catch {
        // gone already
      }
    }
    await mock.close();
    cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const result = await runSessionTrace(arg("--arm") ?? "http", Number(arg("--turns") ?? 2));
  console.log(JSON.stringify(result, null, 2));
}
