// Tables keyed by names a peer or a file gives (the API stream's usage keys, a mirrored record's keys, a
// proxy config's settings, a payload's fields, a transcript path): each of Object's own member names is a
// name like any other.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MessageAccumulator, mergeUsage } from "../../src/providers/claude/mirror/accumulator.ts";
import { referenceBlocks } from "../../src/providers/claude/mirror/envelope.ts";
import { toTranscript } from "../../src/providers/claude/mirror/restore.ts";
import { loadMirrorSettings } from "../../src/providers/claude/mirror/settings.ts";
import { copyOwnFields } from "../../src/providers/hook-normalizer.ts";
import { readFrom } from "../../src/providers/read-cursors.ts";
import { INHERITED_NAMES, parsedWith } from "../helpers/inherited-names.ts";

const plain = () => Object.getPrototypeOf({}) === Object.prototype && !("polluted" in {});

describe("a name spelled like an object's own member", () => {
  let home: string | undefined;
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>).polluted;
    if (home) rmSync(home, { recursive: true, force: true });
    home = undefined;
  });

  it("is a usage key the mirror merges into the message, never into Object.prototype", () => {
    for (const name of INHERITED_NAMES) {
      const usage: Record<string, unknown> = { input_tokens: 1 };
      mergeUsage(usage as never, JSON.parse(`{"${name}": {"polluted": 1}}`));
      mergeUsage(usage as never, JSON.parse(`{"${name}": {"output_tokens": 2}}`));
      expect(plain(), name).toBe(true);
      expect(Object.hasOwn(usage, name), name).toBe(true);
      expect(usage[name], name).toEqual({ polluted: 1, output_tokens: 2 });
      const nulls: Record<string, unknown> = {};
      mergeUsage(nulls as never, parsedWith(name, null));
      expect(Object.hasOwn(nulls, name), name).toBe(true);
    }
  });

  it("is a field of a streamed message and of an unknown delta, kept", () => {
    for (const name of INHERITED_NAMES) {
      const acc = new MessageAccumulator();
      acc.apply({
        type: "message_start",
        message: { id: "m", content: [], usage: {}, ...parsedWith(name, { a: 1 }) },
      });
      acc.apply({ type: "content_block_start", index: 0, content_block: { type: "future" } });
      acc.apply({
        type: "content_block_delta",
        index: 0,
        delta: { type: "future_delta", ...parsedWith(name, "x") },
      });
      acc.apply({
        type: "content_block_delta",
        index: 0,
        delta: { type: "future_delta", ...parsedWith(name, "y") },
      });
      const msg = acc.snapshot();
      expect(Object.hasOwn(msg?.extra ?? {}, name), name).toBe(true);
      expect(msg?.extra[name], name).toEqual({ a: 1 });
      expect(Object.hasOwn(msg?.content[0] ?? {}, name), name).toBe(true);
      expect(msg?.content[0]?.[name], name).toBe("xy");
    }
  });

  it("is a key of a mirrored record the restored transcript keeps", () => {
    for (const name of INHERITED_NAMES) {
      const prompt = {
        type: "user",
        uuid: "u1",
        message: { role: "user", content: "hi" },
        ...parsedWith(name, "kept"),
      };
      const answer = {
        type: "assistant",
        uuid: "a1",
        message: { role: "assistant", content: [{ type: "text", text: "ok", ...parsedWith(name, 1) }] },
        ...parsedWith(name, "kept too"),
      };
      const out = toTranscript([prompt, answer] as never, { sessionId: "s", cwd: "/p" });
      expect(JSON.parse(JSON.stringify(out[0]))[name], name).toBe("kept");
      expect(JSON.parse(JSON.stringify(out[1]))[name], name).toBe("kept too");
      const blocks = referenceBlocks([{ type: "text", text: "t", ...parsedWith(name, 2) }]) as object[];
      expect(JSON.parse(JSON.stringify(blocks[0]))[name], name).toBe(2);
    }
  });

  it("is an unknown mirror setting, named so", () => {
    home = mkdtempSync(join(tmpdir(), "tapedeck-names-"));
    for (const name of INHERITED_NAMES) {
      const configPath = join(home, "proxy.json");
      writeFileSync(configPath, `{"mirror": ${JSON.stringify(parsedWith(name, 1))}}`);
      const { warnings } = loadMirrorSettings({ env: {}, home, configPath });
      expect(warnings, name).toEqual([`${configPath}: unknown mirror setting "${name}" ignored`]);
    }
  });

  it("is a payload field a generic event keeps", () => {
    for (const name of INHERITED_NAMES) {
      const into: Record<string, unknown> = { hook_event_name: "Future" };
      const fields = copyOwnFields(into, { ...parsedWith(name, { a: 1 }), other: 2 }, new Set());
      expect(fields, name).toContain(name);
      expect(JSON.parse(JSON.stringify(into)), name).toEqual({
        hook_event_name: "Future",
        other: 2,
        ...parsedWith(name, { a: 1 }),
      });
      expect(Object.getPrototypeOf(into), name).toBe(Object.prototype);
    }
  });

  it("is a transcript path whose cursor starts at 0", () => {
    for (const name of INHERITED_NAMES) {
      const cursors: Record<string, { offset: number; seen: string[] }> = {};
      const { next } = readFrom(
        cursors,
        name,
        (_path, cursor) => ({ offset: cursor.offset + 5, usages: [{ id: "u" }] }),
        "id",
        undefined,
      );
      expect(next, name).toEqual({ offset: 5, seen: ["u"] });
      expect(Object.hasOwn(cursors, name), name).toBe(true);
    }
  });
});
