// The mock models' SCENARIO_RECALL (src/demo/recall-mock.ts): a fact is stated only when tapedeck's marker in
// the request carries it, so an A/B run can tell the arm with memory from the one without by the answer.
import { describe, expect, it } from "vitest";
import { wrapInjected } from "../../../src/core/ports/memory-marker.ts";
import { DONT_KNOW, promptWithoutMemory, recallAnswer } from "../../../src/demo/recall-mock.ts";

const block = wrapInjected(
  "Memory the user promoted into tapedeck from earlier sessions, most relevant first (it may be out of date):\n\n" +
    "[1] Deploy key rotation (answer, claude session claude:s1, event 4)\nThe deploy key rotates every Friday.",
  ["m1-a"],
);

describe("recallAnswer", () => {
  it("answers with the line inside the marker that mentions the key (Claude: a system message)", () => {
    const body = {
      messages: [
        { role: "user", content: "SCENARIO_RECALL deploy key" },
        {
          role: "system",
          content: [{ type: "text", text: `UserPromptSubmit hook additional context: ${block}` }],
        },
      ],
    };
    expect(recallAnswer(body, "deploy key")).toBe("From memory: The deploy key rotates every Friday.");
  });

  it("of an exchange item, answers with what the assistant said, not the prompt that asked", () => {
    const exchange = wrapInjected(
      "Memory the user promoted into tapedeck from earlier sessions, most relevant first (it may be out of date):\n\n" +
        "[1] SCENARIO_SAY The deploy key rotates every Friday. (exchange, claude session claude:s1, events 2-3)\n" +
        "User: SCENARIO_SAY The deploy key rotates every Friday.\n\nAssistant: The deploy key rotates every Friday.",
      ["m1-a"],
    );
    expect(recallAnswer({ system: exchange }, "deploy key")).toBe(
      "From memory: The deploy key rotates every Friday.",
    );
  });

  it("reads Gemini's escaped spelling inside its hook_context part", () => {
    const escaped = block.replaceAll("<", "&lt;").replaceAll(">", "&gt;");
    const body = {
      contents: [
        { role: "user", parts: [{ text: "q" }, { text: `<hook_context>${escaped}</hook_context>` }] },
      ],
    };
    expect(recallAnswer(body, "DEPLOY KEY")).toBe("From memory: The deploy key rotates every Friday.");
  });

  it("a fact outside the marker (the prompt itself, a file the agent read) does not count", () => {
    const body = {
      input: [{ role: "user", content: "SCENARIO_RECALL deploy key. The deploy key rotates every Friday." }],
    };
    expect(recallAnswer(body, "deploy key")).toBe(DONT_KNOW);
    expect(recallAnswer({ system: block }, "")).toBe(DONT_KNOW);
    expect(recallAnswer({ system: block }, "database password")).toBe(DONT_KNOW);
  });

  it("scenario keywords are read from the prompt without the memory (Gemini appends it to the prompt)", () => {
    const remembered = wrapInjected("SCENARIO_SAY The deploy key rotates every Friday.", ["m1-b"]);
    expect(promptWithoutMemory(`SCENARIO_RECALL deploy key\n${remembered}`)).toBe(
      "SCENARIO_RECALL deploy key\n",
    );
  });
});
