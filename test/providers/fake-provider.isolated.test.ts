// Adding a provider is its folder and one catalog line: a provider no reader knows (test/providers/fake/
// quill.ts, built as a contributor builds one) is registered the way the catalog lists one, its lean lists
// beside it, and a session recorded through the core's hook path opens in list, show and the OTLP mapping
// with its own names and the meaning of its own counts, no reader asked which provider it is. Its own usage
// sources pass the archive's schema and are published, an exported promptfoo conversation plays through its
// own command line, and a replay started inside one of its sessions inherits none of its variables.
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { runHook } from "../../src/core/hook/recorder.ts";
import type { UsageFacts } from "../../src/core/read/usage-facts.ts";
import { CATALOG, type ProviderEntry } from "../../src/providers/catalog.ts";
import { IDENTITIES, type ProviderIdentity } from "../../src/providers/identity.ts";
import { ADAPTERS } from "../../src/providers/registry.ts";
import type { ProviderAdapter } from "../../src/providers/types.ts";
import { USAGE_FACTS } from "../../src/providers/usage-facts.ts";
import { tempProject } from "../helpers/temp-project.ts";
import { quillProvider } from "./fake/quill.ts";

/** The one line a contributor adds to the catalog, and the same entry's parts in the lean lists. */
function register(name: string, entry: ProviderEntry): () => void {
  const lists = [
    [CATALOG, entry],
    [ADAPTERS, entry.adapter],
    [IDENTITIES, entry.identity],
    [USAGE_FACTS, entry.usage],
  ] as Array<[Record<string, ProviderEntry | ProviderAdapter | ProviderIdentity | UsageFacts>, never]>;
  for (const [list, part] of lists) list[name] = part;
  return () => {
    for (const [list] of lists) delete list[name];
  };
}

const SESSION = "4f1c2a9e-0000-4000-8000-00000000beef";
const T = "2026-03-01T10:00:0";
const payloads = (cwd: string) => [
  { event: "start", seq: 1, at: `${T}0.000Z`, session: SESSION, cwd },
  { event: "prompt", seq: 2, at: `${T}1.000Z`, session: SESSION, cwd, turn: "t1", prompt: "list the files" },
  {
    event: "tool",
    seq: 3,
    at: `${T}2.000Z`,
    session: SESSION,
    cwd,
    turn: "t1",
    tool_name: "shell",
    tool_use_id: "call-1",
    tool_input: { command: "ls" },
  },
  {
    event: "result",
    seq: 4,
    at: `${T}3.000Z`,
    session: SESSION,
    cwd,
    turn: "t1",
    tool_name: "shell",
    tool_use_id: "call-1",
    tool_response: "README.md",
  },
  {
    event: "answer",
    seq: 5,
    at: `${T}4.000Z`,
    session: SESSION,
    cwd,
    turn: "t1",
    text: "One file: README.md",
    // 1,000 input tokens of which 400 came from the cache: Quill's input includes them.
    usage: {
      source: "quill-hook",
      model: "quill-1",
      message_id: "r1",
      input_tokens: 1000,
      cache_read_input_tokens: 400,
      output_tokens: 50,
    },
  },
  // Its log's record of the same response: the reasoning count the hook left out.
  {
    event: "log",
    seq: 6,
    at: `${T}4.500Z`,
    session: SESSION,
    cwd,
    turn: "t1",
    usage: { source: "quill-log", model: "quill-1", message_id: "log-r1", reasoning_output_tokens: 30 },
  },
  { event: "end", seq: 7, at: `${T}5.000Z`, session: SESSION, cwd },
];

/** Each line of a JSON-lines file, parsed. */
function jsonLines(path: string): unknown[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

async function output(run: (program: Command) => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => {
    chunks.push(String(c));
    return true;
  });
  try {
    const program = new Command().exitOverride();
    await run(program);
  } finally {
    spy.mockRestore();
  }
  return chunks.join("");
}

