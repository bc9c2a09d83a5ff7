// Per-event cost of the command hook transport, beside the floors it cannot
// beat: `/bin/true` (process spawn) and `node -e 0` (Node start-up).
// Run: npm run build && npx tsx bench/hook.bench.ts [--only command|http]
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeConfig } from "../src/core/archive/config.ts";
import { clientCommand } from "../src/serve/client-command.ts";
import { liveServer, type RunInfo, readRunFile, runFilePath } from "../src/serve/runfile.ts";
import { interleaved, interleavedAsync, median, percentile, round, tempDir, timeCommand } from "./lib.ts";

const FIXTURES = join("test", "fixtures", "claude");

function payload(name: string, project: string): string {
  const p = JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as Record<string, unknown>;
  return JSON.stringify({ ...p, cwd: project, transcript_path: join(project, "none.jsonl") });
}

export async function runHookBench(runs = 40) {
  const { dir, cleanup } = tempDir("tapedeck-hookbench-");
  try {
    writeConfig(dir, { schema_version: 1, providers: { claude: { recording: "on", mode: "capture-only" } } });
    const off = tempDir("tapedeck-hookbench-off-");
    writeConfig(off.dir, {
      schema_version: 1,
      providers: { claude: { recording: "off", mode: "capture-only" } },
    });
    const hook = join(process.cwd(), "dist", "hook.cjs");
    const node = process.execPath;
    const postToolUse = payload("PostToolUse.json", dir);
    const prompt = payload("UserPromptSubmit.json", dir);
    let n = 0;
    // Each recorded run gets a distinct tool_use_id so that deduplication does not skip the write.
    const fresh = (p: string) => p.replace(/"tool_use_id":"[^"]+"/, `"tool_use_id":"t${n++}"`);
    const env = (project: string) => ({ ...process.env, CLAUDE_PROJECT_DIR: project });
    const samples = interleaved(runs, {
      "/bin/true": () => timeCommand("/bin/true", []),
      "node -e 0": () => timeCommand(node, ["-e", "0"]),
      "hook, recording off": () => timeCommand(node, [hook, "claude"], prompt, env(off.dir)),
      "hook, UserPromptSubmit": () =>
        timeCommand(
          node,
          [hook, "claude"],
          prompt.replace(/"prompt_id":"[^"]+"/, `"prompt_id":"p${n++}"`),
          env(dir),
        ),
      "hook, PostToolUse": () => timeCommand(node, [hook, "claude"], fresh(postToolUse), env(dir)),
    });
    off.cleanup();
    const floor = median(samples["node -e 0"]!);
    const rows = Object.entries(samples).map(([name, xs]) => ({
      name,
      median_ms: round(median(xs)),
      p90_ms: round(percentile(xs, 90)),
      vs_node: round(median(xs) / floor),
    }));
    return { name: "hook", runs, rows };
  } finally {
    cleanup();
  }
}

