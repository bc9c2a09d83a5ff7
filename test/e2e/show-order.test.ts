// @module-tag claude
// @module-tag codex
// @module-tag gemini
/**
 * Issue 41, item 6: what the agent says before a tool call is shown where it said it, for each real agent. The
 * agent runs first without tapedeck (its mock says a text, then calls a shell command, then answers), and
 * `tapedeck import` brings in its own file, which holds every text; `show` and `export --format md` then
 * print the prompt, that text, the call and its result, and the answer, in that order. They used to merge
 * the text into the answer, printed above the call.
 *
 * Gemini recorded live through its hooks, too: no hook hands over a response's text whole (AfterModel has
 * each streamed chunk's, AfterAgent every response of the turn in one reply), so the adapter takes the text
 * said before a call from Gemini's chat file at BeforeTool, and the answer without it. It used to be the reply,
 * " Running the command now. \nDone: in-order", one answer after the call.
 *
 * Item 7: Claude Code hands a background subagent's report back as a `<task-notification>` message that fires
 * UserPromptSubmit; it is recorded as the agent's own event, out of turn counts and retrieval.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Agent, CLAUDE, CODEX, GEMINI, rowsFor, runOk } from "./agents.ts";
import { readEventsFile } from "./archive-checks.ts";
import { type Sandbox, useBuild, useCodexSandbox } from "./sandboxes.ts";

useBuild();

interface Row {
  agent: Agent;
  sandbox: () => Sandbox;
  /** What the agent's mock says before its call. */
  said: string;
  /** The call's line in show. */
  call: RegExp;
}

/** Codex's mock calls the command without a word first: this one says a text, then calls it. */
const codexSandbox = () =>
  useCodexSandbox("order-codex", {
    script: (ctx) =>
      ctx.toolOutput || !ctx.promptText.includes("SCENARIO_BASH")
        ? undefined
        : {
            kind: "response",
            scenario: "said-then-bash",
            output: [
              { type: "message", text: "Listing first." },
              { type: "function_call", name: "exec_command", arguments: { cmd: "echo in-order" } },
            ],
          },
  });

const ROWS: Row[] = [
  {
    agent: CLAUDE,
    sandbox: () => CLAUDE.sandbox("order-claude"),
    said: "Running the command.",
    call: /Bash {2}echo in-order/,
  },
  { agent: CODEX, sandbox: codexSandbox, said: "Listing first.", call: /Bash {2}echo in-order|exec_command/ },
  {
    agent: GEMINI,
    sandbox: () => GEMINI.sandbox("order-gemini"),
    said: "Running the command now.",
    call: /run_shell_command {2}echo in-order/,
  },
];

/** show and the Markdown export of the last session print the prompt, the text said, the call, the answer. */
async function expectInOrder(sb: Sandbox, row: Row): Promise<void> {
  const show = await sb.cli(["show", "last"]);
  expect(show.code, show.stderr).toBe(0);
  const lines = show.stdout.split("\n").map((l) => l.slice(24).trim());
  const at = (test: (l: string) => boolean) => lines.findIndex(test);
  const prompt = at((l) => l === "prompt");
  const said = at((l) => l === "said");
  const text = at((l) => l.includes(row.said));
  const call = at((l) => row.call.test(l));
  const answer = at((l) => l === "answer");
  expect(
    [prompt, said, call, answer].every((i) => i >= 0),
    show.stdout,
  ).toBe(true);
  expect(prompt < said && said < text && text < call && call < answer, show.stdout).toBe(true);
  // A tool's result is its text (Gemini's was printed as its raw JSON; issue 41, item 12).
  expect(show.stdout).not.toContain("llmContent");
  // The answer no longer repeats the text that came before the call.
  expect(
    lines.slice(answer).some((l) => l.includes(row.said)),
    show.stdout,
  ).toBe(false);
  const md = (await sb.cli(["export", "last", "--format", "md"])).stdout;
  // The call's line quotes its command as code; the prompt names it too, above.
  const callAt = md.indexOf("`echo in-order`");
  expect(md.indexOf(row.said)).toBeGreaterThan(md.indexOf("**Prompt**"));
  expect(md.indexOf(row.said)).toBeLessThan(callAt);
  expect(callAt).toBeLessThan(md.indexOf("**Answer**"));
}