describe("a provider added as one folder and one catalog line", () => {
  let project: { root: string; cleanup: () => void };
  let unregister: () => void;

  beforeAll(() => {
    unregister = register("quill", quillProvider);
    project = tempProject();
    writeConfig(project.root, {
      schema_version: 1,
      providers: { quill: { recording: "on", mode: "capture-only" } },
    } as never);
    for (const p of payloads(project.root)) {
      const data = Buffer.from(JSON.stringify(p));
      const r = runHook(quillProvider.adapter, { data, overflow: false }, {}, project.root);
      expect(r.status, JSON.stringify(r)).not.toBe("not-enabled");
    }
  });

  afterAll(() => {
    unregister();
    project.cleanup();
  });

  /** The session directory the hooks recorded into. */
  function recorded(): string {
    const dir = join(project.root, ".tapedeck", "quill-sessions");
    return join(dir, readdirSync(dir)[0] as string);
  }

  it("lists its session by its display name, each token once", async () => {
    const list = await import("../../src/cli/commands/list.ts");
    const out = await output((program) => {
      list.register(program);
      return program.parseAsync(["node", "tapedeck", "list", "--project", project.root]);
    });
    const row = out.split("\n").find((l) => l.includes(SESSION.slice(0, 8)));
    expect(row, out).toContain("Quill CLI");
    // 1,000 in (the 400 cache reads among them) + 50 out.
    expect(row).toContain(` ${list.compactCount(1050)} `);
    expect(row).not.toContain(` ${list.compactCount(1450)} `);
  });

  it("shows its turn: the prompt, the tool call with its result, the answer", async () => {
    const show = await import("../../src/cli/commands/show.ts");
    const out = await output((program) => {
      show.register(program);
      return program.parseAsync(["node", "tapedeck", "show", SESSION, "--project", project.root]);
    });
    expect(out).toContain("list the files");
    expect(out).toContain("shell");
    expect(out).toContain("README.md");
    expect(out).toContain("One file: README.md");
  });

  it("writes usage sources the archive's schema takes, which the published list then names", async () => {
    const { Envelope } = await import("../../src/core/archive/schemas.ts");
    const { knownUsageSources } = await import("../../src/providers/usage-sources.ts");
    const events = jsonLines(join(recorded(), "events.jsonl")) as Array<{ usage?: { source: string } }>;
    expect(events.map((e) => e.usage?.source).filter(Boolean)).toEqual(["quill-hook", "quill-log"]);
    for (const e of events) expect(Envelope.safeParse(e).error).toBeUndefined();
    expect(knownUsageSources()).toMatchObject(quillProvider.usage.sources);
  });

  it("plays a promptfoo conversation through its own command line in agent.cjs", async () => {
    const { conversationProvider } = await import("../../src/scenario/promptfoo-agent.ts");
    const out = join(project.root, "promptfoo");
    mkdirSync(join(out, "workspace"), { recursive: true });
    writeFileSync(join(out, "agent.cjs"), conversationProvider("quill"));
    // A stand-in for quill: logs its arguments, answers the prompt it read on stdin in Quill's JSON.
    const log = join(out, "calls.jsonl");
    const bin = join(out, "quill");
    writeFileSync(
      bin,
      `#!/usr/bin/env node
const input = require("node:fs").readFileSync(0, "utf8");
require("node:fs").appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + "\\n");
console.log(JSON.stringify({ session: "q-1", answer: "answer to " + input, input: 10, output: 2 }));
`,
    );
    chmodSync(bin, 0o755);
    const Agent = createRequire(import.meta.url)(join(out, "agent.cjs")) as new (
      o: unknown,
    ) => { callApi(prompt: string): Promise<Record<string, unknown>> };
    const messages = [
      { role: "user", content: "list the files" },
      { role: "user", content: "and the largest?" },
    ];
    const r = await new Agent({ config: { bin } }).callApi(JSON.stringify(messages));
    expect(r).toMatchObject({
      output: "answer to and the largest?",
      tokenUsage: { prompt: 20, completion: 4, total: 24, numRequests: 2 },
      metadata: { session_id: "q-1", turns: 2 },
    });
    expect(jsonLines(log)).toEqual([
      ["run", "--json"],
      ["run", "--json", "--resume", "q-1"],
    ]);
  });

  it("keeps its session's variables out of a replay started inside it", async () => {
    const { inheritedEnv } = await import("../../src/experiment/orchestrator.ts");
    const env = { PATH: "/bin", QUILL_SESSION_ID: SESSION, QUILL_PROJECT_DIR: "/p", QUILL_THEME: "dark" };
    expect(inheritedEnv(env)).toEqual({ PATH: "/bin", QUILL_THEME: "dark" });
  });

  it("maps to OTLP spans under its own names, its input taken as including the cache", async () => {
    const { mapSession, readManifest } = await import("../../src/otel/map.ts");
    const { ATTR } = await import("../../src/otel/semconv.ts");
    const sessionDir = recorded();
    const manifest = readManifest(sessionDir);
    expect(manifest?.provider).toBe("quill");
    const mapping = mapSession(sessionDir, manifest!, { now: Date.parse("2027-01-01T00:00:00Z") });
    const spans = JSON.stringify(mapping);
    expect(spans).toContain('"quill.ai"');
    expect(spans).toContain('"quill-cli"');
    const text = JSON.stringify(mapping);
    expect(text).toContain(ATTR.inputTokens);
    expect(text).toMatch(new RegExp(`"${ATTR.inputTokens.replace(/\./g, "\\.")}"[^}]*?1000\\b`));
    expect(text).not.toMatch(/\b1400\b/);
  });

  it("completes its hook's response with its log's record, as its usage facts pair them: one chat span", async () => {
    const { mapSession, readManifest } = await import("../../src/otel/map.ts");
    const { ATTR } = await import("../../src/otel/semconv.ts");
    const mapping = mapSession(recorded(), readManifest(recorded())!, {
      now: Date.parse("2027-01-01T00:00:00Z"),
    });
    const chats = mapping.turns.flatMap((t) => t.spans).filter((s) => s.name.startsWith("chat "));
    expect(chats).toHaveLength(1);
    expect(chats[0]!.attributes).toMatchObject({
      [ATTR.inputTokens]: 1000,
      [ATTR.reasoningTokens]: 30,
      "tapedeck.usage.source": "quill-hook",
    });
  });
});
