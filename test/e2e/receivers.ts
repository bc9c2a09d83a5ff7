// The real receivers of tapedeck's OTLP export, as processes on 127.0.0.1 that a test starts and stops:
// Arize Phoenix, Jaeger v2 (in-memory storage) and an OpenTelemetry Collector, installed into the test
// cache by scripts/test-receivers.mjs (npm run test:e2e runs it first, through scripts/test-prereqs.sh).
// Each gets free ports, a working directory of its own and a config written here; `stopAll` ends every one
// started, by its process group, whatever the test's outcome.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { REPO } from "./sandboxes.ts";

export interface Installed {
  phoenix?: { python: string; version: string };
  inspect?: { python: string; version: string };
  jaeger?: { bin: string; version: string };
  otelcol?: { bin: string; version: string };
}

/** Installs what is missing (once, into the cache) and answers where each is. */
export function installed(...which: Array<keyof Installed>): Installed {
  const out = execFileSync(process.execPath, [join(REPO, "scripts", "test-receivers.mjs"), ...which], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 1_800_000,
  });
  return JSON.parse(out) as Installed;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const started: ChildProcess[] = [];

export interface Running {
  child: ChildProcess;
  /** what it printed, for a failure's message */
  log: () => string;
}

function start(bin: string, args: string[], cwd: string, env: Record<string, string> = {}): Running {
  const child = spawn(bin, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: stopAll ends it and anything it started.
    detached: true,
  });
  started.push(child);
  let log = "";
  const keep = (b: Buffer) => {
    log = (log + b.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, log: () => log };
}

/** Polls until `ready` answers true (a few hundred ms apart), or fails with the process's output. */
export async function until(
  what: string,
  r: Running,
  ready: () => Promise<boolean>,
  ms = 180_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (r.child.exitCode !== null) throw new Error(`${what} exited (${r.child.exitCode}):\n${r.log()}`);
    if (await ready().catch(() => false)) return;
    await new Promise((res) => setTimeout(res, 300));
  }
  throw new Error(`${what} did not come up in ${ms / 1000} s:\n${r.log()}`);
}

export async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

export function stopAll(): void {
  for (const c of started.splice(0)) {
    if (c.pid === undefined || c.exitCode !== null) continue;
    try {
      process.kill(-c.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

export interface Phoenix extends Running {
  url: string;
  /** its SQLite database: the store a test greps */
  dir: string;
}

/** Phoenix on 127.0.0.1, its database in `dir`, no telemetry and nothing fetched from the internet. */
export async function startPhoenix(python: string, dir: string): Promise<Phoenix> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const grpc = await freePort();
  const r = start(python, ["-m", "phoenix.server.main", "serve"], dir, {
    PHOENIX_WORKING_DIR: dir,
    PHOENIX_HOST: "127.0.0.1",
    PHOENIX_PORT: String(port),
    PHOENIX_GRPC_PORT: String(grpc),
    PHOENIX_TELEMETRY_ENABLED: "false",
    PHOENIX_ALLOW_EXTERNAL_RESOURCES: "false",
  });
  const url = `http://127.0.0.1:${port}`;
  await until("Phoenix", r, async () => (await fetch(`${url}/healthz`)).ok);
  return { ...r, url, dir };
}

export interface Jaeger extends Running {
  otlp: string;
  query: string;
}

/** Jaeger v2 with in-memory storage: OTLP/HTTP in, its query API out, nothing else listening. */
export async function startJaeger(bin: string, dir: string): Promise<Jaeger> {
  mkdirSync(dir, { recursive: true });
  const [otlp, http, grpc] = [await freePort(), await freePort(), await freePort()];
  const config = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
extensions:
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:${http}
    grpc:
      endpoint: 127.0.0.1:${grpc}
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`;
  writeFileSync(join(dir, "jaeger.yaml"), config);
  const r = start(bin, ["--config", join(dir, "jaeger.yaml")], dir);
  const query = `http://127.0.0.1:${http}`;
  await until("Jaeger", r, async () => (await fetch(`${query}/api/services`)).ok);
  return { ...r, otlp: `http://127.0.0.1:${otlp}`, query };
}

export interface Collector extends Running {
  otlp: string;
  /** the file exporter's output: one OTLP/JSON request a line, traces, logs and metrics */
  file: string;
}

/**
 * A Collector with an OTLP/HTTP receiver; every signal to the file exporter (and the debug exporter), the
 * traces also on to `tracesTo` (Jaeger) over OTLP/HTTP.
 */
export async function startCollector(bin: string, dir: string, tracesTo: string): Promise<Collector> {
  mkdirSync(dir, { recursive: true });
  const otlp = await freePort();
  const file = join(dir, "otlp.jsonl");
  const config = `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
exporters:
  debug:
    verbosity: basic
  file:
    path: ${file}
    flush_interval: 100ms
  otlphttp/jaeger:
    endpoint: ${tracesTo}
    compression: none
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file, debug, otlphttp/jaeger]
    logs:
      receivers: [otlp]
      exporters: [file, debug]
    metrics:
      receivers: [otlp]
      exporters: [file, debug]
`;
  writeFileSync(join(dir, "otelcol.yaml"), config);
  const r = start(bin, ["--config", join(dir, "otelcol.yaml")], dir);
  const url = `http://127.0.0.1:${otlp}`;
  // The receiver answers 405 to a GET once it listens.
  await until("the Collector", r, async () => (await fetch(`${url}/v1/traces`)).status === 405);
  return { ...r, otlp: url, file };
}
