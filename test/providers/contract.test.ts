// One contract for every provider of the catalog (src/providers/catalog.ts):
// a provider added there is held to what the others offer, and the lean
// lists that cannot load the catalog (the hot path's registry, the CLI's
// names, the usage reports' facts) are held to agree with it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROVIDERS, providerName } from "../../src/cli/providers.ts";
import type { NormalizeResult } from "../../src/core/archive/event.ts";
import {
  CATALOG,
  installable,
  installerFor,
  providerEntry,
  subagentToolsOf,
} from "../../src/providers/catalog.ts";
import { IDENTITIES } from "../../src/providers/identity.ts";
import type { Settings } from "../../src/providers/installer.ts";
import { INSTALLERS } from "../../src/providers/installers.ts";
import { ADAPTERS, ARGV_HOOKS, adapterFor } from "../../src/providers/registry.ts";
import { STATUS_LINES } from "../../src/providers/status-lines.ts";
import { USAGE_FACTS } from "../../src/providers/usage-facts.ts";
import { API_USAGE_READERS } from "../../src/proxy/extensions/archive-feed.ts";

const FIXTURES = join(process.cwd(), "test", "fixtures");
/** Captured files beside the hook payloads that are not hook payloads. */
const NOT_HOOK_PAYLOADS = /^(hook-env|settings\.sample|notify\..*)\.json$/;

function hookPayloads(provider: string): string[] {
  return readdirSync(join(FIXTURES, provider))
    .filter((f) => f.endsWith(".json") && !NOT_HOOK_PAYLOADS.test(f))
    .sort();
}

function payload(provider: string, file: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, provider, file), "utf8"));
}

const NON_OBJECTS: unknown[] = [null, undefined, 0, 42, -1.5, "", "text", true, false, [], [1, "two"], [{}]];

const entries = Object.entries(CATALOG);

/** The ids a hook would append: normalize, then enrich from no saved state (as a retry whose state was lost). */
function idsOf(name: string, p: unknown): string[] {
  const adapter = CATALOG[name]!.adapter;
  const result: NormalizeResult = adapter.normalize(p, {});
  const enriched = adapter.enrich?.(result, undefined);
  return [...(enriched?.events ?? []), ...result.events].map((e) => e.event_id);
}

describe("the catalog and the lean lists", () => {
  it("names each provider's subagent-starting tools as distinct, non-empty names (none for an unknown one)", () => {
    for (const [name, entry] of entries) {
      const tools = entry.subagentTools ?? [];
      expect(subagentToolsOf(name), name).toEqual(tools);
      for (const t of tools) expect(t.trim(), name).not.toBe("");
      expect(new Set(tools.map((t) => t.toLowerCase())).size, name).toBe(tools.length);
    }
    expect(subagentToolsOf("claude")).toContain("Agent");
    expect(subagentToolsOf("no-such-provider")).toEqual([]);
  });

  it("lists the hot path's adapters, the same objects in the same order", () => {
    expect(Object.keys(ADAPTERS)).toEqual(Object.keys(CATALOG));
    for (const [name, entry] of entries) expect(adapterFor(name), name).toBe(entry.adapter);
  });

  it("lists the names the CLI knows, in the same order", () => {
    expect(PROVIDERS).toEqual(Object.keys(CATALOG));
  });

  it("gives the installers and the API usage readers from the entries, in catalog order", () => {
    expect(Object.keys(INSTALLERS)).toEqual(installable());
    for (const name of installable()) expect(INSTALLERS[name]).toBe(installerFor(name));
    expect(API_USAGE_READERS).toEqual(entries.flatMap(([, e]) => (e.apiUsage ? [e.apiUsage] : [])));
  });

  it("gives the usage reports each entry's usage facts, the same objects in the same order", () => {
    expect(Object.keys(USAGE_FACTS)).toEqual(Object.keys(CATALOG));
    for (const [name, entry] of entries) expect(USAGE_FACTS[name], name).toBe(entry.usage);
  });

  it("gives the exports and the CLI each entry's identity, the same objects in the same order", () => {
    expect(Object.keys(IDENTITIES)).toEqual(Object.keys(CATALOG));
    for (const [name, entry] of entries) {
      expect(IDENTITIES[name], name).toBe(entry.identity);
      expect(entry.identity.name, name).toBe(entry.adapter.name);
      expect(entry.identity.displayName, name).toBe(entry.adapter.displayName);
    }
  });

  it("gives the hook entry each entry's status line and argument-borne capture path", () => {
    const having = (part: "statusLine" | "argvHook") => entries.filter(([, e]) => e[part]).map(([n]) => n);
    expect(Object.keys(STATUS_LINES)).toEqual(having("statusLine"));
    expect(Object.keys(ARGV_HOOKS)).toEqual(having("argvHook"));
    for (const [name, entry] of entries) {
      if (entry.statusLine) expect(STATUS_LINES[name], name).toBe(entry.statusLine);
      if (entry.argvHook) expect(ARGV_HOOKS[name], name).toBe(entry.argvHook);
    }
  });

  it("knows no provider outside it", () => {
    for (const name of ["", "toString", "__proto__", "constructor", "claude ", "CLAUDE"]) {
      expect(providerEntry(name), name).toBeUndefined();
      expect(adapterFor(name), name).toBeUndefined();
    }
  });
});

