// @module-tag claude
// `tapedeck replay` with the real claude, offline against the mock: a recorded baseline is replayed into a
// new recorded session (new id, linked, the same prompts in order), with native memory on and off, and
// nothing outside the experiment root changes.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../src/core/archive/schemas.ts";
import type { LoggedRequest } from "../../src/demo/anthropic-mock.ts";
import { claudeAgent, recordBaseline } from "./baseline.ts";
import { git, type Run, tapedeck, untouched } from "./replay-harness.ts";
import { CLI_JS, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

interface ReplayOut {
  session_id: string;
  replay_of_session_id: string;
  archive: string;
  experiment_root: string;
  arm: string;
}

const FACT = "The project codename is ZEPHYR-7.";
const PROMPTS = ["SCENARIO_BASH echo first-step", "now the second step SCENARIO_TEXT", "third and last"];

describe("tapedeck replay (claude)", () => {
  const sb = useClaudeSandbox("replay-claude");
  let baselineId = "";
  let baselineArchive = "";
  let env: Record<string, string> = {};

  const state = () =>
    untouched({
      home: sb.home,
      projectDir: sb.projectDir,
      archive: baselineArchive,
      settings: [join(sb.home, ".claude.json"), join(sb.home, ".claude")],
    });
  const requestsOf = (sessionId: string): LoggedRequest[] =>
    sb.mock.requests.filter((r) => r.sessionId === sessionId && r.path.startsWith("/v1/messages"));
  const replay = (args: string[]): Promise<Run> => tapedeck(["replay", ...args], { cwd: sb.projectDir, env });
  /** A replay of the last session as arm `arm` under `root` (and `flags`): it exits 0; what it printed. */
  const replayed = async (arm: string, root: string, flags: string[] = []): Promise<ReplayOut> => {
    const run = await replay(["last", "--arm", arm, ...flags, "--experiment-root", root, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as ReplayOut;
  };

  beforeAll(async () => {
    const agent = claudeAgent(sb);
    env = agent.env;
    const baseline = await recordBaseline("claude", sb, agent, { fact: FACT, prompts: PROMPTS });
    baselineId = baseline.id;
    baselineArchive = baseline.archive;
    expect(existsSync(baselineArchive)).toBe(true);
  }, 180_000);

  function manifestOf(archive: string): Manifest {
    return JSON.parse(readFileSync(join(archive, "manifest.json"), "utf8")) as Manifest;
  }

  /** The prompts the mock saw typed in this session, in order: the last user text of each request, once. */
  function promptsSeen(sessionId: string): string[] {
    const out: string[] = [];
    for (const r of requestsOf(sessionId)) {
      const body = r.body as { messages?: Array<{ role: string; content: unknown }> };
      const texts = (body.messages ?? [])
        .filter((m) => m.role === "user")
        .flatMap((m) =>
          typeof m.content === "string"
            ? [m.content]
            : (m.content as Array<{ type: string; text?: string }>)
                .filter((b) => b.type === "text" && typeof b.text === "string")
                .map((b) => b.text as string),
        )
        .map((t) => t.trim())
        .filter((t) => PROMPTS.includes(t));
      const text = texts.at(-1);
      if (text && out.at(-1) !== text) out.push(text);
    }
    return out;
  }

  it("replays into a new recorded session linked to the baseline, the same prompts in order, nothing else touched", async () => {
    const before = state();
    const root = join(sb.root, "exp-on");
    const out = await replayed("native", root, ["--native-memory", "on"]);
    expect(Object.keys(out)).toEqual(
      expect.arrayContaining(["session_id", "replay_of_session_id", "archive", "experiment_root", "arm"]),
    );
    expect(out.replay_of_session_id).toBe(`claude:${baselineId}`);
    expect(out.session_id).not.toBe(`claude:${baselineId}`);
    expect(out.arm).toBe("native");
    expect(out.archive.startsWith(root)).toBe(true);
    const manifest = manifestOf(out.archive);
    expect(manifest.run_type).toBe("replay");
    expect(manifest.replay_of_session_id).toBe(`claude:${baselineId}`);
    expect(manifest.arm).toBe("native");
    expect(manifest).toMatchObject({
      experiment_id: JSON.parse(readFileSync(join(root, "experiment.json"), "utf8")).experiment_id,
      native_memory: "on",
      retrieval: "off",
      recording_enabled: true,
      arm_labels: { provider: "claude", session_root: join(root, "runs", "native-r1", "sessions") },
    });
    const newId = manifest.provider_session_id!;
    expect(newId).not.toBe(baselineId);
    expect(promptsSeen(newId)).toEqual(PROMPTS);
    // Native memory on: the committed CLAUDE.md reached every main request of the new session.
    expect(requestsOf(newId).length).toBeGreaterThan(0);
    expect(requestsOf(newId).every((r) => JSON.stringify(r.body).includes(FACT))).toBe(true);
    // The recorded replay holds the same prompts.
    const events = readFileSync(join(out.archive, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(
      events.filter((e) => e.kind === "user_prompt" && !e.agent_id).map((e) => e.payload.prompt),
    ).toEqual(PROMPTS);
    // The work tree and config root are gone; the record stays.
    expect(readdirSync(join(root, "runs", "native-r1")).sort()).toEqual(["hook-timings.jsonl", "sessions"]);
    expect(existsSync(join(root, "experiment.json"))).toBe(true);
    expect(state()).toEqual(before);
  }, 240_000);

  it("the id replay printed opens in list, show, inspect, export and the viewer, linked to its baseline", async () => {
    const out = await replayed("seams", join(sb.root, "exp-seams"));
    const td = (args: string[]) => tapedeck(args, { cwd: sb.projectDir, env });
    const list = await td(["list", "--json"]);
    const listed = (JSON.parse(list.stdout) as Array<{ session_id: string; origin: string }>).find(
      (s) => s.session_id === out.session_id,
    );
    expect(listed?.origin).toBe("run");
    const show = await td(["show", out.session_id]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(PROMPTS[0]!);
    const inspect = await td(["inspect", out.session_id]);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain(`replay of claude:${baselineId}`);
    // From outside the project: the registry knows it, --all-projects opens the replay and the baseline.
    for (const id of [out.session_id, baselineId]) {
      const outside = await tapedeck(["show", id, "--all-projects"], { cwd: sb.root, env });
      expect(outside.code, outside.stderr).toBe(0);
      expect(outside.stdout).toContain(PROMPTS[1]!);
    }
    const md = await td(["export", out.session_id, "--format", "md"]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain(PROMPTS[2]!);
    // The viewer opens it at once and lists it linked to its baseline (and the baseline to it).
    const view = spawn(process.execPath, [CLI_JS, "view", out.session_id, "--no-open", "--json"], {
      cwd: sb.projectDir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const printed = await new Promise<{ url: string }>((resolve, reject) => {
        let text = "";
        view.stdout.on("data", (d: Buffer) => {
          text += d.toString();
          // --json prints the whole object (over several lines), then the server runs.
          try {
            resolve(JSON.parse(text) as { url: string });
          } catch {
            // not all of it yet
          }
        });
        view.once("exit", (code) => reject(new Error(`view exited ${code}`)));
      });
      const url = new URL(printed.url);
      const key = new URLSearchParams(url.hash.slice(1)).get("s");
      const api = `${url.origin}${url.pathname}api/sessions`;
      const { sessions } = (await (await fetch(api)).json()) as {
        sessions: Array<{
          key: string;
          session_id: string;
          baseline_key: string | null;
          replay_keys: string[];
        }>;
      };
      const opened = sessions.find((s) => s.key === key);
      expect(opened?.session_id).toBe(out.session_id);
      const baseline = sessions.find((s) => s.session_id === `claude:${baselineId}`);
      expect(opened?.baseline_key).toBe(baseline?.key);
      expect(baseline?.replay_keys).toContain(key);
    } finally {
      view.kill("SIGINT");
    }
  }, 240_000);

  it("with native memory off no request carries the CLAUDE.md text", async () => {
    const before = state();
    const out = await replayed("bare", join(sb.root, "exp-off"), [
      "--provider",
      "claude",
      "--native-memory",
      "off",
    ]);
    const newId = manifestOf(out.archive).provider_session_id!;
    expect(promptsSeen(newId)).toEqual(PROMPTS);
    expect(requestsOf(newId).some((r) => JSON.stringify(r.body).includes(FACT))).toBe(false);
    expect(state()).toEqual(before);
  }, 240_000);

  it("refuses a baseline of another provider, and a revision that no longer exists", async () => {
    const wrong = await replay(["last", "--provider", "codex", "--json"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/is a claude session, not codex/);
    // Rewrite history so the recorded revision is gone (in a copy: the user's repository is not ours to damage).
    git(sb.projectDir, ["commit", "-q", "--amend", "-m", "rewritten"]);
    git(sb.projectDir, ["reflog", "expire", "--expire=now", "--all"]);
    git(sb.projectDir, ["gc", "-q", "--prune=now"]);
    const gone = await replay(["last", "--json", "--experiment-root", join(sb.root, "exp-gone")]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no longer in the repository/);
  }, 120_000);
});
