import { describe, expect, it } from "vitest";
import { recordEvents } from "../../../src/core/archive/session-store.ts";
import { deleteSession, findSession } from "../../../src/core/read/sessions.ts";
import { exportMemory } from "../../../src/memory/store/export.ts";
import {
  parseKinds,
  planPromotion,
  type Selection,
  writePromotion,
} from "../../../src/memory/store/promote.ts";
import { openMemory } from "../../../src/memory/store/store.ts";
import { verifyMemory } from "../../../src/memory/store/verify.ts";
import { storedItem } from "../../helpers/memory-item.ts";
import { event, identity, spec, useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-verify-");
// Prompts only: a prompt on its own is an item (with answers selected it would wait for one).
const ALL: Selection = { kinds: parseKinds("prompt"), excludeEvents: [], excludeFields: [] };

function promoteSession(root: string, id: string, prompt: string): void {
  recordEvents(spec(root, { identity: identity(id) }), [event("user_prompt", `p-${id}`, { prompt })]);
  const ref = findSession(root, id);
  const store = openMemory(root)!;
  try {
    writePromotion(store, ref, ALL, planPromotion(ref, ALL, { rules: undefined }), { rules: undefined });
  } finally {
    store.close();
  }
}

describe("memory verify", () => {
  it("reports only the items whose own session is gone", () => {
    const root = project();
    promoteSession(root, "keep", "kept prompt about the deploy keys");
    promoteSession(root, "drop", "dropped prompt about the deploy keys");
    deleteSession(findSession(root, "drop"));
    const store = openMemory(root, { readonly: true })!;
    const report = verifyMemory(root, store);
    store.close();
    expect(report.checked).toBe(2);
    expect(report.ok).toBe(1);
    expect(report.findings).toEqual([
      expect.objectContaining({
        session_id: "claude:drop",
        problem: "gone",
        title: "dropped prompt about the deploy keys",
      }),
    ]);
  });
});

describe("memory export", () => {
  const item = storedItem(
    "m1-x",
    { kind: "answer", title: "a\u202etitle", body: "line one\nline ```two``` \u2028 end" },
    {
      session_id: "claude:s",
      seq_to: 2,
      event_ids: ["a", "b"],
      archive_sha256: "f".repeat(64),
      archive_bytes: 10,
    },
  );

  function exported(format: "jsonl" | "md"): string {
    const root = project();
    const store = openMemory(root)!;
    store.insert([item]);
    let out = "";
    expect(exportMemory(store, format, (t) => (out += t))).toBe(1);
    store.close();
    return out;
  }

  it("jsonl: one line per item that parses back exactly, with no raw bidi or line-separator character", () => {
    const out = exported("jsonl");
    expect(out.split("\n")).toHaveLength(2);
    expect(out).not.toMatch(/[\u202e\u2028]/);
    expect(JSON.parse(out)).toEqual(item);
  });

  it("md: the body in a fence longer than any backtick run in it, the source spelled out", () => {
    const out = exported("md");
    expect(out).toContain("````text\nline one\nline ```two```");
    expect(out).toContain("- source: claude session `claude:s`, events 1-2");
    expect(out).toContain(`sha256 ${"f".repeat(64)} of the first 10 bytes`);
    expect(out).not.toMatch(/[\u202e\u2028]/);
  });
});
