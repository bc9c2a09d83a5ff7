// What every provider's hook normalizer promises about its own captured payloads, shared by the
// normalizer suites of test/providers/<name>/: each suite names its fixtures, its clock and the fields
// that differ, and adds what only that provider does. (What holds for every catalog entry without its
// fixtures is in contract.test.ts.)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { HookContext, NormalizedEvent, NormalizeResult } from "../../src/core/archive/event.ts";
import type { EventKind } from "../../src/core/archive/schemas.ts";
import { type Json, providerFixtures } from "../helpers/fixtures.ts";

export type { Json };
export type Env = Record<string, string | undefined>;
export type HookNormalizer = (payload: unknown, env: Env, now?: () => string) => NormalizeResult;

/** A hook payload's file: the event's name, an optional variant (hook-env.json and the like are not). */
const HOOK_PAYLOAD = /^[A-Z]\w*(\.[\w-]+)?\.json$/;

export class HookHarness {
  readonly fixture: (name: string) => Json;
  /** The hook payload files of the provider's fixture folder, sorted. */
  readonly hookFixtures: string[];

  constructor(
    readonly provider: string,
    readonly normalize: HookNormalizer,
    readonly capabilities: readonly string[],
    private readonly now: () => string,
    isHookPayload: (file: string) => boolean = (f) => HOOK_PAYLOAD.test(f),
  ) {
    const fixtures = providerFixtures(provider);
    this.fixture = fixtures.json;
    this.hookFixtures = readdirSync(fixtures.dir).filter(isHookPayload).sort();
  }

  /** The normalizer at the suite's clock, on a payload that gives exactly one event. */
  normalizeOne = (payload: unknown, env: Env = {}): { context: HookContext; event: NormalizedEvent } => {
    const result = this.normalize(payload, env, this.now);
    expect(result.events).toHaveLength(1);
    return { context: result.context, event: result.events[0]! };
  };

  itCoversEveryFixture(expected: Record<string, unknown>, what: string): void {
    it(`has an expectation for every ${what}`, () => {
      expect(this.hookFixtures).toEqual(Object.keys(expected).sort());
    });
  }

  /** What every recorded event of a hook payload is: its kind, an id of that kind, no session fields. */
  expectEvent(
    event: NormalizedEvent,
    kind: EventKind,
    hookEventName: unknown,
    sessionFields: string[],
  ): void {
    expect(event.kind).toBe(kind);
    expect(event.event_id).toMatch(new RegExp(`^${kind}-[0-9a-f]{32}$`));
    expect(event.payload.hook_event_name).toBe(hookEventName);
    // Session-level fields live in the context, not in every event.
    for (const field of sessionFields) expect(event.payload).not.toHaveProperty(field);
    for (const field of event.optional_fields ?? []) expect(event.payload).toHaveProperty(field);
  }

  /** The context of a payload that names its session: the provider's identity, transcript, capabilities. */
  expectContext(context: HookContext, session: { id: unknown; transcript: unknown }): void {
    expect(context.identity).toEqual({
      provider: this.provider,
      provider_session_id: session.id,
      session_id: `${this.provider}:${session.id}`,
      identity_source: "provider",
    });
    expect(context.transcript_path).toBe(session.transcript);
    expect(context.agent_pid).toBeNull();
    expect(context.capabilities).toBe(this.capabilities);
  }

  /** A captured payload that carries its session, transcript and cwd as the agents send them. */
  expectCaptured(file: string, kind: EventKind, sessionFields: string[]) {
    const payload = this.fixture(file);
    const { context, event } = this.normalizeOne(payload);
    this.expectEvent(event, kind, payload.hook_event_name, sessionFields);
    this.expectContext(context, { id: payload.session_id, transcript: payload.transcript_path });
    expect(context.project_dir).toBe(payload.cwd);
    return { payload, event };
  }

  itGivesDistinctIds(files: readonly string[], title: string): void {
    it(title, () => {
      const ids = files.map((f) => this.idOf(this.fixture(f)));
      expect(new Set(ids).size).toBe(ids.length);
    });
  }

  itGivesARetryTheSameId(files: readonly string[]): void {
    it("a retried hook with an identical payload gets the same id", () => {
      for (const file of files) {
        const first = this.idOf(this.fixture(file));
        expect(this.idOf(this.fixture(file)), file).toBe(first);
      }
    });
  }

