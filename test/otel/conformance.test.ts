// Every gen_ai.* name the exporter produces is in the pinned conventions' table (src/otel/semconv.ts) at a
// place the table allows, and none the conventions removed: spans of each operation, the span events, the
// operation-details log records and the usage counters, over sessions of every provider, in every content
// mode, with and without the one-release `dup` names.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import type { Manifest } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { mapSession, readManifest } from "../../src/otel/map.ts";
import { sessionUsage, usageCounters } from "../../src/otel/metrics.ts";
import type { ContentMode, MappedTurn, Span } from "../../src/otel/model.ts";
import { ATTR, EVENT, GENAI_NAMES, METRIC, type Place, REMOVED_NAMES } from "../../src/otel/semconv.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();
const { tick, ev } = eventClock();

function record(
  events: NormalizedEvent[],
  provider: string,
  id: string,
): { dir: string; manifest: Manifest } {
  const root = project();
  const dir = recordEvents(
    spec(root, {
      identity: identity(id, provider),
      sessionRoot: join(root, ".tapedeck", `${provider}-sessions`),
    }),
    events,
    tick,
  ).sessionDir;
  return { dir, manifest: readManifest(dir)! };
}

const usage = (id: string, turn: string, extra: Record<string, unknown> = {}) =>
  ev(
    "turn_usage",
    `u-${id}`,
    {},
    {
      turn_id: turn,
      usage: {
        source: "transcript",
        message_id: id,
        model: "m-1",
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 3,
        cache_creation_input_tokens: 2,
        reasoning_output_tokens: 1,
        ...extra,
      },
    },
  );

/** A Claude turn with everything a span can carry: a tool, a failed tool, a subagent, a compaction, usage. */
function claude() {
  const t = { turn_id: "t1" };
  return record(
    [
      ev("session_start", "s", { source: "startup", model: "m-1" }),
      ev("user_prompt", "p", { prompt: "look around" }, t),
      ev("tool_call", "c1", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "tu1" }, t),
      ev("tool_error", "e1", { tool_name: "Bash", tool_use_id: "tu1", error: "no" }, t),
      ev("tool_call", "c2", { tool_name: "Agent", tool_input: { prompt: "dig" }, tool_use_id: "tu2" }, t),
      ev("subagent_start", "sa", { agent_id: "ag", agent_type: "explore" }, { ...t, agent_id: "ag" }),
      ev(
        "turn_usage",
        "su",
        {},
        {
          ...t,
          agent_id: "ag",
          usage: {
            source: "transcript",
            message_id: "m-sub",
            model: "m-1",
            input_tokens: 1,
            output_tokens: 1,
          },
        },
      ),
      ev(
        "subagent_stop",
        "ss",
        { agent_id: "ag", last_assistant_message: "found" },
        { ...t, agent_id: "ag" },
      ),
      ev("tool_result", "r2", { tool_name: "Agent", tool_use_id: "tu2", tool_response: "found" }, t),
      ev("compaction", "k", { trigger: "auto", phase: "pre" }, t),
      usage("m-a", "t1"),
      ev("assistant_message", "a", { text: "done" }, t),
      ev("provider_event", "st", { failure: true }, t),
      ev("session_end", "end", { reason: "exit" }),
    ],
    "claude",
    "conf-claude",
  );
}

function others() {
  return [
    record(
      [
        ev("user_prompt", "p", { prompt: "hi" }, { turn_id: "x1" }),
        usage("resp-1", "x1"),
        ev("session_end", "e"),
      ],
      "codex",
      "conf-codex",
    ),
    record(
      [
        ev("user_prompt", "p", { prompt: "hi" }, { turn_id: "g1" }),
        ev(
          "turn_usage",
          "gu",
          { finish_reason: "STOP" },
          {
            turn_id: "g1",
            usage: { source: "hook", model: "gemini-x", input_tokens: 4, output_tokens: 2 },
          },
        ),
        ev("session_end", "e"),
      ],
      "gemini",
      "conf-gemini",
    ),
  ];
}

interface Seen {
  name: string;
  place: Place;
  where: string;
}

function placeOf(span: Span): Place {
  const op = span.attributes[ATTR.operationName];
  if (op === "invoke_agent" || op === "chat" || op === "execute_tool") return op;
  if (span.name.startsWith("evaluate ")) return "evaluate";
  throw new Error(`a span of no known operation: ${span.name}`);
}

/** Every gen_ai.* name in a mapping's output, where it appeared. */
function namesIn(turns: MappedTurn[]): Seen[] {
  const out: Seen[] = [];
  const add = (name: string, place: Place, where: string) => {
    if (name.startsWith("gen_ai.")) out.push({ name, place, where });
  };
  for (const t of turns) {
    for (const s of t.spans) {
      const place = placeOf(s);
      for (const k of Object.keys(s.attributes)) add(k, place, s.name);
      for (const e of s.events) {
        add(e.name, "event", `${s.name} event`);
        // tapedeck's own span events carry only tapedeck.* names; a GenAI event's are checked as its own.
        for (const k of Object.keys(e.attributes))
          add(
            k,
            e.name === EVENT.evaluationResult ? "event:evaluation_result" : place,
            `${s.name} ${e.name}`,
          );
      }
    }
    for (const l of t.logs) {
      add(l.eventName, "event", "log record");
      for (const k of Object.keys(l.attributes)) add(k, "log:operation_details", l.eventName);
    }
  }
  return out;
}

