import type { RedactionRules } from "@tapedeck/redact";
import { describe, expect, it } from "vitest";
import { wrapInjected } from "../../../src/core/ports/memory-marker.ts";
import {
  cutUtf8,
  ItemBuilder,
  type ItemOptions,
  MAX_BODY_BYTES,
  type MemoryItem,
  parseFieldPath,
  type SourceEvent,
  TRUNCATED_MARK,
} from "../../../src/memory/store/items.ts";
import { sourceEvent } from "../../helpers/memory-item.ts";

const ARCHIVE = { sha256: "a".repeat(64), bytes: 1234 };

const ev = sourceEvent;

function build(events: SourceEvent[], opts: Partial<ItemOptions> = {}): MemoryItem[] {
  const b = new ItemBuilder({ archive: ARCHIVE, createdAt: "2026-01-01T00:00:00.000Z", ...opts });
  const out = events.flatMap((e) => b.push(structuredClone(e)).map((x) => x.item));
  return [...out, ...b.finish().map((x) => x.item)];
}

/** Prompts on their own (no answers selected): what text handling tests look at. */
const PROMPTS: Partial<ItemOptions> = { answers: false };

describe("items from events", () => {
  it("a prompt and the answer of its turn are one exchange, with both events as its source", () => {
    const [exchange] = build([
      ev(2, "user_prompt", { prompt: "How do we deploy?\nDetails follow." }),
      ev(5, "assistant_message", { text: "With make deploy, from the release branch." }),
    ]);
    expect(exchange).toMatchObject({
      kind: "exchange",
      title: "How do we deploy?",
      body: "User: How do we deploy?\nDetails follow.\n\nAssistant: With make deploy, from the release branch.",
      truncated: false,
      schema_version: 1,
      label: null,
      edited_at: null,
      source: {
        provider: "claude",
        session_id: "claude:s1",
        agent_id: null,
        seq_from: 2,
        seq_to: 5,
        event_ids: ["user_prompt-2", "assistant_message-5"],
        envelope_schema_version: 1,
        archive_sha256: ARCHIVE.sha256,
        archive_bytes: ARCHIVE.bytes,
      },
    });
  });

  it("a subagent's answer is not the main prompt's: it stays an answer of its own", () => {
    const items = build([
      ev(2, "user_prompt", { prompt: "How do we deploy the worker?" }),
      ev(4, "assistant_message", { text: "The worker ships with the API image." }, { agent_id: "sub-1" }),
      ev(5, "assistant_message", { text: "Deploy it with make deploy-worker." }),
    ]);
    expect(items.map((i) => [i.kind, i.source.agent_id])).toEqual([
      ["exchange", null],
      ["answer", "sub-1"],
    ]);
  });

  it("ids are stable for the same events and differ for other events, kinds or sessions", () => {
    const events = [ev(2, "user_prompt", { prompt: "the staging deploy key rotates weekly" })];
    const a = build(events, PROMPTS)[0]!.id;
    expect(build(events, PROMPTS)[0]!.id).toBe(a);
    // The body does not enter the id: excluding a field later finds the same item.
    expect(
      build([ev(2, "user_prompt", { prompt: "another prompt about something else entirely" })], PROMPTS)[0]!
        .id,
    ).toBe(a);
    expect(
      build([ev(3, "user_prompt", { prompt: "the staging deploy key rotates weekly" })], PROMPTS)[0]!.id,
    ).not.toBe(a);
    expect(
      build(
        [
          ev(
            2,
            "user_prompt",
            { prompt: "the staging deploy key rotates weekly" },
            { session_id: "claude:s2" },
          ),
        ],
        PROMPTS,
      )[0]!.id,
    ).not.toBe(a);
    expect(a).toMatch(/^m1-[0-9a-f]{32}$/);
  });

  it("pairs a tool call with its result by tool_use_id: one item, both events, the input shown once", () => {
    const items = build([
      ev(3, "tool_call", { tool_name: "Bash", tool_use_id: "tu1", tool_input: { command: "ls -la" } }),
      ev(4, "tool_call", { tool_name: "Read", tool_use_id: "tu2", tool_input: { file_path: "/x/a.ts" } }),
      ev(5, "tool_result", {
        tool_name: "Bash",
        tool_use_id: "tu1",
        tool_input: { command: "ls -la" },
        tool_response: { stdout: "a\nb", stderr: "" },
      }),
      ev(6, "tool_result", { tool_name: "Read", tool_use_id: "tu2", tool_response: "file text" }),
    ]);
    expect(items).toHaveLength(2);
    const bash = items.find((i) => i.title.startsWith("Bash"))!;
    expect(bash).toMatchObject({
      kind: "tool_call",
      title: "Bash: ls -la",
      body: "Bash: ls -la\nResult:\na\nb",
      source: { seq_from: 3, seq_to: 5, event_ids: ["tool_call-3", "tool_result-5"] },
    });
    expect(items.find((i) => i.title.startsWith("Read"))!.body).toBe("Read: /x/a.ts\nResult:\nfile text");
  });

  it("pairs Gemini's id-less calls and results by tool name in turn order", () => {
    const items = build([
      ev(1, "tool_call", { tool_name: "run_shell_command", tool_input: { command: "echo 1" } }),
      ev(2, "tool_call", { tool_name: "run_shell_command", tool_input: { command: "echo 2" } }),
      ev(3, "tool_result", { tool_name: "run_shell_command", tool_response: "one" }),
      ev(4, "tool_result", { tool_name: "run_shell_command", tool_response: "two" }),
    ]);
    expect(items.map((i) => [i.source.event_ids, i.body])).toEqual([
      [["tool_call-1", "tool_result-3"], "run_shell_command: echo 1\nResult:\none"],
      [["tool_call-2", "tool_result-4"], "run_shell_command: echo 2\nResult:\ntwo"],
    ]);
  });

  it("a Gemini result is what the user saw (returnDisplay), not the model's wrapped copy", () => {
    const [item] = build([
      ev(1, "tool_call", { tool_name: "run_shell_command", tool_input: { command: "echo hello" } }),
      ev(2, "tool_result", {
        tool_name: "run_shell_command",
        tool_response: {
          llmContent: "<untrusted_context>\nOutput: hello\n</untrusted_context>",
          returnDisplay: "hello",
        },
      }),
    ]);
    expect(item!.body).toBe("run_shell_command: echo hello\nResult:\nhello");
  });

  it("keeps Codex's later tool_error (same id, read from the rollout) in the same item, until the turn ends", () => {
    const items = build([
      ev(1, "tool_call", { tool_name: "Bash", tool_use_id: "c1", tool_input: { command: "false" } }),
      ev(2, "tool_result", { tool_name: "Bash", tool_use_id: "c1", tool_response: "" }),
      ev(3, "assistant_message", { text: "It failed: the build script exits 1." }),
      ev(4, "tool_error", { tool_name: "Bash", tool_use_id: "c1", error: "Exit code 1", exit_code: 1 }),
      ev(5, "user_prompt", { prompt: "next" }, { turn_id: "t2" }),
    ]);
    const tool = items.find((i) => i.kind === "tool_call")!;
    expect(tool.source.event_ids).toEqual(["tool_call-1", "tool_result-2", "tool_error-4"]);
    expect(tool.body).toContain("Error:\nExit code 1");
    // The prompt of turn t2 never got its answer: no item.
    expect(items.map((i) => i.kind)).toEqual(["tool_call", "answer"]);
  });

  it("a call whose result is not in the selection is an item of its own", () => {
    const items = build([
      ev(7, "tool_call", { tool_name: "Bash", tool_use_id: "x", tool_input: { command: "make" } }),
    ]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      title: "Bash: make",
      body: "Bash: make",
      source: { seq_from: 7, seq_to: 7 },
    });
  });

  it("a compaction summary is an item; a compaction without one is not", () => {
    const items = build([
      ev(1, "compaction", { phase: "pre", trigger: "auto" }),
      ev(2, "compaction", { phase: "post", compact_summary: "We refactored the store." }),
    ]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: "compaction_summary",
      title: "Compaction: We refactored the store.",
    });
  });

  it("removes injected memory (the marker) so it is never promoted again; a prompt of nothing else is no item", () => {
    const injected = wrapInjected("the deploy key lives in vault", ["m1-abc"]);
    const items = build(
      [
        ev(1, "user_prompt", { prompt: `${injected}\nWhat is the next migration step?` }),
        ev(2, "user_prompt", { prompt: injected }),
        ev(3, "tool_result", {
          tool_name: "Read",
          tool_use_id: "r",
          tool_response: `before ${injected} after`,
        }),
      ],
      PROMPTS,
    );
    expect(items).toHaveLength(2);
    expect(items[0]!.body).toBe("What is the next migration step?");
    for (const i of items) {
      expect(i.body).not.toContain("vault");
      expect(i.body).not.toContain("tapedeck-memory");
    }
  });

  it("redacts again with the current policy: what an older policy let through, and the project's own rules", () => {
    const rules: RedactionRules = {
      patterns: [{ name: "acme_token", re: /acme_[0-9]{8}/g }],
      allow: new Set(),
    };
    const items = build(
      [
        ev(1, "user_prompt", { prompt: "use AKIAQ3ZT7RBX5MWN2KPD and acme_12345678 please" }),
        ev(2, "tool_call", {
          tool_name: "Http",
          tool_use_id: "h",
          tool_input: { url: "https://x", api_key: "hunter2hunter2" },
        }),
      ],
      { rules, ...PROMPTS },
    );
    expect(items[0]!.body).toBe("use [REDACTED:aws_access_key_id] and [REDACTED:acme_token] please");
    expect(items[0]!.title).not.toContain("AKIA");
    expect(items[1]!.body).not.toContain("hunter2");
    expect(items[1]!.body).toContain("[REDACTED:");
  });

  it("bounds the body to 4 KiB of UTF-8, cut on a character and marked", () => {
    const long = "é漢😀".repeat(2000);
    const [item] = build([ev(1, "user_prompt", { prompt: long })], PROMPTS);
    const bytes = Buffer.byteLength(item!.body);
    expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(bytes).toBeGreaterThan(MAX_BODY_BYTES - 8);
    expect(item!.truncated).toBe(true);
    expect(item!.body.endsWith(TRUNCATED_MARK)).toBe(true);
    expect(item!.body).not.toContain("\ufffd");
    expect(long.startsWith(item!.body.slice(0, -TRUNCATED_MARK.length))).toBe(true);
  });

  it("redacts before it cuts: a credential across the 4 KiB line leaves no fragment", () => {
    const text = `${"x ".repeat(2030)}AKIAQ3ZT7RBX5MWN2KPD tail`;
    const [item] = build([ev(1, "user_prompt", { prompt: text })], PROMPTS);
    expect(item!.body).not.toMatch(/AKIA/);
  });

  it("a cut tool part still marks the item truncated", () => {
    const [item] = build([
      ev(1, "tool_call", {
        tool_name: "Bash",
        tool_use_id: "b",
        tool_input: { command: `echo ${"y".repeat(9000)}` },
      }),
    ]);
    expect(item!.truncated).toBe(true);
    expect(Buffer.byteLength(item!.body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
  });

  it("titles: first line, one line, bounded; --title labels the set and is no part of any title", () => {
    const [item] = build(
      [ev(1, "user_prompt", { prompt: `\n\n  fix\tthe \u001b[31mbuild ${"w".repeat(300)}` })],
      { label: "Release\n2", ...PROMPTS },
    );
    expect(item!.title.startsWith("fix the")).toBe(true);
    expect(item!.title).not.toMatch(/[\u0000-\u001f]/);
    expect([...item!.title].length).toBeLessThanOrEqual(100);
    expect(item!.label).toBe("Release 2");
  });

  it("drops --exclude-fields before anything is read", () => {
    const [item] = build(
      [
        ev(1, "tool_result", {
          tool_name: "Bash",
          tool_use_id: "e",
          tool_input: { command: "cat .env" },
          tool_response: { stdout: "PRIVATE STUFF" },
        }),
      ],
      { excludeFields: ["payload.tool_response"] },
    );
    expect(item!.body).not.toContain("PRIVATE");
    expect(item!.body).toContain("cat .env");
    expect(() => parseFieldPath("manifest.x")).toThrow(/payload field/);
    expect(() => parseFieldPath("payload")).toThrow(/payload field/);
  });

  it("cutUtf8 never splits a character or a surrogate pair", () => {
    for (let n = 0; n < 12; n += 1) {
      const cut = cutUtf8("a😀é漢😀", n);
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(n);
      expect(cut).not.toContain("\ufffd");
      expect(Buffer.from(cut).toString("utf8")).toBe(cut);
    }
  });
});
