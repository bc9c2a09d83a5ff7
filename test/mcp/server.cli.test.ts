// The tapedeck MCP server over real stdio (the built `tapedeck mcp`), driven by
// the SDK's client: the tools it lists, what start/stop/status do to the
// project's config, the rules in the descriptions, and its errors.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { recordingState } from "../../src/core/hook/status.ts";
import { CLI as CLI_JS, ensureBuilt } from "../helpers/cli-run.ts";
import { runProgram } from "../helpers/program.ts";
import { tempProject } from "../helpers/session.ts";

beforeAll(ensureBuilt, 120_000);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function project(installed: boolean): string {
  const t = tempProject("tapedeck-mcp-");
  cleanups.push(t.cleanup);
  if (installed) {
    writeConfig(t.root, {
      schema_version: 1,
      providers: { claude: { recording: "off", mode: "capture-only" } },
    });
  }
  return t.root;
}

async function connect(cwd: string, provider = "claude"): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_JS, "mcp", "--provider", provider],
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

type ToolResult = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const configOf = (root: string) => JSON.parse(readFileSync(join(root, ".tapedeck", "config.json"), "utf8"));

describe("tapedeck mcp", () => {
  it("lists record_session and tapedeck_status, with the rules in their descriptions", async () => {
    const client = await connect(project(true));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "memory_get",
      "memory_search",
      "record_session",
      "tapedeck_status",
    ]);
    const record = tools.find((t) => t.name === "record_session")!;
    expect(record.inputSchema).toMatchObject({ type: "object", required: ["action"] });
    for (const rule of [
      /only when the user explicitly asks/i,
      /never start recording as a side effect/i,
      /capture-only/i,
      /injects nothing/i,
      /current project and provider/i,
      /stopping only stops recording/i,
    ]) {
      expect(record.description).toMatch(rule);
    }
    expect(tools.find((t) => t.name === "tapedeck_status")!.annotations?.readOnlyHint).toBe(true);
  });

  it("start switches recording on (capture-only), stop off, status reports; only the config changes", async () => {
    const root = project(true);
    const client = await connect(root);
    const started = await call(client, "record_session", { action: "start" });
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({
      action: "start",
      changed: true,
      recording: true,
      mode: "capture-only",
      project: root,
    });
    expect(configOf(root).providers.claude).toEqual({
      recording: "on",
      mode: "capture-only",
      recording_since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await call(client, "record_session", { action: "start" })).structuredContent).toMatchObject({
      changed: false,
    });

    const status = await call(client, "tapedeck_status");
    const expected = recordingState(root, "claude");
    expect(status.structuredContent).toEqual(expected);
    expect(status.structuredContent).toMatchObject({
      installed: true,
      retrieval: "off",
      display: "tapedeck ● REC capture-only",
    });
    // The same compact string as the status line and `tapedeck status --statusline`.
    const line = await runProgram(["status", "--statusline", "--project", root]);
    expect(line.code).toBe(0);
    expect(line.stdout.trim()).toBe(expected.display);
    expect((await call(client, "record_session", { action: "status" })).structuredContent).toMatchObject({
      recording: true,
    });

    const stopped = await call(client, "record_session", { action: "stop" });
    expect(stopped.structuredContent).toMatchObject({
      action: "stop",
      changed: true,
      recording: false,
      display: "tapedeck ○ off",
    });
    expect(stopped.content[0]!.text).toMatch(/hooks and settings are unchanged/);
    expect(configOf(root).providers.claude.recording).toBe("off");
    // Who stopped it stays visible.
    const statusJson = await runProgram(["status", "--json", "--project", root]);
    expect(statusJson.code).toBe(0);
    const shown = JSON.parse(statusJson.stdout);
    expect(shown.last_change).toMatchObject({ provider: "claude", action: "stop", via: "mcp" });
  });

  it("the scope is the provider it was started for, found from a subdirectory of the project", async () => {
    const root = project(true);
    writeConfig(root, {
      schema_version: 1,
      providers: {
        claude: { recording: "off", mode: "capture-only" },
        codex: { recording: "off", mode: "capture-only" },
      },
    });
    mkdirSync(join(root, "src", "deep"), { recursive: true });
    const client = await connect(join(root, "src", "deep"), "codex");
    await call(client, "record_session", { action: "start" });
    expect(configOf(root).providers).toEqual({
      claude: { recording: "off", mode: "capture-only" },
      codex: { recording: "on", mode: "capture-only", recording_since: expect.any(String) },
    });
  });

  it("an unknown action is a tool error that names the allowed ones, and changes nothing", async () => {
    const root = project(true);
    const client = await connect(root);
    const res = await call(client, "record_session", { action: "enable-everything" });
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toBe('unknown action "enable-everything": use "start", "stop" or "status"');
    const missing = await call(client, "record_session", {});
    expect(missing.isError).toBe(true);
    expect(configOf(root).providers.claude.recording).toBe("off");
  });

  it("start where tapedeck is not installed is a tool error, and nothing is created", async () => {
    const root = project(false);
    const client = await connect(root);
    const res = await call(client, "record_session", { action: "start" });
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toContain("tapedeck install claude");
    expect(existsSync(join(root, ".tapedeck"))).toBe(false);
    expect((await call(client, "tapedeck_status")).structuredContent).toMatchObject({
      installed: false,
      recording: false,
    });
  });

  it("an unknown provider is a usage error before any protocol", () => {
    let code = 0;
    try {
      execFileSync(process.execPath, [CLI_JS, "mcp", "--provider", "nope"], { stdio: "pipe" });
    } catch (error) {
      code = (error as { status: number }).status;
    }
    expect(code).toBe(2);
  });
});
