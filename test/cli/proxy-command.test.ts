// `tapedeck proxy` and `tapedeck run` as a user meets them: the URL it prints
// carries the secret, --verbose says one line per request and nothing more, an
// unreachable upstream is said at once, `run` hands the agent its own options,
// the credential and its exit code, and a missing agent CLI is a clear
// message, not ENOENT. The proxy is the built CLI in a child: it serves until
// a signal stops it. `run` and a refused start run in process
// (test/helpers/program.ts): run's proxy stops when its agent exits.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/cli-error.ts";
import { makeCodexHome } from "../../src/demo/codex-offline.ts";
import { agentBinary } from "../../src/providers/agent-cli.ts";
import { runProgram } from "../helpers/program.ts";
import { tempProject } from "../helpers/session.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CLI_JS = join(REPO, "dist", "cli.js");

beforeAll(() => {
  if (!existsSync(CLI_JS)) execFileSync("npm", ["run", "build", "--silent"], { cwd: REPO, stdio: "inherit" });
}, 120_000);

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let upstream: { url: string; close(): Promise<void> };
beforeAll(async () => {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, pad: "y".repeat(100) }));
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  upstream = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
});
afterAll(() => upstream.close());

function sandboxDir(): string {
  const t = tempProject("tapedeck-proxycmd-");
  cleanups.push(t.cleanup);
  return t.root;
}

function baseEnv(root: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    TAPEDECK_HOME: join(root, ".tapedeck-home"),
    ...extra,
  };
}

interface ProxyRun {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** Resolves true once `cond` holds of the output, false if the proxy exits first. */
  until(cond: () => boolean): Promise<boolean>;
  /** Stops the proxy (SIGTERM) and resolves once it has exited and its output is all read. */
  stop(): Promise<void>;
}

async function startProxyCli(args: string[], env: Record<string, string>): Promise<ProxyRun> {
  const child = spawn(process.execPath, [CLI_JS, "proxy", "--port", "0", "--no-mirror", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const until = (cond: () => boolean) =>
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (!cond()) return;
        child.stdout!.off("data", check);
        child.stderr!.off("data", check);
        resolve(true);
      };
      child.stdout!.on("data", check);
      child.stderr!.on("data", check);
      void closed.then(() => resolve(cond()));
      check();
    });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await closed;
  };
  cleanups.push(stop);
  const started = await until(() => (args.includes("--json") ? out.includes("\n") : err.includes("Ctrl-C")));
  if (!started) throw new Error(`proxy did not start: ${err}`);
  return { child, stderr: () => err, stdout: () => out, until, stop };
}

function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end('{"messages":[{"role":"user","content":"SECRET-CONTENT"}]}');
  });
}

