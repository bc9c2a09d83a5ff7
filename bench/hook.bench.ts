// Per-event cost of the command hook transport, beside the floors it cannot
// beat: `/bin/true` (process spawn) and `node -e 0` (Node start-up).
// Run: npm run build && npx tsx bench/hook.bench.ts
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeConfig } from "../src/core/config.ts";
import { interleaved, median, percentile, round, tempDir, timeCommand } from "./lib.ts";

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

function postOnce(port: number, body: string, agent: http.Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/hook/claude",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "x-tapedeck-token": TOKEN },
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

const TOKEN = "bench-token";

/** The http transport end to end: POST of a real payload to the spawned dist/serve.js until its reply. */
export async function runHttpBench(runs = 300) {
  const { dir, cleanup } = tempDir("tapedeck-httpbench-");
  const port = 20000 + Math.floor(Math.random() * 20000);
  writeConfig(dir, {
    schema_version: 1,
    providers: {
      claude: {
        recording: "on",
        mode: "capture-only",
        transport: "http",
        http_port: port,
        http_token: TOKEN,
      },
    },
  });
  const child = spawn(
    process.execPath,
    [join("dist", "serve.js"), "--project", dir, "--port", String(port)],
    {
      stdio: "ignore",
    },
  );
  try {
    for (let i = 0; i < 200; i += 1) {
      try {
        await postOnce(port, "{}", false);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const base = JSON.parse(payload("PostToolUse.json", dir)) as Record<string, unknown>;
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const samples: Record<string, number[]> = { "http, new connection": [], "http, keep-alive": [] };
    for (let i = 0; i < runs; i += 1) {
      samples["http, new connection"]!.push(
        await postOnce(port, JSON.stringify({ ...base, tool_use_id: `n${i}` }), false),
      );
      samples["http, keep-alive"]!.push(
        await postOnce(port, JSON.stringify({ ...base, tool_use_id: `k${i}` }), keepAlive),
      );
    }
    keepAlive.destroy();
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
    cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify([await runHookBench(), await runHttpBench()], null, 2));
}
