// @module-tag claude
// @module-tag codex
// @module-tag gemini
/**
 * End to end: the user asks the agent to start or stop recording, and the agent does it through the tapedeck
 * MCP server that `tapedeck install <provider> --mcp` set up, with the real `claude`, `codex` and `gemini` CLIs offline
 * against the mock model servers. The mocks play the model: `SCENARIO_MCP <tool> <json>` makes them call the
 * MCP tool as the client declares it (Claude Code 2.1 defers MCP tools behind ToolSearch; Codex 0.171 puts them
 * in an `mcp__tapedeck` namespace). Per agent, one conversation over several runs (resumed):
 *   before    a command run while recording is dormant: nothing is written
 *   start     record_session {"action":"start"}: recording is on from that call on, nothing earlier is kept
 *   after     a command: recorded in full
 *   status    tapedeck_status: the same compact string as the status line and `tapedeck status --statusline`
 *   stop      record_session {"action":"stop"}: off again, hooks and MCP entry left in place
 *   stopped   a command: nothing is written
 * Then the server is made to fail to start: the agent's run still completes, and nothing starts recording.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { CLAUDE, CODEX, conversation, GEMINI } from "./agents.ts";
import { expectPrivateModes, readEventsFile, snapshot } from "./archive-checks.ts";
import { CLI_JS, HOOK_JS, type Sandbox, useBuild } from "./sandboxes.ts";

useBuild();

const START = 'SCENARIO_MCP record_session {"action":"start"}';
const STOP = 'SCENARIO_MCP record_session {"action":"stop"}';
const STATUS = "SCENARIO_MCP tapedeck_status {}";
const REC = "tapedeck ● REC capture-only";
const OFF = "tapedeck ○ off";

const tapedeckDir = (sb: Sandbox) => join(sb.projectDir, ".tapedeck");
const configOf = (sb: Sandbox, provider: string) =>
  JSON.parse(readFileSync(join(tapedeckDir(sb), "config.json"), "utf8")).providers[provider];
/** The session's events; none when it has no archive (readEventsFile answers [] for a missing file). */
const eventsOf = (sb: Sandbox, provider: string, id: string): Envelope[] =>
  readEventsFile(join(tapedeckDir(sb), `${provider}-sessions`, id, "events.jsonl"));
const text = (events: Envelope[]) => JSON.stringify(events);
/** A resumed run with one shell command, recorded in full (usage aside, checked elsewhere). */
const FULL_TURN = [
  "session_start",
  "user_prompt",
  "tool_call",
  "tool_result",
  "assistant_message",
  "session_end",
];
const kindsAfter = (sb: Sandbox, provider: string, id: string, before: number) =>
  eventsOf(sb, provider, id)
    .slice(before)
    .map((e) => e.kind)
    .filter((k) => k !== "turn_usage");

