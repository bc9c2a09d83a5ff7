// @module-tag claude
// @module-tag codex
/**
 * End to end: `tapedeck show`, `list` and `export --format md` on sessions recorded from the real `claude` and
 * `codex` CLIs, offline against the mock model servers. Each session is three runs of one session (a command
 * with a planted credential, a failing command, a subagent); the outputs are compared with snapshots in which
 * times, offsets, durations, ids and the sandbox's path are masked, so a change to what the views say (or to
 * what the clients record) shows up as a diff.
 */
import { describe, expect, it } from "vitest";
import { type Agent, CLAUDE, CODEX, conversation } from "./agents.ts";
import { AWS_KEY_ID, plantSecrets } from "./planted-secrets.ts";
import { type Sandbox, useBuild } from "./sandboxes.ts";

useBuild();

const { secrets: SECRETS } = plantSecrets({ aws_access_key_id: AWS_KEY_ID });
const KEY = SECRETS.aws_access_key_id;

/** What changes from run to run: clock times, offsets, durations, ids, the sandbox's path. */
function mask(text: string, sb: Sandbox): string {
  return (
    text
      .split(sb.root)
      .join("<root>")
      .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d{3})?Z?)?/g, "<date>")
      .replace(/\b\d\d:\d\d:\d\d\.\d{3}\b/g, "hh:mm:ss.mmm")
      // show pads the offset to a fixed width: the mask keeps the width, so the indentation after it stays.
      .replace(/\+\d+(m\d+\.\d)?(\.\d{3})?s( *)/g, (m) => "+<offset>".padEnd(m.length))
      .replace(/\b\d+(\.\d+)? (ms|s)\b/g, "<time>")
      .replace(/\b(\d+s|\d+m \d\ds)\b/g, "<duration>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
      .replace(/\b[0-9a-f]{16,17}\b/g, "<agent>")
      // Codex names each subagent at random.
      .replace(/"nickname":"[^"]*"/g, '"nickname":"<name>"')
      .replace(/ +$/gm, "")
  );
}

/**
 * Codex names each subagent at random and the name goes into the later requests, whose token counts the mock
 * derives from their length: a Codex session's counts move by a few dozen tokens from run to run.
 */
const maskTokens = (text: string) => text.replace(/\b\d+ (in|out|cache read|cache write)\b/g, "<n> $1");

/** list's columns are as wide as their widest cell, which a masked value no longer is. */
const columns = (text: string) => text.replace(/ {2,}/g, "  ");

async function tapedeck(sb: Sandbox, args: string[]): Promise<string> {
  const r = await sb.cli([...args, "--project", sb.projectDir]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).not.toContain(KEY);
  // Piped: no colour.
  expect(r.stdout).not.toMatch(/\x1b/);
  return r.stdout;
}

/** The session's three runs: a command with the planted key, a failing command, a subagent. */
const PROMPTS = [
  `SCENARIO_BASH echo deploying with key ${KEY}`,
  "SCENARIO_FAIL",
  "SCENARIO_AGENT echo from a subagent",
];

/** The agent installed (with `flags`) and the session recorded; its id. */
async function recordSession(agent: Agent, sb: Sandbox, flags: string[]): Promise<string> {
  await tapedeck(sb, ["install", agent.name, "--yes", ...flags]);
  const chat = conversation(agent, sb);
  for (const prompt of PROMPTS) await chat.say(prompt);
  return chat.id;
}

async function views(sb: Sandbox, id: string) {
  const show = await tapedeck(sb, ["show", id]);
  const list = await tapedeck(sb, ["list"]);
  const md = await tapedeck(sb, ["export", id, "--format", "md"]);
  const json = JSON.parse(await tapedeck(sb, ["show", id, "--json"]));
  const [listed] = JSON.parse(await tapedeck(sb, ["list", "--json"]));
  return { show, list, md, json, listed };
}

describe("claude", () => {
  const sb = CLAUDE.sandbox("show-claude");

  it("show, list and export md of a recorded session: turns, paired calls, the error, the subagent", async () => {
    const id = await recordSession(CLAUDE, sb, []);
    const v = await views(sb, id);
    expect(v.json.turns).toHaveLength(3);
    const [bash, fail, agent] = v.json.turns.map((t: { items: Array<{ type: string }> }) =>
      t.items.find((i) => i.type === "tool"),
    );
    expect(bash).toMatchObject({ name: "Bash", result: { ok: true } });
    expect(fail).toMatchObject({ name: "Bash", result: { ok: false, exit_code: 3 } });
    expect(agent).toMatchObject({ name: "Agent", result: { ok: true } });
    expect(agent.agents[0].items[0]).toMatchObject({ name: "Bash", input: "echo from a subagent" });
    // The turns' tokens add up to what inspect sums over the archive.
    const inspect = JSON.parse(await tapedeck(sb, ["inspect", id, "--json"]));
    expect(v.json.totals.usage).toMatchObject({
      input_tokens: inspect.usage.input_tokens,
      output_tokens: inspect.usage.output_tokens,
      cache_read_input_tokens: inspect.usage.cache_read_input_tokens,
      cache_creation_input_tokens: inspect.usage.cache_creation_input_tokens,
    });
    expect(v.listed).toMatchObject({
      turns: 3,
      tool_errors: 1,
      failed: false,
      title: expect.stringMatching(/^SCENARIO_BASH echo deploying with key \[REDACTED:/),
    });
    expect(v.listed.tokens).toEqual({
      input_tokens: inspect.usage.input_tokens,
      output_tokens: inspect.usage.output_tokens,
      cache_read_input_tokens: inspect.usage.cache_read_input_tokens,
      cache_creation_input_tokens: inspect.usage.cache_creation_input_tokens,
      total_tokens: inspect.usage.total_tokens,
    });
    expect(mask(v.show, sb)).toMatchSnapshot("show");
    expect(columns(mask(v.list, sb))).toMatchSnapshot("list");
    expect(mask(v.md, sb)).toMatchSnapshot("export md");
  }, 240_000);
});

describe("codex", () => {
  const sb = CODEX.sandbox("show-codex");

  it("show, list and export md of a recorded thread: the rollout's exit code on the failed call, the subagent", async () => {
    const thread = await recordSession(CODEX, sb, ["--transport", "command"]);
    const v = await views(sb, thread);
    expect(v.json.turns).toHaveLength(3);
    const fail = v.json.turns[1].items.find((i: { type: string }) => i.type === "tool");
    // Codex's PostToolUse has no exit code; the rollout's tool_error for the same call supplies it.
    expect(fail).toMatchObject({ result: { ok: false, exit_code: 3 } });
    expect(v.listed).toMatchObject({ turns: 3, tool_errors: 1, failed: false });
    expect(maskTokens(mask(v.show, sb))).toMatchSnapshot("show");
    expect(columns(mask(v.list, sb))).toMatchSnapshot("list");
    expect(maskTokens(mask(v.md, sb))).toMatchSnapshot("export md");
  }, 240_000);
});