  /** Ids of a provider whose payloads name the turn: what makes two events one, what keeps them apart. */
  turnIdTests(spec: { reorder: string; turnField: string; otherTurn: string; withoutTurn: string }): void {
    this.itGivesARetryTheSameId(this.hookFixtures);

    it("key order does not change the id of payload-hashed events", () => {
      const payload = this.fixture(spec.reorder);
      expect(this.idOf(Object.fromEntries(Object.entries(payload).reverse()))).toBe(this.idOf(payload));
    });

    it("the same prompt text in two turns gets different ids", () => {
      const first = this.fixture("UserPromptSubmit.json");
      expect(this.idOf({ ...first, [spec.turnField]: spec.otherTurn })).not.toBe(this.idOf(first));
    });

    it("the same prompt in two sessions gets different ids", () => {
      const first = this.fixture("UserPromptSubmit.json");
      expect(this.idOf({ ...first, session_id: "another-session" })).not.toBe(this.idOf(first));
    });

    it("a Stop that fires again in the same turn (stop hook blocked) gets a new id", () => {
      const first = this.fixture("Stop.json");
      const again = { ...first, stop_hook_active: true, last_assistant_message: "Done, for real." };
      expect(this.idOf(again)).not.toBe(this.idOf(first));
    });

    it(spec.withoutTurn, () => {
      const first = this.fixture("Stop.json");
      delete first[spec.turnField];
      expect(this.idOf({ ...first, last_assistant_message: "something else" })).not.toBe(this.idOf(first));
      expect(this.idOf({ ...first })).toBe(this.idOf(first));
    });
  }

  /** Two clocks, one id; `stamped`: the event's time is the clock's (not the payload's own). */
  itIgnoresTheClock(file: string, title: string, stamped: boolean): void {
    it(title, () => {
      const payload = this.fixture(file);
      const a = this.normalize(payload, {}, () => "2026-01-01T00:00:00.000Z").events[0]!;
      const b = this.normalize(payload, {}, () => "2026-06-01T00:00:00.000Z").events[0]!;
      expect(a.event_id).toBe(b.event_id);
      if (stamped) expect(a.timestamp).not.toBe(b.timestamp);
    });
  }

  /** An event the normalizer does not know yet: a provider_event of its fields, in the payload's session. */
  expectFutureEvent(common: Json, future: Json & { hook_event_name: string }): NormalizedEvent {
    const { event, context } = this.normalizeOne({ session_id: "s-1", ...common, ...future });
    expect(event.kind).toBe("provider_event");
    expect(event.payload).toEqual(future);
    expect(event.event_id).toMatch(/^provider_event-[0-9a-f]{32}$/);
    expect(context.identity.session_id).toBe(`${this.provider}:s-1`);
    return event;
  }

  /** Beside the record all providers keep of a non-object payload (contract.test.ts), what this one adds. */
  itAddsToTheNonObjectRecord(sample: string, check: (payload: unknown) => void): void {
    const payloads: [unknown, string][] = [
      [null, "null"],
      [[1, 2], "array"],
      [sample, "string"],
      [42, "number"],
      [true, "boolean"],
      [undefined, "undefined"],
    ];
    it.each(payloads)(
      "a non-object payload (%j): what only this provider adds (the shared record: test/providers/contract.test.ts)",
      (payload) => check(payload),
    );
  }

  itIgnoresPrototypeNames(): void {
    it("does not let prototype names select a mapper", () => {
      for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
        expect(this.normalizeOne({ session_id: "s", hook_event_name: name }).event.kind).toBe(
          "provider_event",
        );
      }
    });
  }

  itSurvivesAThrowingClock(sessionId: string): void {
    it("survives a clock that throws", () => {
      const result = this.normalize(this.fixture("Stop.json"), {}, () => {
        throw new Error("no clock");
      });
      expect(result.events).toHaveLength(1);
      expect(result.events[0]!.kind).toBe("provider_event");
      expect(result.events[0]!.payload).toMatchObject({
        hook_event_name: "Stop",
        error: "normalization failed",
      });
      expect(result.context.identity.session_id).toBe(`${this.provider}:${sessionId}`);
    });
  }

  /**
   * The hot path loads these files in every hook: from the core they take types only, but for the zod-free
   * modules `values` names, and zod never.
   */
  expectLeanImports(files: readonly string[], values?: RegExp): void {
    const dir = join(import.meta.dirname, "..", "..", "src", "providers", this.provider);
    for (const file of files) {
      const imports = readFileSync(join(dir, file), "utf8").match(/^import [\s\S]*?from .*$/gm) ?? [];
      for (const line of imports) {
        if (line.includes("/core/") && !values?.test(line)) expect(line, file).toMatch(/^import type /);
        expect(line, file).not.toMatch(/["']zod["']/);
      }
    }
  }

  private idOf(payload: unknown): string {
    return this.normalizeOne(payload).event.event_id;
  }
}