for (const row of rowsFor(ROWS, (r) => r.agent.name)) {
  describe(row.agent.name, () => {
    const sb = row.sandbox();

    it("show and the Markdown export print the text said before the call before it, the answer after", async () => {
      await runOk(row.agent as Agent<Sandbox>, sb, ["SCENARIO_BASH echo in-order"]);
      const imported = await sb.cli(["import", row.agent.name, "--yes"]);
      expect(imported.code, imported.stderr).toBe(0);
      await expectInOrder(sb, row);
    }, 180_000);
  });
}

describe.runIf(rowsFor([GEMINI], (a) => a.name).length > 0)("gemini, recorded live through its hooks", () => {
  const row = ROWS.find((r) => r.agent === GEMINI)!;
  const sb = GEMINI.sandbox("order-gemini-live");

  it("show prints the text said before the call before it, and the answer without it", async () => {
    const install = await sb.cli(["install", "gemini", "--yes", "--transport", "command"]);
    expect(install.code, install.stderr).toBe(0);
    const res = await runOk(GEMINI, sb, ["SCENARIO_BASH echo in-order"]);
    await expectInOrder(sb, row);
    // Each text recorded once, the one said before the call before it.
    const events = readEventsFile(
      join(sb.projectDir, ".tapedeck", "gemini-sessions", res.sessionId!, "events.jsonl"),
    );
    const said = events.filter((e) => e.kind === "assistant_message").map((e) => e.payload.text);
    expect(said).toEqual([row.said, res.response]);
    const order = events.map((e) => e.kind).filter((k) => k === "assistant_message" || k === "tool_call");
    expect(order).toEqual(["assistant_message", "tool_call", "assistant_message"]);
  }, 180_000);
});

describe("claude: a background subagent's task notification (issue 41, item 7)", () => {
  const sb = CLAUDE.sandbox("task-notice");

  it("is the agent's own event: no turn, no title, no retrieval run on it; show names it", async () => {
    const install = await sb.cli(["install", "claude", "--yes", "--retrieval"]);
    expect(install.code, install.stderr).toBe(0);
    const first = await runOk(CLAUDE, sb, ["SCENARIO_AGENT_BG echo from the background"]);
    await runOk(CLAUDE, sb, CLAUDE.resume(first.sessionId!, "SCENARIO_TEXT and then"));
    const events = readEventsFile(
      join(sb.projectDir, ".tapedeck", "claude-sessions", first.sessionId!, "events.jsonl"),
    );
    const notices = events.filter((e) => e.payload.task_notification === true);
    // Claude Code delivered the report through UserPromptSubmit: recorded, whole, as its own event.
    expect(notices).toHaveLength(1);
    expect(notices[0]!.kind).toBe("provider_event");
    expect(String(notices[0]!.payload.prompt)).toMatch(/^<task-notification>/);
    const prompts = events.filter((e) => e.kind === "user_prompt" && !e.agent_id);
    expect(prompts.map((e) => e.payload.prompt)).toEqual([
      "SCENARIO_AGENT_BG echo from the background",
      "SCENARIO_TEXT and then",
    ]);
    // Retrieval ran once per prompt of the user, never on the notification.
    const asked = events.filter((e) => e.payload.type === "context_injection");
    expect(asked.map((e) => e.payload.prompt_event_id)).toEqual(prompts.map((e) => e.event_id));
    const [listed] = JSON.parse((await sb.cli(["list", "--json"])).stdout);
    expect(listed.turns).toBe(2);
    const show = await sb.cli(["show", first.sessionId!]);
    expect(show.stdout).toContain('task notification: Agent "Run subagent task" finished (completed)');
    expect(show.stdout).not.toMatch(/prompt\n\s+│ <task-notification>/);
    expect(show.stdout).toContain("2 turns");
    const json = JSON.parse((await sb.cli(["show", first.sessionId!, "--json"])).stdout);
    expect(json.turns).toHaveLength(2);
  }, 180_000);
});
