// `tapedeck record start|stop` and the MCP tool record_session switch recording with one function
// (core/hook/recording-control.ts). What each keeps of its own: the CLI leaves the mode the user configured, the
// MCP tool starts capture-only (the agent may start recording, nothing more); both log who switched.
import { afterEach, describe, expect, it } from "vitest";
import { type ProjectConfig, readConfig, writeConfig } from "../../src/core/archive/config.ts";
import { lastControlChange } from "../../src/core/hook/control-log.ts";
import { switchRecording } from "../../src/core/hook/recording-control.ts";
import { recordSession } from "../../src/mcp/control.ts";
import { runProgram } from "../helpers/program.ts";
import { tempProject } from "../helpers/session.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(providers: ProjectConfig["providers"]): string {
  const t = tempProject("tapedeck-switch-");
  cleanups.push(t.cleanup);
  writeConfig(t.root, { schema_version: 1, providers });
  return t.root;
}

describe("switchRecording", () => {
  it("refuses before changing anything when one provider asked for is not installed", () => {
    const root = project({ claude: { recording: "off", mode: "capture-only" } });
    const result = switchRecording(root, { providers: ["claude", "codex"], on: true, via: "cli" });
    expect(result).toEqual({ installed: false, missing: "codex" });
    expect(readConfig(root)?.providers.claude?.recording).toBe("off");
    expect(lastControlChange(root, "claude")).toBeUndefined();
  });

  it("answers not installed for a project without providers", () => {
    const root = project({});
    expect(switchRecording(root, { providers: [], on: false, via: "mcp" })).toEqual({ installed: false });
  });

  it("switches each provider, logs one change per provider switched, none for one already there", () => {
    const root = project({
      claude: { recording: "off", mode: "capture-only" },
      codex: { recording: "on", mode: "capture-only" },
    });
    const result = switchRecording(root, { providers: ["claude", "codex"], on: true, via: "cli" });
    expect(result).toEqual({ installed: true, changed: ["claude"] });
    const config = readConfig(root)!;
    expect(config.providers.claude?.recording).toBe("on");
    expect(config.providers.claude?.recording_since).toBeTypeOf("string");
    expect(lastControlChange(root, "claude")).toMatchObject({ action: "start", via: "cli" });
    expect(lastControlChange(root, "codex")).toBeUndefined();
  });

  it("keeps the configured mode unless a start mode is asked for", () => {
    const root = project({ claude: { recording: "off", mode: "ab" } });
    switchRecording(root, { providers: ["claude"], on: true, via: "cli" });
    expect(readConfig(root)?.providers.claude?.mode).toBe("ab");
    switchRecording(root, { providers: ["claude"], on: false, via: "cli" });
    switchRecording(root, { providers: ["claude"], on: true, via: "mcp", startMode: "capture-only" });
    expect(readConfig(root)?.providers.claude?.mode).toBe("capture-only");
  });
});

describe("the MCP tool through it", () => {
  it("starts capture-only and logs the change as the agent's", () => {
    const root = project({ claude: { recording: "off", mode: "ab" } });
    const result = recordSession("start", { provider: "claude", startDir: root });
    expect(result.changed).toBe(true);
    expect(result.message).toContain("Recording started (capture-only)");
    expect(readConfig(root)?.providers.claude).toMatchObject({ recording: "on", mode: "capture-only" });
    expect(lastControlChange(root, "claude")).toMatchObject({ action: "start", via: "mcp" });
  });

  it("stops where tapedeck is not installed without an error, and refuses to start there", () => {
    const root = project({});
    expect(recordSession("stop", { provider: "claude", startDir: root }).message).toBe(
      "Not recording: tapedeck is not installed here.",
    );
    expect(() => recordSession("start", { provider: "claude", startDir: root })).toThrow(/not installed/);
  });
});

describe("the CLI through it", () => {
  it("`record start` keeps the mode the user configured and logs the change as the CLI's", async () => {
    const root = project({ claude: { recording: "off", mode: "ab" } });
    const r = await runProgram(["record", "start", "--project", root]);
    expect(r.code).toBe(0);
    expect(readConfig(root)?.providers.claude).toMatchObject({ recording: "on", mode: "ab" });
    expect(lastControlChange(root, "claude")).toMatchObject({ action: "start", via: "cli" });
  });

  it("`record stop` of a provider not installed changes nothing and fails", async () => {
    const root = project({ claude: { recording: "on", mode: "capture-only" } });
    const r = await runProgram(["record", "stop", "--provider", "codex", "--project", root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Codex CLI is not installed");
    expect(readConfig(root)?.providers.claude?.recording).toBe("on");
  });
});