function postOnce(info: RunInfo, body: string, agent: http.Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: "127.0.0.1",
        port: info.port,
        path: "/hook/claude",
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-tapedeck-token": info.token,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Runs a hook command the way an agent does: through a shell, the payload on stdin, until it exits. */
function shellHook(command: string, input: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "ignore", "ignore"], env });
    child.on("error", reject);
    child.on("exit", () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    // A command that reads nothing (the floor) may exit before its stdin is written.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

async function waitFor<T>(what: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The http transport per event, end to end, against a warm dist/serve.js: the hook client as the agent runs it
 * (a shell, bash, the POST, the reply), beside the floors (`sh -c true`, a POST made from the agent's own
 * process, which was the transport's path before the client) and the client's fallback with the server down.
 */
export async function runHttpBench(runs = 200) {
  const { dir, cleanup } = tempDir("tapedeck-httpbench-");
  const home = join(dir, "home");
  const port = 20000 + Math.floor(Math.random() * 20000);
  writeConfig(dir, {
    schema_version: 1,
    providers: { claude: { recording: "on", mode: "capture-only", transport: "http", http_port: port } },
  });
  const runFile = runFilePath(dir, { TAPEDECK_HOME: home });
  const env = { ...process.env, TAPEDECK_HOME: home, CLAUDE_PROJECT_DIR: dir };
  const dist = join(process.cwd(), "dist");
  const parts = {
    provider: "claude",
    client: join(dist, "hook-client.sh"),
    runFile,
    node: process.execPath,
    hook: join(dist, "hook.cjs"),
  };
  const command = clientCommand(parts);
  // TAPEDECK_BENCH_BEFORE=<git rev>: that revision's client beside this one, in the same interleaved run.
  const before = process.env.TAPEDECK_BENCH_BEFORE;
  const oldClient = join(dir, "hook-client-before.sh");
  if (before) {
    writeFileSync(oldClient, execFileSync("git", ["show", `${before}:src/serve/hook-client.sh`]), {
      mode: 0o755,
    });
  }
  const spawnServer = () =>
    spawn(
      process.execPath,
      [join(dist, "serve.js"), "--project", dir, "--port", String(port), "--run-file", runFile],
      {
        stdio: "ignore",
        env,
      },
    );
  let child = spawnServer();
  try {
    let info = await waitFor(() => liveServer(runFile));
    const base = JSON.parse(payload("PostToolUse.json", dir)) as Record<string, unknown>;
    let n = 0;
    const body = () => JSON.stringify({ ...base, tool_use_id: `t${n++}` });
    const samples = await interleavedAsync(runs, {
      "sh -c true (floor: a shell)": () => shellHook("true", "", env),
      // Where the client's time goes, step by step: its interpreter, then reading the payload as it does.
      "sh, then bash (the client's interpreter)": () => shellHook("exec /bin/bash -c :", "", env),
      "sh, bash and the payload read with cat": () =>
        shellHook("exec /bin/bash -c 'payload=$(cat)'", body(), env),
      "sh, bash and the payload read with read -N (as the client does)": () =>
        shellHook("exec /bin/bash -c 'IFS= read -r -N 32768 payload'", body(), env),
      "POST from the agent's process (the old transport)": () => postOnce(info, body(), false),
      "hook client, server up (the http transport)": () => shellHook(command, body(), env),
      ...(before
        ? {
            [`hook client of ${before}, server up`]: () =>
              shellHook(clientCommand({ ...parts, client: oldClient }), body(), env),
          }
        : {}),
    });
    // The server is down: the client records in-process (Node) and starts a new server, which is then
    // stopped again before the next sample.
    const down: number[] = [];
    for (let i = 0; i < Math.min(20, runs); i += 1) {
      child.kill("SIGKILL");
      await waitFor(() => (liveServer(runFile) ? undefined : true));
      down.push(await shellHook(command, body(), env));
      info = await waitFor(() => liveServer(runFile));
      try {
        process.kill(info.pid, "SIGKILL");
      } catch {
        // gone already
      }
      child = spawnServer();
      info = await waitFor(() => {
        const live = liveServer(runFile);
        return live && live.pid === child.pid ? live : undefined;
      });
    }
    samples["hook client, server down (records in-process, restarts it)"] = down;
    return {
      name: "http",
      runs,
      rows: Object.entries(samples).map(([name, xs]) => ({
        name,
        median_ms: round(median(xs), 3),
        p90_ms: round(percentile(xs, 90), 3),
      })),
    };
  } finally {
    child.kill();
    const left = readRunFile(runFile);
    if (left) {
      try {
        process.kill(left.pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf("--only");
  const only = i > 0 ? process.argv[i + 1] : undefined;
  const results = [];
  if (only !== "http") results.push(await runHookBench());
  if (only !== "command") results.push(await runHttpBench());
  console.log(JSON.stringify(results, null, 2));
}
