/**
 * End to end: a user who ran the real `gemini` (offline, against the mock) before installing tapedeck runs
 * `tapedeck import gemini`. The session (a command with a planted credential, a failing command, a resume)
 * comes into the archive from Gemini's chat file; list, show, search and export work on it; no byte under
 * .tapedeck holds the credential; a second import adds nothing, a resumed session only its new turn; and the
 * token totals equal a hook recording of the same session (whose hooks split each response's counts between
 * AfterModel and the chat file).
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyChecksums } from "../../src/core/recovery.ts";
import type { Envelope, Manifest } from "../../src/core/schemas.ts";
import { runGemini } from "../../src/demo/gemini-offline.ts";
import { expectNoSecrets, expectPrivateModes, readEventsFile } from "./archive-checks.ts";
import { GITHUB_TOKEN, plantSecrets } from "./planted-secrets.ts";
import { useBuild, useGeminiSandbox } from "./sandboxes.ts";

useBuild();

const { secrets, needles } = plantSecrets({ github_token: GITHUB_TOKEN });
const sb = useGeminiSandbox("import-gemini");

async function gemini(args: string[]): Promise<string> {
  const res = await runGemini({ home: sb.home, cwd: sb.projectDir, baseUrl: sb.mock.url, args });
  expect(res.timedOut, res.stderr).toBe(false);
  expect(res.code, `stdout: ${res.stdout}\nstderr: ${res.stderr}`).toBe(0);
  expect(res.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  return res.sessionId!;
}

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const r = await sb.cli([...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  for (const needle of needles) expect(r.stdout + r.stderr).not.toContain(needle);
  return JSON.parse(r.stdout) as T;
}

const sessionDir = (id: string) => join(sb.projectDir, ".tapedeck", "gemini-sessions", id);
const manifestOf = (id: string): Manifest =>
  JSON.parse(readFileSync(join(sessionDir(id), "manifest.json"), "utf8"));
const eventsOf = (id: string): Envelope[] => readEventsFile(join(sessionDir(id), "events.jsonl"));

const COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "reasoning_output_tokens",
  "total_tokens",
] as const;

/** Sums of every count over a session's turn_usage events. */
function sums(events: Envelope[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(COUNTS.map((k) => [k, 0]));
  for (const e of events.filter((x) => x.kind === "turn_usage")) {
    for (const k of COUNTS) out[k]! += (e.usage?.[k] as number | undefined) ?? 0;
  }
  return out;
}

describe("tapedeck import gemini, for a user who ran Gemini CLI before installing tapedeck", () => {
  let id = "";

  it("imports the session from its chat file, sealed and redacted", async () => {
    id = await gemini([`SCENARIO_BASH echo deploying with ${secrets.github_token}`]);
    await gemini(["--resume", "latest", "SCENARIO_FAIL"]);
    expect(existsSync(join(sb.projectDir, ".tapedeck"))).toBe(false);
    const dry = await json<{ would_import: Array<Record<string, unknown>> }>([
      "import",
      "gemini",
      "--dry-run",
    ]);
    expect(dry.would_import).toEqual([
      expect.objectContaining({ session_id: `gemini:${id}`, status: "new" }),
    ]);
    expect(await json(["import", "gemini"])).toMatchObject({ sessions: 1, skipped: [] });
    expect(manifestOf(id)).toMatchObject({ identity_source: "import", status: "complete" });
    expect(verifyChecksums(sessionDir(id)).ok).toBe(true);
    const events = eventsOf(id);
    expect(events.filter((e) => e.kind === "session_start").map((e) => e.payload.source)).toEqual([
      "import",
      "resume",
    ]);
    const kinds = new Set(events.map((e) => e.kind));
    for (const k of [
      "user_prompt",
      "tool_call",
      "tool_result",
      "tool_error",
      "assistant_message",
      "turn_usage",
    ])
      expect(kinds, k).toContain(k);
    // Each result is its call's: the chat names the call.
    const calls = new Set(events.filter((e) => e.kind === "tool_call").map((e) => e.payload.tool_use_id));
    for (const r of events.filter((e) => e.kind === "tool_result" || e.kind === "tool_error"))
      expect(calls).toContain(r.payload.tool_use_id);
    expectNoSecrets(join(sb.projectDir, ".tapedeck"), needles);
    expectPrivateModes(join(sb.projectDir, ".tapedeck"));
  }, 240_000);

  it("list, show, search and export work on it", async () => {
    const [listed] = await json<Array<Record<string, unknown>>>(["list"]);
    expect(listed).toMatchObject({
      provider_session_id: id,
      tool_errors: 1,
      title: expect.stringContaining("[REDACTED:"),
    });
    const show = await sb.cli(["show", id]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("run_shell_command");
    const hits = await json<Array<{ session_id: string }>>(["search", "deploying"]);
    expect(hits.some((h) => h.session_id === `gemini:${id}`)).toBe(true);
    const md = await sb.cli(["export", id, "--format", "md"]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain("SCENARIO_FAIL");
  }, 60_000);

  it("a second import adds nothing; a resumed session adds only its new turn", async () => {
    expect(await json(["import", "gemini"])).toMatchObject({ sessions: 0, events: 0, unchanged: 1 });
    const before = eventsOf(id);
    await gemini(["--resume", "latest", "SCENARIO_TEXT one more"]);
    const grown = await json<{ imported: Array<Record<string, unknown>> }>(["import", "gemini"]);
    // Gemini sometimes writes a record of the first run again when it resumes; the store drops it by its id
    // (counted in `duplicates`), so the archive still holds every event once.
    expect(grown.imported).toEqual([expect.objectContaining({ status: "grown" })]);
    const after = eventsOf(id);
    expect(after.slice(0, before.length)).toEqual(before);
    const ids = after.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      after
        .slice(before.length)
        .filter((e) => e.kind === "user_prompt")
        .map((e) => e.payload.prompt),
    ).toEqual(["SCENARIO_TEXT one more"]);
  }, 120_000);

  it("token totals equal a hook recording of the same session", async () => {
    const install = await sb.cli([
      "install",
      "gemini",
      "--project",
      sb.projectDir,
      "--yes",
      "--transport",
      "command",
    ]);
    expect(install.code, install.stderr).toBe(0);
    const hooked = await gemini(["SCENARIO_BASH echo recorded by the hooks"]);
    const hookEvents = eventsOf(hooked);
    expect(hookEvents.some((e) => e.kind === "turn_usage")).toBe(true);
    const aside = mkdtempSync(join(tmpdir(), "tapedeck-hooked-"));
    try {
      renameSync(sessionDir(hooked), join(aside, hooked));
      expect(await json(["import", "gemini"])).toMatchObject({ sessions: 1 });
      expect(sums(eventsOf(hooked))).toEqual(sums(hookEvents));
      expect(manifestOf(hooked).tokens).toEqual(
        JSON.parse(readFileSync(join(aside, hooked, "manifest.json"), "utf8")).tokens,
      );
    } finally {
      rmSync(aside, { recursive: true, force: true });
    }
  }, 180_000);
});