function violations(seen: Seen[], dup: boolean): string[] {
  const bad: string[] = [];
  for (const s of seen) {
    const entry = GENAI_NAMES[s.name];
    const removed = REMOVED_NAMES[s.name];
    if (removed && (removed.on === "everywhere" || removed.on.includes(s.place)))
      bad.push(`${s.name} on ${s.place} (${s.where}): removed: ${removed.why}`);
    else if (!entry) bad.push(`${s.name} on ${s.place} (${s.where}): not in the pinned conventions' table`);
    else if (!entry.on.includes(s.place)) bad.push(`${s.name} on ${s.place} (${s.where}): not allowed there`);
    else if (entry.legacy && !dup) bad.push(`${s.name} (${s.where}): an old name, only in the dup mode`);
  }
  return bad;
}

describe("GenAI conformance: every name the exporter sends is in the pinned table, at its place", () => {
  it("spans, span events and log records of every provider, in every content mode, dup or not", () => {
    const sessions = [claude(), ...others()];
    let checked = 0;
    for (const content of ["off", "attributes", "logs"] as ContentMode[])
      for (const dup of [false, true])
        for (const { dir, manifest } of sessions) {
          const turns = mapSession(dir, manifest, { content, legacyNames: dup }).turns;
          const seen = namesIn(turns);
          checked += seen.length;
          expect(violations(seen, dup)).toEqual([]);
          if (content === "logs") expect(turns.flatMap((t) => t.logs).length).toBeGreaterThan(0);
        }
    expect(checked).toBeGreaterThan(100);
    // The dup mode's one old name shows up only there.
    const { dir, manifest } = claude();
    const names = (dup: boolean) =>
      namesIn(mapSession(dir, manifest, { legacyNames: dup }).turns).map((s) => s.name);
    expect(names(true)).toContain(ATTR.cacheCreationTokensLegacy);
    expect(names(false)).not.toContain(ATTR.cacheCreationTokensLegacy);
    expect(names(false)).toContain(ATTR.cacheWriteTokens);
    expect(names(false)).toContain(ATTR.conversationCompacted);
  });

  it("the usage counters: the conventions' metric names and point attributes", () => {
    const { dir, manifest } = claude();
    const counters = usageCounters(manifest, sessionUsage(dir, manifest, manifest.byte_count));
    expect(counters.map((c) => c.name).sort()).toEqual(Object.values(METRIC).sort());
    const seen: Seen[] = counters.flatMap((c) => [
      { name: c.name, place: "metric" as Place, where: "metric" },
      ...c.points.flatMap((p) =>
        Object.keys(p.attributes).map((k) => ({ name: k, place: "metric_point" as Place, where: c.name })),
      ),
    ]);
    expect(
      violations(
        seen.filter((s) => s.name.startsWith("gen_ai.")),
        false,
      ),
    ).toEqual([]);
    expect(counters.every((c) => c.unit === "{token}")).toBe(true);
  });

  it("the checker fails an unknown name, a removed one and one at a place the conventions moved it from", () => {
    expect(
      violations([{ name: "gen_ai.usage.cache_creation.input_tokens", place: "chat", where: "x" }], false),
    ).toHaveLength(1);
    expect(violations([{ name: "gen_ai.agent.id", place: "invoke_agent", where: "x" }], false)).toHaveLength(
      1,
    );
    expect(
      violations([{ name: "gen_ai.provider.name", place: "invoke_agent", where: "x" }], false),
    ).toHaveLength(1);
    expect(violations([{ name: "gen_ai.usage.total_cost", place: "chat", where: "x" }], false)).toHaveLength(
      1,
    );
    expect(
      violations([{ name: "gen_ai.client.token.usage", place: "metric", where: "x" }], false),
    ).toHaveLength(1);
  });

  it("no gen_ai.* name is written outside the table: src/otel names them only through semconv.ts", () => {
    const dir = join(process.cwd(), "src", "otel");
    const literal = readdirSync(dir)
      .filter((f) => f.endsWith(".ts") && f !== "semconv.ts")
      .filter((f) => /"gen_ai\./.test(readFileSync(join(dir, f), "utf8")));
    expect(literal).toEqual([]);
    // And every constant that names a gen_ai.* thing is in the table.
    const constants = [...Object.values(ATTR), ...Object.values(EVENT), ...Object.values(METRIC)].filter(
      (n) => n.startsWith("gen_ai."),
    );
    expect(constants.filter((n) => !GENAI_NAMES[n])).toEqual([]);
  });
});
