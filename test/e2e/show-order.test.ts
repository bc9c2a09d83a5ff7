// @module-tag claude
// @module-tag codex
// @module-tag gemini
/**
 * Issue 41, item 6: what the agent says before a tool call is shown where it said it, for each real agent. The
 * agent runs first without tapedeck (its mock says a text, then calls a shell command, then answers), and
 * `tapedeck import` brings in its own file, which holds every text; `show` and `export --format md` then
 * print the prompt, that text, the call and its result, and the answer, in that order. They used to merge
 * the text into the answer, printed above the call.
 */
import { describe, expect, it } from "vitest";
import { type Agent, CLAUDE, CODEX, GEMINI, rowsFor, runOk } from "./agents.ts";
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

for (const row of rowsFor(ROWS, (r) => r.agent.name)) {
  describe(row.agent.name, () => {
    const sb = row.sandbox();

    it("show and the Markdown export print the text said before the call before it, the answer after", async () => {
      await runOk(row.agent as Agent<Sandbox>, sb, ["SCENARIO_BASH echo in-order"]);
      const imported = await sb.cli(["import", row.agent.name, "--yes"]);
      expect(imported.code, imported.stderr).toBe(0);
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
    }, 180_000);
  });
}
