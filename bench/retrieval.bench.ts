// Retrieval's cost on the prompt hook: the http transport's hook client (a warm dist/serve.js) on a
// UserPromptSubmit with retrieval off and on, the project's memory holding 10,000 items, interleaved; the
// step alone (retrieve(): the prompt's terms, the gate, the block) in this process, as p50/p99; and the
// no-repeat state a prompt hook reads and appends to (memory/store/session-state.ts) against a floor, one
// readFileSync of a file of one line.
//
//   npx tsx bench/retrieval.bench.ts      (after npm run build)
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { writeConfig } from "../src/core/archive/config.ts";
import { runHook } from "../src/core/hook/recorder.ts";
import { contextStep } from "../src/memory/store/inject.ts";
import { MEMORY_SCHEMA_VERSION, type MemoryItem } from "../src/memory/store/items.ts";
import * as retrievalModule from "../src/memory/store/retrieval.ts";
import { closeRetrievalStores, retrieve } from "../src/memory/store/retrieval.ts";
import {
  dropParsedSessions,
  noteGiven,
  readSessionMemory,
  statePath,
} from "../src/memory/store/session-state.ts";
import { openMemory } from "../src/memory/store/store.ts";
import { adapterFor, injectorFor } from "../src/providers/registry.ts";
import { clientCommand } from "../src/serve/client-command.ts";
import { liveServer, readRunFile, runFilePath } from "../src/serve/runfile.ts";
import {
  interleavedAsync,
  interleaved as interleavedSync,
  median,
  percentile,
  round,
  tempDir,
} from "./lib.ts";

// A Zipf-like vocabulary (rank r drawn with weight 1/r): a few words most items hold, a long tail few do, as
// in text, over made-up words so no stopword list helps; plus identifiers and paths.
const VOCABULARY = 8000;
const WEIGHTS = Array.from({ length: VOCABULARY }, (_, r) => 1 / (r + 1));
const TOTAL = WEIGHTS.reduce((a, b) => a + b, 0);
const CUMULATIVE = (() => {
  let sum = 0;
  return WEIGHTS.map((w) => (sum += w / TOTAL));
})();

function word(rank: number): string {
  const letters = "bcdfghjklmnpqrstvwz";
  let x = rank + 1;
  let out = "";
  while (x > 0) {
    out += letters.charAt(x % letters.length) + "aeiou".charAt(x % 5);
    x = Math.floor(x / letters.length);
  }
  return out;
}

