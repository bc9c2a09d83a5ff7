// Tables keyed by names a payload, an archive line or a config gives: each of Object's own member names is a
// name like any other (a plain object answered `constructor` with Object's function, `__proto__` with the
// prototype).
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { redactText, redactValue } from "@tapedeck/redact";
import { describe, expect, it } from "vitest";
import { effectiveLimits, type ProjectConfig } from "../../src/core/archive/config.ts";
import { recoverSession } from "../../src/core/archive/recovery.ts";
import { applyLineToState, emptyState, recordEvents } from "../../src/core/archive/session-store.ts";
import { summarizeSpool, writeSpool } from "../../src/core/archive/spool.ts";
import { injectionHeadline } from "../../src/core/ports/injection.ts";
import { INHERITED_NAMES, parsedWith } from "../helpers/inherited-names.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

describe("a name spelled like an object's own member", () => {
  it("is a key the redactor judges by its words, not by Object's members", () => {
    for (const name of INHERITED_NAMES) {
      const payload = { tool_input: parsedWith(name, "abc"), ...parsedWith(name, "short") };
      const out = redactValue(payload);
      expect(out.value, name).toEqual(payload);
      expect(out.redactions, name).toEqual([]);
      expect(redactText(`{"${name}": "abc"}`).text, name).toBe(`{"${name}": "abc"}`);
    }
  });

  it("is an event kind the session counters count from zero", () => {
    for (const name of INHERITED_NAMES) {
      const state = emptyState();
      applyLineToState(state, { sequence: 1, kind: name }, 10);
      applyLineToState(state, { sequence: 2, kind: name }, 10);
      expect(Object.hasOwn(state.counts, name), name).toBe(true);
      expect(state.counts[name], name).toBe(2);
    }
  });

  it("is a kind recovery counts, in the file's lines and in a torn tail it completes", () => {
    const root = project();
    const out = recordEvents(spec(root), [event("session_start", "a")]);
    const file = join(out.sessionDir, "events.jsonl");
    const first = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!);
    const line = (kind: string, sequence: number) =>
      JSON.stringify({ ...first, kind, sequence, event_id: `e-${sequence}` });
    let seq = 2;
    for (const name of INHERITED_NAMES) appendFileSync(file, `${line(name, seq++)}\n`);
    appendFileSync(file, line("constructor", seq));
    const result = recoverSession(out.sessionDir, { write: true });
    expect(result.report.torn_tail?.reason).toMatch(/newline added/);
    const counts = result.countsByKind;
    expect(Object.keys(counts).sort()).toEqual(["session_start", ...INHERITED_NAMES].sort());
    expect(counts.constructor).toBe(2);
    for (const name of INHERITED_NAMES.slice(1)) expect(counts[name], name).toBe(1);
    const state = JSON.parse(readFileSync(join(out.sessionDir, "state.json"), "utf8"));
    expect(state.counts).toEqual(counts);
  });

  it("is a kind the spool's summary counts", () => {
    const root = project();
    const out = recordEvents(spec(root), [event("session_start", "a")]);
    const file = join(out.sessionDir, "events.jsonl");
    const first = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!);
    const events = INHERITED_NAMES.map((kind, i) => ({ ...first, kind, event_id: `s-${i}` }));
    expect(writeSpool(out.sessionDir, [...events, { ...first, kind: "toString", event_id: "s-x" }])).toBe(
      true,
    );
    const summary = summarizeSpool(out.sessionDir);
    expect(Object.keys(summary.kinds).sort()).toEqual([...INHERITED_NAMES].sort());
    for (const name of INHERITED_NAMES) expect(summary.kinds[name], name).toBe(name === "toString" ? 2 : 1);
  });

  it("is no limit a config can set", () => {
    for (const name of INHERITED_NAMES) {
      const config = {
        schema_version: 1,
        providers: {},
        limits: parsedWith(name, 5),
      } as unknown as ProjectConfig;
      const limits = effectiveLimits(config);
      expect(Object.hasOwn(limits, name), name).toBe(false);
      expect(Object.getPrototypeOf(limits), name).toBe(Object.prototype);
    }
  });

  it("is an injection outcome shown as the archive wrote it", () => {
    for (const name of INHERITED_NAMES) {
      const view = {
        outcome: name,
        item_ids: [],
        bytes: 0,
        query: null,
        error: null,
        matched: null,
        truncated: false,
        threshold: null,
        scores: [],
        best_score: null,
      };
      expect(injectionHeadline(view), name).toBe(`memory: ${name.replace(/_/g, " ")}, nothing injected`);
    }
  });
});
