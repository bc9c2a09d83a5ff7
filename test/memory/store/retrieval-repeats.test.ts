// No repeats within a session, on the real hook path (core/hook/recorder.ts with the real retrieval): an item given
// to a session is not given to its next prompt; a retried prompt hook gets the same items again; a compaction
// (or a session started again from a compacted one) lets them be given again; another session starts afresh;
// and the state is on disk, so a hook in another process (a restarted server, the command transport) knows it.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ProviderConfig, writeConfig } from "../../../src/core/archive/config.ts";
import { runHook } from "../../../src/core/hook/recorder.ts";
import { contextStep } from "../../../src/memory/store/inject.ts";
import { MEMORY_SCHEMA_VERSION, type MemoryItem } from "../../../src/memory/store/items.ts";
import * as retrieval from "../../../src/memory/store/retrieval.ts";
import {
  forgetGiven,
  noteGiven,
  readSessionMemory,
  statePath,
} from "../../../src/memory/store/session-state.ts";
import { openMemory } from "../../../src/memory/store/store.ts";
import { adapterFor, injectorFor } from "../../../src/providers/registry.ts";
import { useTempProjects } from "../../helpers/session.ts";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "claude");
const project = useTempProjects("tapedeck-retrieval-repeats-");
afterEach(() => retrieval.closeRetrievalStores());

const SESSION = "11111111-2222-4333-8444-555555555555";
const FACT = "The staging deploy key rotates every Friday at 17:00 UTC.";

function fact(): MemoryItem {
  return {
    id: "m1-0123456789abcdef0123456789abcdef",
    schema_version: MEMORY_SCHEMA_VERSION,
    kind: "exchange",
    title: "When does the staging deploy key rotate?",
    body: `User: When does the staging deploy key rotate?\n\nAssistant: ${FACT}`,
    truncated: false,
    created_at: "2026-12-01T10:00:00.000Z",
    source: {
      provider: "claude",
      session_id: "claude:earlier",
      agent_id: null,
      seq_from: 2,
      seq_to: 3,
      event_ids: ["user_prompt-a", "assistant_message-b"],
      envelope_schema_version: 1,
      archive_sha256: "0".repeat(64),
      archive_bytes: 10,
    },
  };
}

function setUp(config: Partial<ProviderConfig> = {}) {
  const root = project();
  writeConfig(root, {
    schema_version: 1,
    providers: { claude: { recording: "on", mode: "capture-only", retrieval: { state: "on" }, ...config } },
  });
  const store = openMemory(root)!;
  store.insert([fact()]);
  store.close();
  return root;
}

/** A hook as a fresh process would run it: a new step, the retrieval's open files closed. */
function hook(root: string, name: string, over: Record<string, unknown> = {}, session = SESSION) {
  retrieval.closeRetrievalStores();
  const fixture = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));
  const data = Buffer.from(JSON.stringify({ ...fixture, session_id: session, cwd: root, ...over }));
  const env = { TAPEDECK_PROJECT_DIR: root, TAPEDECK_HOME: process.env.TAPEDECK_HOME };
  const step = contextStep(injectorFor, () => retrieval);
  return runHook(adapterFor("claude")!, { data, overflow: false }, env, undefined, { addContext: step });
}

function prompt(root: string, id: string, text: string, session = SESSION) {
  return hook(root, "UserPromptSubmit", { prompt_id: id, prompt: text }, session);
}

function injections(dir: string | undefined): Array<Record<string, unknown>> {
  return readFileSync(join(dir!, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.payload.type === "context_injection")
    .map((e) => e.payload);
}

const ASK = "When does the staging deploy key rotate?";

describe("no repeats within a session", () => {
  it("the next prompt of the session is not given the item again; the record says repeats_only", () => {
    const root = setUp();
    const first = prompt(root, "p-1", ASK);
    expect(first.output).toContain(FACT);
    const second = prompt(root, "p-2", `${ASK} Remind me.`);
    expect(second.output).toBeUndefined();
    const recorded = injections(second.outcome?.sessionDir);
    expect(recorded.map((p) => p.outcome)).toEqual(["injected", "repeats_only"]);
    expect(recorded[1]).toMatchObject({
      bytes: 0,
      item_ids: [],
      context: null,
      matched: 1,
      skipped_repeat_ids: [fact().id],
    });
  });

  it("an unrelated prompt in between gets nothing and changes nothing", () => {
    const root = setUp();
    expect(prompt(root, "p-1", "How do I center a div in CSS?").output).toBeUndefined();
    expect(prompt(root, "p-2", ASK).output).toContain(FACT);
  });

  it("a retried prompt hook (its first answer may never have reached the agent) is given the same items", () => {
    const root = setUp();
    const first = prompt(root, "p-1", ASK);
    const retried = prompt(root, "p-1", ASK);
    expect(retried.output).toBe(first.output);
    // One record per prompt: the retry's event has the same id.
    expect(injections(retried.outcome?.sessionDir)).toHaveLength(1);
  });

  it("a compaction lets the items be given again: PreCompact, or the session started again from a compacted one", () => {
    for (const reset of ["PreCompact", "SessionStart.compact"]) {
      const root = setUp();
      expect(prompt(root, "p-1", ASK).output).toContain(FACT);
      expect(prompt(root, "p-2", ASK).output).toBeUndefined();
      hook(root, reset);
      expect(prompt(root, "p-3", ASK).output, reset).toContain(FACT);
      expect(prompt(root, "p-4", ASK).output, reset).toBeUndefined();
    }
  });

  it("another session is given the item too", () => {
    const root = setUp();
    expect(prompt(root, "p-1", ASK).output).toContain(FACT);
    expect(prompt(root, "q-1", ASK, "99999999-2222-4333-8444-555555555555").output).toContain(FACT);
  });

  it("with recording stopped the rule still holds, and nothing is written to the archive", () => {
    const root = setUp({ recording: "off" });
    expect(prompt(root, "p-1", ASK).output).toContain(FACT);
    expect(prompt(root, "p-2", ASK).output).toBeUndefined();
  });
});

describe("the session state file", () => {
  it("holds ids only, one line per prompt, and is gone after a reset", () => {
    const root = setUp();
    noteGiven(root, "claude:s", "user_prompt-1", ["m1-a", "m1-b"]);
    noteGiven(root, "claude:s", "user_prompt-2", ["m1-c", "bad id with spaces"]);
    expect(readFileSync(statePath(root, "claude:s"), "utf8")).toBe(
      "user_prompt-1 m1-a,m1-b\nuser_prompt-2 m1-c\n",
    );
    const seen = readSessionMemory(root, "claude:s", "user_prompt-2");
    expect(["m1-a", "m1-b", "m1-c"].map((id) => seen.has(id))).toEqual([true, true, false]);
    expect(seen.again).toEqual(["m1-c"]);
    // Lines appended by another process (a restarted server, a command-transport hook) are read too.
    appendFileSync(statePath(root, "claude:s"), "user_prompt-3 m1-d\n");
    expect(readSessionMemory(root, "claude:s", "user_prompt-4").has("m1-d")).toBe(true);
    forgetGiven(root, "claude:s");
    expect(readSessionMemory(root, "claude:s", "user_prompt-5").has("m1-a")).toBe(false);
    // A file put back in its place after a reset is read afresh, not from where the old one was parsed to.
    noteGiven(root, "claude:s", "user_prompt-6", ["m1-e"]);
    const after = readSessionMemory(root, "claude:s", "user_prompt-7");
    expect([after.has("m1-a"), after.has("m1-e")]).toEqual([false, true]);
  });
});