function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function words(n: number, next: () => number): string[] {
  const out: string[] = [];
  for (let k = 0; k < n; k += 1) {
    const u = next();
    let lo = 0;
    let hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (CUMULATIVE[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    out.push(word(lo));
  }
  return out;
}

export function items(count: number): MemoryItem[] {
  const next = random(7);
  return Array.from({ length: count }, (_, i) => ({
    id: `m1-bench-${String(i).padStart(8, "0")}`,
    schema_version: MEMORY_SCHEMA_VERSION,
    kind: i % 3 === 0 ? "prompt" : "answer",
    title: words(6, next).join(" "),
    body: `${words(60, next).join(" ")} src/core/${word(i % 300)}.ts step_${i % 13}`,
    truncated: false,
    created_at: "2026-12-01T00:00:00.000Z",
    source: {
      provider: "claude",
      session_id: `claude:bench-${i % 200}`,
      agent_id: null,
      seq_from: i,
      seq_to: i,
      event_ids: [`e${i}`],
      envelope_schema_version: 1,
      archive_sha256: "0".repeat(64),
      archive_bytes: 1,
    },
  }));
}

export function prompts(n: number): string[] {
  const next = random(99);
  return Array.from(
    { length: n },
    () => `Why does the ${words(6, next).join(" ")} fail after the last change?`,
  );
}

function shellHook(command: string, input: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "ignore", "ignore"], env });
    child.on("error", reject);
    child.on("exit", () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

async function waitFor<T>(what: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One POST of a payload straight to the server (no client): the server's share of the hook. */
function post(p: Project, body: string): Promise<number> {
  const info = readRunFile(p.runFile)!;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: "127.0.0.1",
        port: info.port,
        path: "/hook/claude",
        method: "POST",
        agent: false,
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

function timeHook(
  adapter: NonNullable<ReturnType<typeof adapterFor>>,
  p: Project,
  body: string,
  addContext: ReturnType<typeof contextStep> | undefined,
): number {
  // CPU time, not wall time: the path is CPU-bound, and on a shared machine wall time mostly measures the
  // scheduler (the same runs read 0.4-0.5 ms off at the median, 1.2-2.0 ms on, from one run to the next).
  const t0 = process.cpuUsage();
  runHook(adapter, { data: Buffer.from(body), overflow: false }, { TAPEDECK_PROJECT_DIR: p.dir }, p.dir, {
    lockWaitMs: 0,
    addContext,
  });
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

interface Project {
  dir: string;
  runFile: string;
  command: string;
  env: NodeJS.ProcessEnv;
  stop(): void;
}

async function project(retrieval: boolean, memory: MemoryItem[]): Promise<Project> {
  const { dir, cleanup } = tempDir(`tapedeck-retrievalbench-${retrieval ? "on" : "off"}-`);
  const home = join(dir, "home");
  const port = 20000 + Math.floor(Math.random() * 20000);
  writeConfig(dir, {
    schema_version: 1,
    providers: {
      claude: {
        recording: "on",
        mode: "capture-only",
        transport: "http",
        http_port: port,
        ...(retrieval ? { retrieval: { state: "on" as const } } : {}),
      },
    },
  });
  // The same memory in both projects: off must not win by having none.
  const store = openMemory(dir)!;
  for (let i = 0; i < memory.length; i += 1000) store.insert(memory.slice(i, i + 1000));
  store.close();
  const runFile = runFilePath(dir, { TAPEDECK_HOME: home });
  const env = { ...process.env, TAPEDECK_HOME: home, CLAUDE_PROJECT_DIR: dir };
  const dist = join(process.cwd(), "dist");
  const command = clientCommand({
    provider: "claude",
    client: join(dist, "hook-client.sh"),
    runFile,
    node: process.execPath,
    hook: join(dist, "hook.cjs"),
  });
  const child = spawn(
    process.execPath,
    [join(dist, "serve.js"), "--project", dir, "--port", String(port), "--run-file", runFile],
    { stdio: "ignore", env },
  );
  await waitFor(() => liveServer(runFile));
  return {
    dir,
    runFile,
    command,
    env,
    stop: () => {
      child.kill("SIGKILL");
      const left = readRunFile(runFile);
      if (left && left.pid !== child.pid) {
        try {
          process.kill(left.pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
      cleanup();
    },
  };
}

/**
 * What the no-repeat rule costs a prompt hook: reading the session's file (what it was given so far) and
 * appending the prompt's line, in a session that already had `prior` prompts given items, interleaved with the
 * floor (one readFileSync of a one-line file); and the read of a process that has not parsed the session yet.
 * Wall time, microseconds. The appends grow the file by `runs` lines during a row.
 */
export function sessionStateCost(runs = 2000, priors = [0, 10, 100, 1000]) {
  const { dir, cleanup } = tempDir("tapedeck-sessionstate-");
  try {
    const rows = priors.map((prior) => {
      const session = `claude:state-${prior}`;
      for (let i = 0; i < prior; i += 1)
        noteGiven(dir, session, `user_prompt-${i}`, [`m1-${i}a`, `m1-${i}b`]);
      const floorFile = join(dir, "floor");
      writeFileSync(floorFile, "user_prompt-x m1-a\n");
      let k = prior;
      const samples = interleavedSync(runs, {
        floor: () => {
          const t0 = process.hrtime.bigint();
          readFileSync(floorFile);
          return Number(process.hrtime.bigint() - t0) / 1e3;
        },
        read: () => {
          const t0 = process.hrtime.bigint();
          readSessionMemory(dir, session, `user_prompt-${k}`);
          return Number(process.hrtime.bigint() - t0) / 1e3;
        },
        "cold read": () => {
          // A process that has not seen the session yet (a one-shot hook) reads and parses all of it.
          dropParsedSessions();
          const t0 = process.hrtime.bigint();
          readSessionMemory(dir, session, `user_prompt-${k}`);
          return Number(process.hrtime.bigint() - t0) / 1e3;
        },
        "read and append": () => {
          const t0 = process.hrtime.bigint();
          readSessionMemory(dir, session, `user_prompt-${k}`);
          noteGiven(dir, session, `user_prompt-${k}`, ["m1-x", "m1-y"]);
          k += 1;
          return Number(process.hrtime.bigint() - t0) / 1e3;
        },
      });
      // The appends grew the file: put it back to `prior` lines for the next row's comparability.
      writeFileSync(statePath(dir, session), "");
      const floor = median(samples.floor!);
      return {
        prior_prompts: prior,
        floor_median_us: round(floor, 1),
        read_median_us: round(median(samples.read!), 1),
        cold_read_median_us: round(median(samples["cold read"]!), 1),
        read_append_median_us: round(median(samples["read and append"]!), 1),
        read_append_p99_us: round(percentile(samples["read and append"]!, 99), 1),
        read_append_vs_floor: round(median(samples["read and append"]!) / floor, 2),
      };
    });
    return { name: "retrieval session state", runs, rows };
  } finally {
    cleanup();
  }
}

export async function runRetrievalBench(runs = 200, count = 10_000) {
  const memory = items(count);
  const off = await project(false, memory);
  const on = await project(true, memory);
  try {
    const asked = prompts(runs + 20);
    let n = 0;
    const payload = (p: Project) =>
      JSON.stringify({
        session_id: "bench-1",
        transcript_path: "/nonexistent",
        cwd: p.dir,
        hook_event_name: "UserPromptSubmit",
        prompt_id: `p${n}`,
        prompt: asked[n++ % asked.length],
      });
    // Warm both servers (the first prompt hook loads the retrieval module and opens the store).
    for (let i = 0; i < 10; i += 1) {
      await shellHook(off.command, payload(off), off.env);
      await shellHook(on.command, payload(on), on.env);
    }
    const samples = await interleavedAsync(runs, {
      "hook client, prompt hook, retrieval off": () => shellHook(off.command, payload(off), off.env),
      "hook client, prompt hook, retrieval on": () => shellHook(on.command, payload(on), on.env),
      "POST to the server, prompt hook, retrieval off": () => post(off, payload(off)),
      "POST to the server, prompt hook, retrieval on": () => post(on, payload(on)),
    });
    const rows = Object.entries(samples).map(([name, xs]) => ({
      name,
      median_ms: round(median(xs), 3),
      p90_ms: round(percentile(xs, 90), 3),
    }));
    // The step alone, in this process, with the store kept open as the server keeps it: a first pass over
    // the prompts (each word seen for the first time is counted, and listed when few items hold it) and a
    // second one over the same prompts, as a server that has answered them; CPU time (see timeHook).
    const cold: number[] = [];
    const alone: number[] = [];
    let injected = 0;
    let bytes = 0;
    closeRetrievalStores();
    for (const pass of [cold, alone]) {
      for (const prompt of asked) {
        const t0 = process.cpuUsage();
        const found = retrieve(on.dir, prompt);
        const used = process.cpuUsage(t0);
        pass.push((used.user + used.system) / 1000);
        if (pass === alone && found.outcome === "injected") {
          injected += 1;
          bytes += found.bytes;
        }
      }
    }
    // The hook path itself in this process (runHook, as the server runs it): what retrieval adds without the
    // shell, bash and the socket, whose noise on a busy machine is larger than the step.
    const step = contextStep(injectorFor, () => retrievalModule);
    const claude = adapterFor("claude")!;
    const inProcess = interleavedSync(runs, {
      off: () => timeHook(claude, off, payload(off), undefined),
      on: () => timeHook(claude, on, payload(on), step),
    });
    closeRetrievalStores();
    const added = round(rows[1]!.median_ms - rows[0]!.median_ms, 3);
    return {
      name: "retrieval",
      runs,
      items: count,
      rows,
      added_median_ms: added,
      retrieve_first_sight_p50_ms: round(percentile(cold, 50), 3),
      retrieve_first_sight_p99_ms: round(percentile(cold, 99), 3),
      retrieve_p50_ms: round(percentile(alone, 50), 3),
      retrieve_p90_ms: round(percentile(alone, 90), 3),
      retrieve_p99_ms: round(percentile(alone, 99), 3),
      // CPU time (see timeHook).
      run_hook_off_median_ms: round(median(inProcess.off!), 3),
      run_hook_on_median_ms: round(median(inProcess.on!), 3),
      run_hook_added_median_ms: round(median(inProcess.on!) - median(inProcess.off!), 3),
      prompts_with_context: `${injected}/${asked.length}`,
      mean_injected_bytes: injected ? Math.round(bytes / injected) : 0,
    };
  } finally {
    off.stop();
    on.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(sessionStateCost(), null, 2));
  if (!process.argv.includes("--state-only")) console.log(JSON.stringify(await runRetrievalBench(), null, 2));
}
