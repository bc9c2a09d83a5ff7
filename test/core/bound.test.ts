import { redactValue } from "@tapedeck/redact";
import { describe, expect, it } from "vitest";
import { bound, DEFAULT_LIMITS, precut } from "../../src/core/archive/bound.ts";
import { prepareEvent } from "../../src/core/archive/prepare.ts";
import { identity } from "../helpers/session.ts";

const limits = { ...DEFAULT_LIMITS, max_string_bytes: 1000 };

function pipeline(value: unknown) {
  const pre = precut(value, limits);
  const red = redactValue(pre.value);
  return { ...bound(red.value, limits), redactions: red.redactions, pre: pre.truncations };
}

describe("bounding", () => {
  it("keeps the head and tail of a long string around a marker with the removed byte count", () => {
    const s = `${"a".repeat(3000)}${"b".repeat(3000)}`;
    const out = bound({ s }, limits);
    const v = (out.value as { s: string }).s;
    expect(v.startsWith("a".repeat(500))).toBe(true);
    expect(v.endsWith("b".repeat(500))).toBe(true);
    expect(v).toContain("…[truncated 5000 bytes]…");
    expect(out.truncations).toEqual([{ path: "payload.s", reason: "string", original: 6000 }]);
  });

  it("never cuts inside a UTF-8 character", () => {
    const s = "é".repeat(2000);
    const v = (bound({ s }, limits).value as { s: string }).s;
    expect(v).not.toContain("\uFFFD");
    expect(Buffer.byteLength(v.replace(/…\[truncated \d+ bytes\]…/, ""))).toBeLessThanOrEqual(1000);
  });

  it("caps arrays and object keys and depth, recording each", () => {
    const deep: Record<string, unknown> = {};
    let cur = deep;
    for (let i = 0; i < 40; i += 1) {
      cur.d = {};
      cur = cur.d as Record<string, unknown>;
    }
    const keys = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, i]));
    const out = bound({ arr: Array.from({ length: 700 }, (_, i) => i), keys, deep }, DEFAULT_LIMITS);
    const v = out.value as { arr: number[]; keys: object };
    expect(v.arr).toHaveLength(500);
    expect(Object.keys(v.keys)).toHaveLength(500);
    expect(out.truncations.map((t) => t.reason).sort()).toEqual(["array", "depth", "keys"]);
  });

  it("a secret straddling the cut point of a huge string is redacted, not left half-visible", () => {
    const token = `gh${"p_"}${"Zq8rT2vLmN4pQ7sX1yB5cD9fG3hJ6kW0aE2i"}`;
    // Place the token exactly across where the head window ends.
    const head = `${"x".repeat(500 - 11)} `;
    const s = `${head}${token} ${"y".repeat(200_000)}`;
    const out = pipeline({ s });
    const v = (out.value as { s: string }).s;
    expect(v).not.toContain(token.slice(0, 10));
    expect(out.redactions).toEqual(["payload.s"]);
    expect(v).toMatch(/…\[truncated \d+ bytes\]…/);
  });

  it("prepareEvent drops the adapter's least important fields first and lists them", () => {
    const big = "z".repeat(12_000);
    const withOptionalFields = (max_event_bytes: number) =>
      prepareEvent(
        {
          kind: "tool_result",
          event_id: "e1",
          payload: {
            hook_event_name: "PostToolUse",
            tool_use_id: "t",
            tool_input: big,
            tool_response: big,
            extra: big,
          },
          optional_fields: ["extra", "tool_input"],
        },
        identity(),
        { ...DEFAULT_LIMITS, max_event_bytes },
        () => "2026-01-01T00:00:00.000Z",
      );
    const prepared = withOptionalFields(20_000);
    expect(prepared.omitted).toEqual(["payload.extra", "payload.tool_input"]);
    expect(Object.keys(prepared.payload)).toEqual(["hook_event_name", "tool_use_id", "tool_response"]);
    const tight = withOptionalFields(2_000);
    expect(tight.omitted).toEqual(["payload.extra", "payload.tool_input", "payload.tool_response"]);
    expect(tight.payload).toEqual({ hook_event_name: "PostToolUse", tool_use_id: "t" });
    expect(Buffer.byteLength(JSON.stringify(tight))).toBeLessThanOrEqual(2_000);
  });

  it("prepareEvent redacts and bounds every string of usage, as the payload's", () => {
    const key = "AKIAZ7QX3M2KD9PLW4HB";
    const prepared = prepareEvent(
      {
        kind: "turn_usage",
        event_id: "e1",
        payload: {},
        usage: {
          source: "claude-transcript",
          model: `claude-opus-4-1 ${key} ${"m".repeat(500)}`,
          message_id: `msg_${key}`,
          agent_version: "9".repeat(100),
          input_tokens: 12,
          extra: { note: `key ${key}` },
        },
      },
      identity(),
      DEFAULT_LIMITS,
      () => "2026-01-01T00:00:00.000Z",
    );
    const u = prepared.usage!;
    expect(JSON.stringify(prepared).includes(key)).toBe(false);
    expect(u.model).toMatch(/^claude-opus-4-1 \[REDACTED:aws_access_key_id\] m+$/);
    expect(u.model!.length).toBeLessThanOrEqual(200);
    expect(u.message_id).toMatch(/^redacted-[0-9a-f]{32}$/);
    expect(u.agent_version).toBe("9".repeat(64));
    expect(u.input_tokens).toBe(12);
    expect(prepared.redactions).toEqual(
      expect.arrayContaining(["usage.model", "usage.message_id", "usage.extra.note"]),
    );
    expect(prepared.truncations.map((t) => t.path)).toEqual(["usage.model", "usage.agent_version"]);
  });
});
