// @module-tag claude
// @module-tag codex
// @module-tag gemini
// Memory end to end with the real `claude`, `codex` and `gemini`, offline against the mocks, over the default
// (http) transport (and Claude's over the command transport too): a session whose assistant states a fact is promoted into memory (twice: same ids, nothing
// new), found by `memory search` with its source session, kept when the session is deleted; with retrieval on,
// the next session's request to the mock carries the fact inside tapedeck's marker, the mock answers with it,
// and the archive records the injection and its bytes; with retrieval off, neither.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { parseInjected } from "../../src/core/ports/memory-marker.ts";
import { DONT_KNOW } from "../../src/demo/recall-mock.ts";
import { type Agent, CLAUDE, CODEX, GEMINI, runOk } from "./agents.ts";
import { readEventsFile } from "./archive-checks.ts";
import { type Sandbox, useBuild } from "./sandboxes.ts";

useBuild();

const FACT = "The staging deploy key rotates every Friday at 17:00 UTC.";
const KEY = "staging deploy key";

interface Run {
  session: string;
  answer: string;
}

/** One prompt in a new session: what it started, and what the agent answered. */
async function ask(agent: Agent, sb: Sandbox, prompt: string): Promise<Run> {
  const res = await runOk(agent, sb, [prompt]);
  return { session: agent.session(res)!, answer: agent.answer(res) };
}

/** What the mock received since its `from`th request, as JSON text. */
function sentSince(agent: Agent, sb: Sandbox, from: number): string {
  return agent
    .bodies(sb)
    .slice(from)
    .map((b) => JSON.stringify(b))
    .join("\n");
}

function describeAgent(agent: Agent, transport: "http" | "command" = "http"): void {
  describe(`memory and retrieval with the real ${agent.name} (${transport} transport)`, () => {
    const sb = agent.sandbox(`recall-${agent.name}-${transport}`);
    const cli = async (args: string[]) => {
      const res = await sb.cli([...args, "--project", sb.projectDir]);
      return res;
    };
    const json = async (args: string[]) => {
      const res = await cli([...args, "--json"]);
      expect(res.code, res.stderr).toBe(0);
      return JSON.parse(res.stdout);
    };
    const archive = (session: string): Envelope[] =>
      readEventsFile(join(sb.projectDir, ".tapedeck", `${agent.name}-sessions`, session, "events.jsonl"));
    const injections = (session: string) =>
      archive(session).filter((e) => e.kind === "provider_event" && e.payload.type === "context_injection");
    let promoted: string[] = [];
    let source = "";

    it("records a session whose assistant states a fact, and promotes it", async () => {
      expect((await cli(["install", agent.name, "--transport", transport, "--yes"])).code).toBe(0);
      const said = await ask(agent, sb, `SCENARIO_SAY ${FACT}`);
      expect(said.answer).toContain(FACT);
      source = said.session;
      const first = await json(["promote", source, "--yes"]);
      expect(first.created.length).toBeGreaterThan(0);
      promoted = first.created;
      const again = await json(["promote", source, "--yes"]);
      expect(again.created).toEqual([]);
      expect([...again.existing].sort()).toEqual([...promoted].sort());
    });

    it("memory search finds the fact with its source session, and deleting the session keeps it", async () => {
      const found = await json(["memory", "search", KEY]);
      expect(found.hits.length).toBeGreaterThan(0);
      expect(found.hits[0].source.session_id).toContain(source);
      expect(promoted).toContain(found.hits[0].id);
      expect((await cli(["delete", source, "--yes"])).code).toBe(0);
      expect(archive(source)).toEqual([]);
      const after = await json(["memory", "search", KEY]);
      expect(after.hits.map((h: { id: string }) => h.id)).toEqual(
        found.hits.map((h: { id: string }) => h.id),
      );
    });

    it("retrieval on: the next session's request carries the fact inside the marker, and the archive its bytes", async () => {
      const on = await json(["retrieval", "on", "--provider", agent.name]);
      expect(on.providers[0]).toMatchObject({ provider: agent.name, retrieval: "on", budget_bytes: 4096 });
      const status = await json(["status", "--provider", agent.name]);
      expect(status).toMatchObject({ retrieval: "on" });
      expect(status.display).toContain("memory");
      const from = agent.bodies(sb).length;
      const asked = await ask(agent, sb, `SCENARIO_RECALL ${KEY}`);
      expect(asked.answer).toBe(`From memory: ${FACT}`);
      const text = sentSince(agent, sb, from);
      expect(text).toMatch(/(<|&lt;)tapedeck-memory items=/);
      expect(text).toContain(FACT);
      const recorded = injections(asked.session);
      expect(recorded).toHaveLength(1);
      const payload = recorded[0]!.payload as {
        outcome: string;
        bytes: number;
        item_ids: string[];
        query: string;
        context: string;
      };
      expect(payload.outcome).toBe("injected");
      expect(payload.bytes).toBe(Buffer.byteLength(payload.context));
      expect(payload.bytes).toBeGreaterThan(Buffer.byteLength(FACT));
      expect(payload.bytes).toBeLessThanOrEqual(4096);
      expect(payload.item_ids.length).toBeGreaterThan(0);
      for (const id of payload.item_ids) expect(promoted).toContain(id);
      expect(parseInjected(payload.context)[0]?.ids).toEqual(payload.item_ids);
      expect(payload.query).toContain("deploy");
      // The user's prompt is recorded as typed: the context is not in it.
      const prompts = archive(asked.session).filter((e) => e.kind === "user_prompt");
      expect(prompts.map((e) => e.payload.prompt)).toEqual([`SCENARIO_RECALL ${KEY}`]);
      // Where the session is read, the injection is named with its size and items, not an unlabelled event.
      const shown = await cli(["show", asked.session]);
      expect(shown.code, shown.stderr).toBe(0);
      const n = payload.item_ids.length;
      expect(shown.stdout).toContain(`memory injected: ${n} item${n === 1 ? "" : "s"},`);
      expect(shown.stdout).toContain(payload.item_ids[0]!);
    });

    it("retrieval off: the next session's request carries no marker, and the mock does not know", async () => {
      const off = await json(["retrieval", "off", "--provider", agent.name]);
      expect(off.providers[0]).toMatchObject({ retrieval: "off" });
      const from = agent.bodies(sb).length;
      const asked = await ask(agent, sb, `SCENARIO_RECALL ${KEY}`);
      expect(asked.answer).toBe(DONT_KNOW);
      const text = sentSince(agent, sb, from);
      expect(text).not.toMatch(/(<|&lt;)tapedeck-memory/);
      expect(text).not.toContain(FACT);
      expect(injections(asked.session)).toEqual([]);
    });
  });
}

describeAgent(CLAUDE);
// The in-process hook (dist/hook.cjs) loads the retrieval module itself: what the command transport, and the
// http client's fallback, run.
describeAgent(CLAUDE, "command");
describeAgent(CODEX);
describeAgent(GEMINI);