describe("tapedeck proxy", () => {
  it("prints the URL with its secret; each start has a new one; TAPEDECK_PROXY_SECRET pins it", async () => {
    const root = sandboxDir();
    const a = await startProxyCli(["--upstream", upstream.url], baseEnv(root));
    const b = await startProxyCli(["--upstream", upstream.url, "--json"], baseEnv(root));
    const urlA = /ANTHROPIC_BASE_URL=(\S+) claude/.exec(a.stderr())?.[1];
    const urlB = (JSON.parse(b.stdout()) as { url: string }).url;
    expect(urlA).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tpx_[A-Za-z0-9_-]{43}$/);
    expect(urlB).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tpx_[A-Za-z0-9_-]{43}$/);
    expect(new URL(urlA!).pathname).not.toBe(new URL(urlB).pathname);
    expect(await get(`${urlA}/v1/messages`)).toBe(200);
    expect(await get(`${new URL(urlA!).origin}/v1/messages`)).toBe(401);

    const pinned = `pinned_${"k".repeat(40)}`;
    const c = await startProxyCli(
      ["--upstream", upstream.url, "--json"],
      baseEnv(root, { TAPEDECK_PROXY_SECRET: pinned }),
    );
    expect((JSON.parse(c.stdout()) as { url: string }).url).toMatch(new RegExp(`/${pinned}$`));
    const weak = await runProgram(["proxy", "--port", "0"], {
      env: baseEnv(root, { TAPEDECK_PROXY_SECRET: "short" }),
      inheritEnv: false,
    });
    expect(weak.code).toBe(2);
    expect(weak.stderr).toContain("TAPEDECK_PROXY_SECRET must be");
  });

  it("--verbose: one line per request (method, path without query, status, bytes, ms), never secret, header or content", async () => {
    const root = sandboxDir();
    const p = await startProxyCli(["--upstream", upstream.url, "--json", "--verbose"], baseEnv(root));
    const url = (JSON.parse(p.stdout()) as { url: string }).url;
    const secret = new URL(url).pathname.slice(1);
    expect(await get(`${url}/v1/messages?key=QUERY-SECRET`, { "x-api-key": "sk-ant-HEADER-SECRET" })).toBe(
      200,
    );
    expect(await get(`${url}/v1/messages/count_tokens`)).toBe(200);
    expect(await get(`${new URL(url).origin}/v1/guess/one`)).toBe(401);
    expect(await get(`${new URL(url).origin}/v1/guess/two`)).toBe(401);
    expect(
      await p.until(
        () =>
          p
            .stderr()
            .split("\n")
            .filter((l) => l.includes(" B out ")).length === 2,
      ),
    ).toBe(true);
    const lines = p.stderr().trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^tapedeck proxy: POST \/v1\/messages 200 \d+ B in \d+ B out [\d.]+ ms$/);
    expect(lines[1]).toMatch(
      /^tapedeck proxy: POST \/v1\/messages\/count_tokens 200 \d+ B in \d+ B out [\d.]+ ms$/,
    );
    // Refusals: one line for the first, the others counted; no path (it is the stranger's text).
    expect(lines.filter((l) => l.includes("refused"))).toEqual([
      "tapedeck proxy: refused a request (credential, 401); later refusals are counted, not shown",
    ]);
    for (const needle of [secret, "QUERY-SECRET", "HEADER-SECRET", "SECRET-CONTENT", "guess"]) {
      expect(p.stderr()).not.toContain(needle);
    }
  });

  it("an unreachable upstream is said on stderr at the first failure, once, without --verbose", async () => {
    const root = sandboxDir();
    // A port that was free a moment ago: connection refused.
    const dead = net.createServer();
    dead.listen(0, "127.0.0.1");
    await new Promise((r) => dead.once("listening", r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    const p = await startProxyCli(["--upstream", `http://127.0.0.1:${port}`, "--json"], baseEnv(root));
    const url = (JSON.parse(p.stdout()) as { url: string }).url;
    expect(await get(`${url}/v1/messages`)).toBe(502);
    // At the first failure, while the proxy serves: not kept for its exit.
    expect(await p.until(() => p.stderr().includes("cannot reach"))).toBe(true);
    expect(p.child.exitCode).toBeNull();
    expect(await get(`${url}/v1/messages`)).toBe(502);
    // Once: all it wrote, read to its end after it stopped.
    await p.stop();
    expect(p.stderr().trim().split("\n")).toEqual([
      `tapedeck proxy: cannot reach the upstream http://127.0.0.1:${port} (ECONNREFUSED); the agent gets 502 until it answers: check --upstream and the network`,
    ]);
  });
});