/** `install --mcp`: the hooks and the MCP server, recording dormant; what install says, as JSON. */
async function installMcp(sb: Sandbox, provider: string): Promise<Record<string, unknown>> {
  const res = await sb.cli(["install", provider, "--yes", "--mcp", "--json"]);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

async function statusLine(sb: Sandbox, provider: string): Promise<string> {
  const res = await sb.cli(["status", "--statusline", "--provider", provider]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.trim();
}

describe("record_session from inside claude", () => {
  const sb = CLAUDE.sandbox("mcp-claude");
  const chat = conversation(CLAUDE, sb);

  it("install --mcp: the server in .mcp.json, approved in settings.local.json, recording dormant", async () => {
    writeFileSync(
      join(sb.projectDir, ".mcp.json"),
      JSON.stringify({ mcpServers: { other: { command: "true" } } }),
    );
    expect(await installMcp(sb, "claude")).toMatchObject({
      recording: "off",
      extras: { mcp: join(sb.projectDir, ".mcp.json") },
    });
    const mcp = JSON.parse(readFileSync(join(sb.projectDir, ".mcp.json"), "utf8"));
    expect(mcp.mcpServers).toEqual({
      other: { command: "true" },
      tapedeck: {
        type: "stdio",
        command: process.execPath,
        args: [CLI_JS, "mcp", "--provider", "claude", "--project", sb.projectDir],
      },
    });
    const local = JSON.parse(readFileSync(join(sb.projectDir, ".claude", "settings.local.json"), "utf8"));
    expect(local.enabledMcpjsonServers).toEqual(["tapedeck"]);
    expect(await statusLine(sb, "claude")).toBe(OFF);
    const doctor = JSON.parse((await sb.cli(["doctor", "--json"])).stdout);
    expect(doctor.providers[0].checks).toContainEqual({
      name: "MCP server",
      status: "ok",
      message: "installed in .mcp.json",
    });
  });

  it("before: a run while recording is dormant writes nothing", async () => {
    const res = await chat.fresh("SCENARIO_BASH echo before-start");
    expect(res.json.result).toBe("Done: before-start");
    expect(eventsOf(sb, "claude", chat.id)).toEqual([]);
  });

  it("start: the agent's record_session call turns recording on from that point", async () => {
    const served = sb.mock.usageLog.length;
    const res = await chat.say(START);
    expect(res.json.result).toContain('"recording":true');
    expect(configOf(sb, "claude")).toMatchObject({ recording: "on", mode: "capture-only" });
    const events = eventsOf(sb, "claude", chat.id);
    // The prompt that asked, and the ToolSearch before the call, came before recording: not kept.
    expect(events.some((e) => e.kind === "user_prompt")).toBe(false);
    expect(events[0]).toMatchObject({
      kind: "tool_result",
      payload: { tool_name: "mcp__tapedeck__record_session" },
    });
    expect(text(events)).not.toContain("before-start");
    // This run's model calls: the ToolSearch, the record_session call, the final reply. Only the reply came
    // after recording began. (The transcript can receive the earlier two after the period's first event, as
    // Claude writes it asynchronously; their line stamps, from before the start, keep them out.)
    const [, , reply] = sb.mock.usageLog.slice(served).map((u) => u.messageId);
    const usage = events.filter((e) => e.kind === "turn_usage").map((e) => e.payload.message_id);
    expect(usage).toEqual([reply]);
  });

  it("after: the next turn is recorded in full", async () => {
    const before = eventsOf(sb, "claude", chat.id).length;
    const res = await chat.say("SCENARIO_BASH echo after-start");
    expect(res.json.result).toBe("Done: after-start");
    expect(kindsAfter(sb, "claude", chat.id, before)).toEqual(FULL_TURN);
  });

  it("status: tapedeck_status, the status line and `tapedeck status --statusline` show the same string", async () => {
    const res = await chat.say(STATUS);
    expect(res.json.result).toContain(`"display":"${REC}"`);
    expect(await statusLine(sb, "claude")).toBe(REC);
    const { execFileSync } = await import("node:child_process");
    const line = execFileSync(process.execPath, [HOOK_JS, "--statusline", "claude"], {
      input: JSON.stringify({ workspace: { project_dir: sb.projectDir } }),
      encoding: "utf8",
    });
    expect(line.trim()).toBe(REC);
  });

  it("stop, then a run that writes nothing; hooks and the MCP entry stay", async () => {
    const res = await chat.say(STOP);
    expect(res.json.result).toContain('"recording":false');
    expect(configOf(sb, "claude").recording).toBe("off");
    expect(await statusLine(sb, "claude")).toBe(OFF);
    const before = snapshot(tapedeckDir(sb));
    const quiet = await chat.say("SCENARIO_BASH echo while-stopped");
    expect(quiet.json.result).toBe("Done: while-stopped");
    expect(snapshot(tapedeckDir(sb))).toEqual(before);
    expect(readFileSync(join(sb.projectDir, ".mcp.json"), "utf8")).toContain('"tapedeck"');
    expectPrivateModes(tapedeckDir(sb));
  });

  it("a server that fails to start: claude still completes and nothing starts recording", async () => {
    const path = join(sb.projectDir, ".mcp.json");
    const mcp = JSON.parse(readFileSync(path, "utf8"));
    mcp.mcpServers.tapedeck.args[0] = join(sb.root, "missing", "cli.js");
    writeFileSync(path, JSON.stringify(mcp));
    const before = snapshot(tapedeckDir(sb));
    const res = await chat.fresh(START);
    expect(res.json.result).toBe("No record_session tool is available.");
    expect(configOf(sb, "claude").recording).toBe("off");
    expect(snapshot(tapedeckDir(sb))).toEqual(before);
    // doctor names the cause.
    const doctor = JSON.parse((await sb.cli(["doctor", "--json"])).stdout);
    const mcpCheck = doctor.providers[0].checks.find((c: { name: string }) => c.name === "MCP server");
    expect(mcpCheck).toMatchObject({
      status: "fail",
      fix: [expect.stringContaining("install claude --mcp")],
    });
    expect(mcpCheck.message).toContain(join(sb.root, "missing", "cli.js"));
  });

  it("uninstall removes the server and its approval, keeping the user's server", async () => {
    // The entry was edited above; put tapedeck's own back so uninstall recognises it.
    const path = join(sb.projectDir, ".mcp.json");
    const mcp = JSON.parse(readFileSync(path, "utf8"));
    mcp.mcpServers.tapedeck.args[0] = CLI_JS;
    writeFileSync(path, JSON.stringify(mcp));
    const res = await sb.cli(["uninstall", "claude"]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ mcpServers: { other: { command: "true" } } });
    // Install created settings.local.json; uninstall left nothing in it, so it is gone, approval and all.
    expect(existsSync(join(sb.projectDir, ".claude", "settings.local.json"))).toBe(false);
  });
});

describe("record_session from inside codex", () => {
  const sb = CODEX.sandbox("mcp-codex");
  const chat = conversation(CODEX, sb);

  it("install --mcp: a marked [mcp_servers.tapedeck] block in .codex/config.toml, recording dormant", async () => {
    expect(await installMcp(sb, "codex")).toMatchObject({ recording: "off" });
    const toml = readFileSync(join(sb.projectDir, ".codex", "config.toml"), "utf8");
    expect(toml).toContain("[mcp_servers.tapedeck]");
    expect(toml).toContain(
      `args = [${[CLI_JS, "mcp", "--provider", "codex", "--project", sb.projectDir].map((a) => JSON.stringify(a)).join(", ")}]`,
    );
    expect(await statusLine(sb, "codex")).toBe(OFF);
  });

  it("before: a run while recording is dormant writes nothing", async () => {
    const res = await chat.fresh("SCENARIO_BASH echo before-start");
    expect(res.finalMessage).toBe("Done: before-start");
    expect(eventsOf(sb, "codex", chat.id)).toEqual([]);
  });

  it("start: the agent's record_session call turns recording on from that point", async () => {
    const served = sb.mock.usageLog.length;
    const res = await chat.say(START);
    expect(res.finalMessage).toContain('"recording":true');
    expect(configOf(sb, "codex")).toMatchObject({ recording: "on", mode: "capture-only" });
    const events = eventsOf(sb, "codex", chat.id);
    expect(events.some((e) => e.kind === "user_prompt")).toBe(false);
    expect(text(events)).not.toContain("before-start");
    expect(events.map((e) => e.kind)).toContain("assistant_message");
    const after = sb.mock.usageLog.slice(served).map((u) => u.responseId);
    for (const e of events.filter((x) => x.kind === "turn_usage"))
      expect(after).toContain(e.payload.response_id);
  });

  it("after: the next turn is recorded in full", async () => {
    const before = eventsOf(sb, "codex", chat.id).length;
    const res = await chat.say("SCENARIO_BASH echo after-start");
    expect(res.finalMessage).toBe("Done: after-start");
    expect(kindsAfter(sb, "codex", chat.id, before)).toEqual(FULL_TURN);
  });

  it("status, stop, and a run that writes nothing", async () => {
    const status = await chat.say(STATUS);
    expect(status.finalMessage).toContain(`"display":"${REC}"`);
    expect(await statusLine(sb, "codex")).toBe(REC);
    const stop = await chat.say(STOP);
    expect(stop.finalMessage).toContain('"recording":false');
    expect(await statusLine(sb, "codex")).toBe(OFF);
    const before = snapshot(tapedeckDir(sb));
    const quiet = await chat.say("SCENARIO_BASH echo while-stopped");
    expect(quiet.finalMessage).toBe("Done: while-stopped");
    expect(snapshot(tapedeckDir(sb))).toEqual(before);
  });

  it("a server that fails to start: codex still completes and nothing starts recording", async () => {
    const path = join(sb.projectDir, ".codex", "config.toml");
    const toml = readFileSync(path, "utf8");
    writeFileSync(
      path,
      toml.replace(JSON.stringify(CLI_JS), JSON.stringify(join(sb.root, "missing", "cli.js"))),
    );
    const before = snapshot(tapedeckDir(sb));
    const res = await chat.fresh(START);
    expect(res.finalMessage).toBe("No record_session tool is available.");
    expect(configOf(sb, "codex").recording).toBe("off");
    expect(snapshot(tapedeckDir(sb))).toEqual(before);
    writeFileSync(path, toml);
  });

  it("uninstall removes exactly the block", async () => {
    const res = await sb.cli(["uninstall", "codex"]);
    expect(res.code, res.stderr).toBe(0);
    // It held only tapedeck's block, so it goes with it.
    expect(existsSync(join(sb.projectDir, ".codex", "config.toml"))).toBe(false);
  });
});

describe("record_session from inside gemini", () => {
  const sb = GEMINI.sandbox("mcp-gemini");
  const chat = conversation(GEMINI, sb);

  it("install --mcp, a dormant run, start, a recorded run, stop, a run that writes nothing", async () => {
    await installMcp(sb, "gemini");
    const settings = JSON.parse(readFileSync(join(sb.projectDir, ".gemini", "settings.json"), "utf8"));
    expect(settings.mcpServers.tapedeck).toEqual({
      command: process.execPath,
      args: [CLI_JS, "mcp", "--provider", "gemini", "--project", sb.projectDir],
    });
    expect((await chat.fresh("SCENARIO_BASH echo before-start")).response).toBe("Done: before-start");
    expect(eventsOf(sb, "gemini", chat.id)).toEqual([]);

    const start = await chat.say(START);
    // Gemini hands the model the tool's text content (in an <untrusted_context> frame), not the JSON.
    expect(start.response).toContain("Recording started (capture-only) for gemini");
    expect(configOf(sb, "gemini").recording).toBe("on");
    const after = await chat.say("SCENARIO_BASH echo after-start");
    expect(after.response).toBe("Done: after-start");
    const events = eventsOf(sb, "gemini", chat.id);
    expect(text(events)).not.toContain("before-start");
    expect(text(events)).toContain("after-start");
    expect(events.filter((e) => e.kind === "user_prompt").map((e) => e.payload.prompt)).toEqual([
      "SCENARIO_BASH echo after-start",
    ]);

    const status = await chat.say(STATUS);
    expect(status.response).toContain(REC);
    const stop = await chat.say(STOP);
    expect(stop.response).toContain("Recording stopped for gemini");
    const before = snapshot(tapedeckDir(sb));
    expect((await chat.say("SCENARIO_BASH echo while-stopped")).response).toBe("Done: while-stopped");
    expect(snapshot(tapedeckDir(sb))).toEqual(before);

    const uninstall = await sb.cli(["uninstall", "gemini"]);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    // Install created .gemini/settings.json; uninstall left nothing in it, so it is gone, MCP entry and all.
    expect(existsSync(join(sb.projectDir, ".gemini", "settings.json"))).toBe(false);
  });
});
