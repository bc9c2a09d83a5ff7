// @module-tag codex
/**
 * End to end: the real `codex` through `tapedeck run codex --verbose` against the mock Responses API, and the
 * proxy's credential. Measured here, for codex 0.171 with a custom model provider:
 *
 * - codex sends the credential header (`env_http_headers`, value from TAPEDECK_PROXY_KEY) on every call: the
 *   main thread's, a subagent's and the compaction summary's. None is refused; every call reaches the mock,
 *   without the header.
 * - The secret is on no command line: not tapedeck's, not the one tapedeck gives codex.
 * - `--verbose` prints one line per call and nothing of its content.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CODEX_BIN, DUMMY_OPENAI_KEY, MOCK_KEY_ENV, parseCodexJson } from "../../src/demo/codex-offline.ts";
import { runAgentProcess } from "../../src/demo/run-agent.ts";
import { CLI_JS, useBuild, useCodexSandbox } from "./sandboxes.ts";

useBuild();

describe("tapedeck run codex: every call carries the proxy's credential, and no command line shows it", () => {
  const sb = useCodexSandbox("codex-gate");
  let threadId = "";
  const stderrs: string[] = [];

  /** A codex that notes its arguments and whether it got the credential, then is the real one. */
  function wrapper(): { bin: string; log: string } {
    const log = join(sb.root, "codex-argv.log");
    const bin = join(sb.root, "codex-wrapper");
    writeFileSync(
      bin,
      `#!/bin/sh\n{ printf 'ARGV'; for a in "$@"; do printf ' %s' "$a"; done; printf '\\nKEY %s\\n' "$TAPEDECK_PROXY_KEY"; } >> '${log}'\nexec '${CODEX_BIN}' "$@"\n`,
    );
    chmodSync(bin, 0o755);
    return { bin, log };
  }

  async function run(args: string[], bin: string) {
    const exec = threadId
      ? [
          "exec",
          "resume",
          "--json",
          "--dangerously-bypass-hook-trust",
          ...args.slice(0, -1),
          threadId,
          args.at(-1)!,
        ]
      : ["exec", "--json", "--dangerously-bypass-hook-trust", ...args];
    const res = await runAgentProcess(
      process.execPath,
      [CLI_JS, "run", "codex", "--verbose", "--", ...exec],
      {
        cwd: sb.projectDir,
        env: {
          HOME: sb.home,
          CODEX_HOME: sb.codexHome,
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          [MOCK_KEY_ENV]: DUMMY_OPENAI_KEY,
          TAPEDECK_HOME: join(sb.root, "tapedeck-home"),
          TAPEDECK_CODEX_BIN: bin,
          RUST_LOG: "error",
          TERM: "dumb",
          NO_COLOR: "1",
        },
        timeoutMs: 90_000,
      },
    );
    expect(res.code, res.stderr).toBe(0);
    const parsed = parseCodexJson(res.stdout);
    threadId ||= parsed.threadId!;
    stderrs.push(res.stderr);
    return parsed;
  }

  it("a shell command, a subagent, a compaction: all served, none refused", async () => {
    const { bin, log } = wrapper();
    expect((await run(["SCENARIO_BASH echo gate"], bin)).finalMessage).toBe("Done: gate");
    expect((await run(["SCENARIO_AGENT echo sub"], bin)).finalMessage).toBe("Subagent reported: Done: sub");
    expect(
      (await run(["-c", "model_auto_compact_token_limit=1000", "SCENARIO_TEXT after"], bin)).finalMessage,
    ).toBe("Mock reply.");
    const scenarios = sb.mock.usageLog.map((u) => u.scenario);
    expect(scenarios).toContain("subagent-bash");
    expect(scenarios).toContain("compact");
    expect(sb.mock.usageLog.some((u) => u.subagent)).toBe(true);

    const stderr = stderrs.join("");
    const lines = stderr.split("\n").filter((l) => l.startsWith("tapedeck proxy: POST "));
    // One verbose line per call the mock saw: nothing was refused or lost on the way.
    expect(lines).toHaveLength(sb.mock.requests.length);
    for (const l of lines)
      expect(l).toMatch(/^tapedeck proxy: POST \/v1\/responses 200 \d+ B in \d+ B out [\d.]+ ms$/);
    expect(stderr).not.toContain("refused");
    expect(stderr).not.toContain("SCENARIO_");
    expect(stderr).not.toContain(DUMMY_OPENAI_KEY);

    // The credential went to codex in its environment only, and no further than the proxy.
    const logged = readFileSync(log, "utf8");
    const keys = [...logged.matchAll(/^KEY (\S+)$/gm)].map((m) => m[1]!);
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      expect(key).toMatch(/^tpx_[A-Za-z0-9_-]{43}$/);
      expect(
        logged
          .split("\n")
          .filter((l) => l.startsWith("ARGV"))
          .join("\n"),
      ).not.toContain(key);
      expect(JSON.stringify(sb.mock.requests)).not.toContain(key);
    }
    for (const r of sb.mock.requests) expect(r.headers["x-tapedeck-proxy-key"]).toBeUndefined();
  }, 300_000);
});
