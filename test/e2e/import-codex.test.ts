/**
 * End to end: a user who ran the real `codex` (offline, against the mock) before installing tapedeck runs
 * `tapedeck import codex`. The session (a command with a planted credential, a failing command, a subagent with
 * its own rollout) comes into the archive under the root thread; list, show, search and export work on it; no
 * byte under .tapedeck holds the credential; a second import adds nothing, a resumed session only its new turn;
 * and the token counts per response equal a hook recording of the same session.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyChecksums } from "../../src/core/recovery.ts";
import type { Envelope, Manifest } from "../../src/core/schemas.ts";
import { runCodex } from "../../src/demo/codex-offline.ts";
import { expectNoSecrets, expectPrivateModes, readEventsFile } from "./archive-checks.ts";
import { GITHUB_TOKEN, plantSecrets } from "./planted-secrets.ts";
import { useBuild, useCodexSandbox } from "./sandboxes.ts";

useBuild();

const { secrets, needles } = plantSecrets({ github_token: GITHUB_TOKEN });
const sb = useCodexSandbox("import-codex");

async function codex(args: string[]): Promise<string> {
  const res = await runCodex({ codexHome: sb.codexHome, home: sb.home, cwd: sb.projectDir, args });
  expect(res.timedOut, res.stderr).toBe(false);
  expect(res.code, `stdout: ${res.stdout}\nstderr: ${res.stderr}`).toBe(0);
  expect(res.threadId).toMatch(/^[0-9a-f-]{36}$/);
  return res.threadId!;
}

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const r = await sb.cli([...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  for (const needle of needles) expect(r.stdout + r.stderr).not.toContain(needle);
  return JSON.parse(r.stdout) as T;
}

const sessionDir = (id: string) => join(sb.projectDir, ".tapedeck", "codex-sessions", id);
const manifestOf = (id: string): Manifest =>
  JSON.parse(readFileSync(join(sessionDir(id), "manifest.json"), "utf8"));
const eventsOf = (id: string): Envelope[] => readEventsFile(join(sessionDir(id), "events.jsonl"));

/** response id -> counts; a response counted twice fails. */
function usageByResponse(events: Envelope[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of events.filter((x) => x.kind === "turn_usage")) {
    const id = String(e.usage?.message_id);
    expect(out[id], `${id} counted twice`).toBeUndefined();
    const { model: _m, ...counts } = e.usage ?? {};
    out[id] = { ...counts, agent: e.agent_id ?? null };
  }
  return out;
}

describe("tapedeck import codex, for a user who ran Codex before installing tapedeck", () => {
  let thread = "";

  it("imports the session with its subagent's rollout under the root thread, sealed and redacted", async () => {
    thread = await codex([`SCENARIO_BASH echo deploying with ${secrets.github_token}`]);
    await codex(["resume", thread, "SCENARIO_FAIL"]);
    await codex(["resume", thread, "SCENARIO_AGENT echo from-subagent"]);
    expect(existsSync(join(sb.projectDir, ".tapedeck"))).toBe(false);
    const dry = await json<{ would_import: Array<Record<string, unknown>> }>([
      "import",
      "codex",
      "--dry-run",
    ]);
    expect(dry.would_import).toEqual([expect.objectContaining({ session_id: `codex:${thread}`, files: 2 })]);
    const result = await json<{ sessions: number; skipped: unknown[] }>(["import", "codex"]);
    expect(result).toMatchObject({ sessions: 1, skipped: [] });
    expect(manifestOf(thread)).toMatchObject({ identity_source: "import", status: "complete" });
    expect(verifyChecksums(sessionDir(thread)).ok).toBe(true);
    const events = eventsOf(thread);
    const kinds = new Set(events.map((e) => e.kind));
    for (const k of [
      "session_start",
      "user_prompt",
      "tool_call",
      "tool_result",
      "tool_error",
      "assistant_message",
      "subagent_start",
      "subagent_stop",
      "turn_usage",
    ]) {
      expect(kinds, k).toContain(k);
    }
    expect(events.filter((e) => e.agent_id !== undefined).length).toBeGreaterThan(3);
    expectNoSecrets(join(sb.projectDir, ".tapedeck"), needles);
    expectPrivateModes(join(sb.projectDir, ".tapedeck"));
  }, 240_000);

  it("list, show, search and export work on it", async () => {
    const [listed] = await json<Array<Record<string, unknown>>>(["list"]);
    expect(listed).toMatchObject({
      provider_session_id: thread,
      tool_errors: 1,
      title: expect.stringContaining("[REDACTED:"),
    });
    const show = await sb.cli(["show", thread]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("subagent");
    const hits = await json<Array<{ session_id: string }>>(["search", "from-subagent"]);
    expect(hits.some((h) => h.session_id === `codex:${thread}`)).toBe(true);
    const md = await sb.cli(["export", thread, "--format", "md"]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain("SCENARIO_FAIL");
  }, 60_000);

  it("a second import adds nothing; a resumed session adds only its new turn", async () => {
    expect(await json(["import", "codex"])).toMatchObject({ sessions: 0, events: 0, unchanged: 1 });
    const before = eventsOf(thread);
    await codex(["resume", thread, "SCENARIO_TEXT one more"]);
    const grown = await json<{ imported: Array<Record<string, unknown>> }>(["import", "codex"]);
    expect(grown.imported).toEqual([expect.objectContaining({ status: "grown", duplicates: 0 })]);
    const after = eventsOf(thread);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(
      after
        .slice(before.length)
        .filter((e) => e.kind === "user_prompt")
        .map((e) => e.payload.prompt),
    ).toEqual(["SCENARIO_TEXT one more"]);
    expect(verifyChecksums(sessionDir(thread)).ok).toBe(true);
  }, 120_000);

  it("token counts per response equal a hook recording of the same session", async () => {
    const install = await sb.cli(["install", "codex", "--project", sb.projectDir, "--yes"]);
    expect(install.code, install.stderr).toBe(0);
    const hooked = await codex(["SCENARIO_AGENT echo recorded by the hooks"]);
    await codex(["resume", hooked, "SCENARIO_BASH echo again"]);
    const hookEvents = eventsOf(hooked);
    expect(hookEvents.some((e) => e.kind === "turn_usage")).toBe(true);
    const again = await json<{ skipped: Array<{ reason: string }> }>(["import", "codex"]);
    expect(again.skipped.map((s) => s.reason)).toEqual([expect.stringContaining("recorded by hooks")]);
    const aside = mkdtempSync(join(tmpdir(), "tapedeck-hooked-"));
    try {
      renameSync(sessionDir(hooked), join(aside, hooked));
      expect(await json(["import", "codex"])).toMatchObject({ sessions: 1 });
      expect(usageByResponse(eventsOf(hooked))).toEqual(usageByResponse(hookEvents));
      expect(manifestOf(hooked).tokens).toEqual(
        JSON.parse(readFileSync(join(aside, hooked, "manifest.json"), "utf8")).tokens,
      );
    } finally {
      rmSync(aside, { recursive: true, force: true });
    }
  }, 180_000);
});