/** A stand-in agent that writes its argv (one per line) and the environment it was given to `out`. */
function fakeAgent(dir: string, name: string, out: string): string {
  const bin = join(dir, name);
  writeFileSync(
    bin,
    `#!/bin/sh\n{ for a in "$@"; do printf 'ARG %s\\n' "$a"; done; printf 'BASE %s\\n' "$ANTHROPIC_BASE_URL"; printf 'KEY %s\\n' "$TAPEDECK_PROXY_KEY"; } > '${out}'\nexit 7\n`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

function agentSaw(out: string): { args: string[]; base: string; key: string } {
  const lines = readFileSync(out, "utf8").trimEnd().split("\n");
  return {
    args: lines.filter((l) => l.startsWith("ARG ")).map((l) => l.slice(4)),
    base: lines.find((l) => l.startsWith("BASE "))?.slice(5) ?? "",
    key: lines.find((l) => l.startsWith("KEY "))?.slice(4) ?? "",
  };
}

describe("tapedeck run", () => {
  it("passes the agent's options through without `--`; tapedeck's own go before them", async () => {
    const root = sandboxDir();
    const out = join(root, "saw.txt");
    const claude = fakeAgent(root, "claude", out);
    const run = (...args: string[]) =>
      runProgram(["run", "claude", ...args], {
        env: baseEnv(root, { TAPEDECK_CLAUDE_BIN: claude, ANTHROPIC_BASE_URL: upstream.url }),
        inheritEnv: false,
      });
    for (const [args, expected] of [
      [
        ["-p", "hi"],
        ["-p", "hi"],
      ],
      [
        ["--no-mirror", "-p", "hi", "--verbose", "--output-format", "stream-json"],
        ["-p", "hi", "--verbose", "--output-format", "stream-json"],
      ],
      [
        ["--upstream", upstream.url, "--", "-p", "--mirror"],
        ["-p", "--mirror"],
      ],
      [
        ["--resume", "abc"],
        ["--resume", "abc"],
      ],
    ] as const) {
      const res = await run(...args);
      expect(res.code, res.stderr).toBe(7);
      expect(agentSaw(out).args).toEqual(expected);
    }
    // The base URL carries the secret, in the environment only.
    const saw = agentSaw(out);
    expect(saw.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tpx_[A-Za-z0-9_-]{43}$/);
    expect(saw.args.join(" ")).not.toContain("tpx_");
  });

  it("codex: the base URL on its command line has no secret; the credential header comes from its environment", async () => {
    const root = sandboxDir();
    const home = makeCodexHome(join(root, "home"), join(root, "project"), `${upstream.url}/v1`);
    const out = join(root, "saw.txt");
    const codex = fakeAgent(root, "codex", out);
    const res = await runProgram(["run", "codex", "exec", "--json", "hi"], {
      cwd: home.projectDir,
      env: baseEnv(root, { HOME: home.home, CODEX_HOME: home.codexHome, TAPEDECK_CODEX_BIN: codex }),
      inheritEnv: false,
    });
    expect(res.code, res.stderr).toBe(7);
    const saw = agentSaw(out);
    expect(saw.key).toMatch(/^tpx_[A-Za-z0-9_-]{43}$/);
    expect(saw.args.join(" ")).not.toContain(saw.key);
    expect(saw.args).toEqual([
      "-c",
      expect.stringMatching(/^model_providers\.mock\.base_url="http:\/\/127\.0\.0\.1:\d+\/v1"$/),
      "-c",
      'model_providers.mock.env_http_headers.x-tapedeck-proxy-key="TAPEDECK_PROXY_KEY"',
      "exec",
      "--json",
      "hi",
    ]);
  });

  it("one lookup order for the agent binary: TAPEDECK_<NAME>_BIN, the checkout's pinned copy, the PATH; else how to install it", () => {
    const root = sandboxDir();
    const bin = join(root, "bin");
    const empty = join(root, "empty");
    const checkout = join(root, "checkout");
    mkdirSync(bin);
    mkdirSync(empty);
    mkdirSync(join(checkout, "node_modules", ".bin"), { recursive: true });
    mkdirSync(join(checkout, "src", "providers"), { recursive: true });
    // The pinned copy is looked up two levels above the module (src/providers/ in a checkout).
    const from = pathToFileURL(join(checkout, "src", "providers", "agent-cli.ts")).href;
    const onPath = fakeAgent(bin, "claude", join(root, "x"));
    const claude = { name: "claude", npmPackage: "@anthropic-ai/claude-code" };
    expect(agentBinary(claude, { env: { PATH: `${empty}:${bin}` }, from })).toBe(onPath);
    const pinned = fakeAgent(join(checkout, "node_modules", ".bin"), "claude", join(root, "y"));
    expect(agentBinary(claude, { env: { PATH: `${empty}:${bin}` }, from })).toBe(pinned);
    expect(agentBinary(claude, { env: { PATH: bin, TAPEDECK_CLAUDE_BIN: "/opt/claude" }, from })).toBe(
      "/opt/claude",
    );
    const none = pathToFileURL(join(empty, "a", "b.ts")).href;
    for (const cli of [claude, { name: "codex", npmPackage: "@openai/codex" }]) {
      let error: unknown;
      try {
        agentBinary(cli, { env: { PATH: empty }, from: none });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(1);
      expect((error as CliError).message).toContain(`npm install -g ${cli.npmPackage}`);
      expect((error as CliError).message).toContain(`TAPEDECK_${cli.name.toUpperCase()}_BIN`);
    }
  });
});