describe.each(entries)("provider %s", (name, entry) => {
  const { adapter } = entry;

  it("names itself by its catalog key and has a display name the CLI shows", () => {
    expect(adapter.name).toBe(name);
    expect(adapter.displayName.trim().length).toBeGreaterThan(0);
    expect(adapter.displayName).not.toBe(name);
    expect(providerName(name)).toBe(adapter.displayName);
  });

  it("has captured hook payloads to be held to", () => {
    expect(hookPayloads(name).length).toBeGreaterThan(0);
  });

  it.each(NON_OBJECTS.map((p) => [JSON.stringify(p) ?? "undefined", p]))(
    "keeps a non-object payload %s as a provider_event, without throwing",
    (_label, p) => {
      const result = adapter.normalize(p, {});
      expect(result.events.length).toBeGreaterThan(0);
      expect(result.events.every((e) => e.kind === "provider_event")).toBe(true);
      expect(() => adapter.enrich?.(result, undefined)).not.toThrow();
      // The same record from every provider: what the payload was, under a stable id, in a local session.
      const [event] = result.events;
      const type = p === null ? "null" : Array.isArray(p) ? "array" : typeof p;
      expect(event!.payload).toEqual({
        hook_event_name: "unknown",
        error: "payload is not a JSON object",
        type,
      });
      expect(event!.event_id).toMatch(/^provider_event-[0-9a-f]{32}$/);
      expect(result.context.identity.identity_source).toBe("local");
      expect(result.context.identity.provider_session_id).toBeNull();
      expect(result.context.identity.session_id).toMatch(new RegExp(`^${name}:local-[0-9a-f-]{36}$`));
    },
  );

  it("names an object payload without an event name 'unknown' and keeps its fields", () => {
    const [event] = adapter.normalize({ session_id: "s-1", something: 1 }, {}).events;
    expect(event!.kind).toBe("provider_event");
    expect(event!.payload).toEqual({ hook_event_name: "unknown", something: 1 });
  });

  it("keeps an unknown event as a provider_event, without throwing", () => {
    for (const p of [
      { hook_event_name: "NoSuchEvent", session_id: "s-unknown" },
      { hook_event_name: 42, session_id: ["not", "a", "string"] },
      { session_id: "s-unknown" },
      {},
    ]) {
      const result = adapter.normalize(p, {});
      expect(result.events.length, JSON.stringify(p)).toBeGreaterThan(0);
      expect(result.events.every((e) => e.kind === "provider_event")).toBe(true);
      expect(() => adapter.enrich?.(result, undefined)).not.toThrow();
    }
  });

  it("gives a retried hook with an identical payload the same ids", () => {
    for (const file of hookPayloads(name)) {
      // Some payloads append nothing by design (Gemini's AfterModel chunk before the final one).
      const first = idsOf(name, payload(name, file));
      expect(idsOf(name, payload(name, file)), file).toEqual(first);
    }
    for (const p of NON_OBJECTS) expect(idsOf(name, p)).toEqual(idsOf(name, p));
  });

  it("appends something for most captured payloads (a normalizer that drops everything fails here)", () => {
    const files = hookPayloads(name);
    const appending = files.filter((file) => idsOf(name, payload(name, file)).length > 0);
    expect(appending.length).toBeGreaterThan(files.length / 2);
  });

  it("offers parts that name it", () => {
    if (entry.installer) expect(entry.installer.provider).toBe(name);
    if (entry.apiUsage) expect(entry.apiUsage.provider).toBe(name);
    for (const check of entry.doctorChecks ?? []) expect(typeof check).toBe("function");
  });
});

const withInstaller = entries.filter(([, e]) => e.installer);

describe.each(withInstaller)("installer of %s", (name, entry) => {
  const installer = entry.installer!;
  const spec = { command: `'/usr/bin/node' '/opt/tapedeck/dist/hook.cjs' ${name}`, timeoutSeconds: 10 };

  /** The user's own settings: an entry of theirs under every event tapedeck uses, one under another, and more. */
  function foreign(): Settings {
    const probe: Settings = {};
    installer.add(probe, spec);
    const events = Object.keys((probe.hooks ?? {}) as Record<string, unknown>);
    const hooks: Record<string, unknown> = { NotTapedecksEvent: [mine("other")] };
    for (const event of events) hooks[event] = [mine(event)];
    return { hooks, model: "users-own", nested: { keep: [1, 2, 3] } };
  }

  function mine(event: string) {
    return { matcher: "*", hooks: [{ type: "command", command: `./my-own-hook.sh ${event}`, timeout: 5 }] };
  }

  it("adds exactly its hook events and counts them", () => {
    const settings = foreign();
    expect(installer.count(settings)).toBe(0);
    installer.add(settings, spec);
    expect(installer.hookEvents).toBeGreaterThan(0);
    expect(installer.count(settings)).toBe(installer.hookEvents);
    // doctor reads with the rule that wrote: every entry found is one counted, running the command it wrote.
    const found = installer.find(settings);
    expect(found.length).toBe(installer.hookEvents);
    expect(found.every((h) => h.command === `${spec.command} # tapedeck`)).toBe(true);
  });

  it("adds idempotently: a second install replaces its entries", () => {
    const once = foreign();
    installer.add(once, spec);
    const twice = structuredClone(once);
    installer.add(twice, spec);
    expect(twice).toEqual(once);
    expect(installer.count(twice)).toBe(installer.hookEvents);
  });

  it("removes exactly its own entries and leaves the user's as they were", () => {
    const settings = foreign();
    installer.add(settings, spec);
    // At least each hook; Gemini counts its marker of the other settings install added too.
    expect(installer.remove(settings)).toBeGreaterThanOrEqual(installer.hookEvents);
    expect(settings).toEqual(foreign());
    expect(installer.count(settings)).toBe(0);
    expect(installer.find(settings)).toEqual([]);
    expect(installer.remove(settings)).toBe(0);
  });

  it("names a project-local settings file", () => {
    const path = installer.settingsPath(join("/", "srv", "project"));
    expect(path.startsWith(join("/", "srv", "project"))).toBe(true);
    expect(installer.transports.length).toBeGreaterThan(0);
  });
});
