import { describe, expect, it } from "vitest";
import { searchableText } from "../../../src/memory/index/index-text.ts";

describe("searchableText", () => {
  it("leaves a tool response's flags out: no snippet of `false false false` (issue 41, item 12)", () => {
    const body = searchableText("tool_result", {
      tool_name: "Bash",
      tool_input: { command: "make" },
      tool_response: {
        stdout: "built",
        stderr: "",
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
      },
    }).body;
    expect(body).toBe("Bash\nmake\nbuilt\n");
    expect(body).not.toMatch(/false|true/);
  });

  it("takes a prompt's and an answer's text, a tool's name, input and output", () => {
    expect(searchableText("user_prompt", { prompt: "hello there", model: "x" }).body).toBe("hello there");
    expect(searchableText("assistant_message", { text: "done", hook_event_name: "Stop" }).body).toBe("done");
    const tool = searchableText("tool_result", {
      tool_name: "Bash",
      tool_input: { command: "ls -la src/core", description: "List" },
      tool_response: { stdout: "store.ts\nscan.ts", stderr: "", interrupted: false },
    });
    expect(tool.body).toBe("Bash\nls -la src/core\nList\nstore.ts\nscan.ts\n");
    expect(searchableText("tool_error", { tool_name: "Edit", error: "no match" }).body).toBe(
      "Edit\nno match",
    );
    expect(searchableText("compaction", { compact_summary: "we fixed it" }).body).toBe("we fixed it");
    expect(searchableText("turn_usage", { anything: "x" }).body).toBe("");
  });

  it("collects identifiers, paths and flags for the trigram table, without a sentence's period", () => {
    const t = searchableText("assistant_message", {
      text: "Edit src/core/store.ts. Then run `npm test -- --dry-run` on snake_case_name, twice: snake_case_name.",
    });
    expect(t.idents.split(" ")).toEqual(["src/core/store.ts", "--dry-run", "snake_case_name"]);
    expect(searchableText("user_prompt", { prompt: "plain words only." }).idents).toBe("");
  });

  it("sends text of scripts written without spaces to the trigram table", () => {
    expect(searchableText("user_prompt", { prompt: "请修复记录器的测试 ok" }).idents).toBe(
      "请修复记录器的测试",
    );
    expect(searchableText("user_prompt", { prompt: "café déjà vu" }).idents).toBe("");
  });

  it("bounds a deep or wide payload and never splits a surrogate pair", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 1000; i += 1) deep = { x: deep };
    expect(searchableText("provider_event", { deep }).body).toBe("");
    const wide = searchableText("provider_event", {
      list: Array.from({ length: 10_000 }, (_, i) => `v${i}`),
    });
    expect(wide.body.length).toBeLessThanOrEqual(2048);
    const emoji = searchableText("user_prompt", { prompt: `${"a".repeat(32 * 1024 - 1)}😀` }).body;
    expect(emoji.length).toBe(32 * 1024 - 1);
  });

  it("replaces the snippet markers if recorded text holds them", () => {
    expect(searchableText("user_prompt", { prompt: "a\ue000b\ue001c" }).body).toBe("a\ufffdb\ufffdc");
  });
});
