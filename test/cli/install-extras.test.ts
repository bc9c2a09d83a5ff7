// The pieces `tapedeck install <provider> --mcp / --notify` adds beside the
// hooks: each is added once (idempotent), never replaces a user's entry of the
// same name, and is removed exactly, leaving the user's file as it was.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeMcpExtra } from "../../src/providers/claude/mcp-installer.ts";
import { codexMcpExtra } from "../../src/providers/codex/mcp-installer.ts";
import { geminiMcpExtra } from "../../src/providers/gemini/mcp-installer.ts";
import type { ExtraCommand, Settings } from "../../src/providers/installer.ts";
import { isOurMcpEntry } from "../../src/providers/mcp-entry.ts";
import { writeAgentFile } from "../../src/providers/settings-file.ts";
import { tempProject } from "../helpers/session.ts";

const CMD: ExtraCommand = {
  node: "/usr/bin/node",
  hook: "/opt/tapedeck/dist/hook.cjs",
  cli: "/opt/tapedeck/dist/cli.js",
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(): string {
  const t = tempProject("tapedeck-extras-");
  cleanups.push(t.cleanup);
  return t.root;
}

describe("claude --mcp", () => {
  it("adds the server to .mcp.json and approves it; removal leaves the user's servers and approvals", () => {
    const root = project();
    const user = { mcpServers: { docs: { command: "docs-server", args: ["--stdio"] } } };
    writeFileSync(join(root, ".mcp.json"), JSON.stringify(user, null, 2));
    const settings: Settings = { enabledMcpjsonServers: ["docs"] };
    claudeMcpExtra.add(root, CMD, settings);
    claudeMcpExtra.add(root, CMD, settings);
    const json = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8"));
    expect(json.mcpServers).toEqual({
      docs: { command: "docs-server", args: ["--stdio"] },
      tapedeck: {
        type: "stdio",
        command: "/usr/bin/node",
        args: [CMD.cli, "mcp", "--provider", "claude", "--project", root],
      },
    });
    expect(settings.enabledMcpjsonServers).toEqual(["docs", "tapedeck"]);
    expect(claudeMcpExtra.present(root, settings)).toBe(true);
    expect(claudeMcpExtra.runs?.(root, settings)).toEqual([
      "/usr/bin/node",
      CMD.cli,
      "mcp",
      "--provider",
      "claude",
      "--project",
      root,
    ]);
    expect(claudeMcpExtra.remove(root, settings)).toBe(true);
    expect(JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8"))).toEqual(user);
    expect(settings.enabledMcpjsonServers).toEqual(["docs"]);
    expect(claudeMcpExtra.remove(root, settings)).toBe(false);
  });

  it("a .mcp.json that held only tapedeck's server goes with it", () => {
    const root = project();
    const settings: Settings = {};
    claudeMcpExtra.add(root, CMD, settings);
    expect(claudeMcpExtra.remove(root, settings)).toBe(true);
    expect(existsSync(join(root, ".mcp.json"))).toBe(false);
    expect(settings).toEqual({});
  });

  it("never replaces a user's server named tapedeck, nor a file it cannot parse", () => {
    const root = project();
    const theirs = JSON.stringify({ mcpServers: { tapedeck: { command: "tapedeck-cloud" } } });
    writeFileSync(join(root, ".mcp.json"), theirs);
    expect(() => claudeMcpExtra.add(root, CMD, {})).toThrow(/not tapedeck's/);
    const approved: Settings = { enabledMcpjsonServers: ["tapedeck"] };
    expect(claudeMcpExtra.remove(root, approved)).toBe(false);
    // Their server keeps its approval too.
    expect(approved.enabledMcpjsonServers).toEqual(["tapedeck"]);
    expect(readFileSync(join(root, ".mcp.json"), "utf8")).toBe(theirs);
    writeFileSync(join(root, ".mcp.json"), "{ nope");
    expect(() => claudeMcpExtra.add(root, CMD, {})).toThrow(/not a JSON object/);
  });
});

describe("gemini --mcp", () => {
  it("adds mcpServers.tapedeck to the settings install writes, and removes exactly it", () => {
    const settings: Settings = { mcpServers: { other: { command: "x" } }, hooks: {} };
    geminiMcpExtra.add("/p", CMD, settings);
    expect(settings.mcpServers).toEqual({
      other: { command: "x" },
      tapedeck: {
        command: "/usr/bin/node",
        args: [CMD.cli, "mcp", "--provider", "gemini", "--project", "/p"],
      },
    });
    expect(geminiMcpExtra.present("/p", settings)).toBe(true);
    expect(geminiMcpExtra.runs?.("/p", settings)).toEqual([
      "/usr/bin/node",
      CMD.cli,
      "mcp",
      "--provider",
      "gemini",
      "--project",
      "/p",
    ]);
    expect(geminiMcpExtra.remove("/p", settings)).toBe(true);
    expect(settings).toEqual({ mcpServers: { other: { command: "x" } }, hooks: {} });
    const bad: Settings = { mcpServers: [] };
    expect(() => geminiMcpExtra.add("/p", CMD, bad)).toThrow(/not an object/);
  });
});

describe("codex --mcp", () => {
  it("appends a marked block to .codex/config.toml and removes it to the byte", () => {
    const root = project();
    mkdirSync(join(root, ".codex"));
    const user = '# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs"\n';
    writeFileSync(join(root, ".codex", "config.toml"), user);
    codexMcpExtra.add(root, CMD, {});
    codexMcpExtra.add(root, CMD, {});
    const text = readFileSync(join(root, ".codex", "config.toml"), "utf8");
    expect(text.startsWith(user)).toBe(true);
    expect(text.match(/\[mcp_servers\.tapedeck\]/g)).toHaveLength(1);
    expect(codexMcpExtra.present(root, {})).toBe(true);
    expect(codexMcpExtra.runs?.(root, {})).toEqual([
      "/usr/bin/node",
      CMD.cli,
      "mcp",
      "--provider",
      "codex",
      "--project",
      root,
    ]);
    expect(codexMcpExtra.remove(root, {})).toBe(true);
    expect(readFileSync(join(root, ".codex", "config.toml"), "utf8")).toBe(user);
  });

  it("never replaces a user's [mcp_servers.tapedeck]", () => {
    const root = project();
    mkdirSync(join(root, ".codex"));
    writeFileSync(join(root, ".codex", "config.toml"), '[mcp_servers.tapedeck.env]\nX = "1"\n');
    expect(() => codexMcpExtra.add(root, CMD, {})).toThrow(/not tapedeck's/);
  });
});

describe("agent config files", () => {
  it("a symlinked file is written at its target (the link stays) and keeps its mode", () => {
    const root = project();
    const target = join(root, "dotfiles", "config.toml");
    mkdirSync(join(root, "dotfiles"));
    writeFileSync(target, 'model = "o3"\n', { mode: 0o644 });
    const link = join(root, "config.toml");
    symlinkSync(target, link);
    writeAgentFile(link, 'model = "o4"\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe('model = "o4"\n');
    expect(statSync(target).mode & 0o777).toBe(0o644);
    writeAgentFile(join(root, "new.toml"), "x = 1\n");
    expect(statSync(join(root, "new.toml")).mode & 0o777).toBe(0o600);
  });

  it("a project file linked to outside the project is not written through", () => {
    const root = project();
    const outside = project();
    const target = join(outside, "victim.toml");
    writeFileSync(target, 'keep = "me"\n');
    mkdirSync(join(root, ".codex"));
    symlinkSync(target, join(root, ".codex", "config.toml"));
    expect(() => codexMcpExtra.add(root, CMD, {})).toThrow(/symlink to outside/);
    expect(readFileSync(target, "utf8")).toBe('keep = "me"\n');
    symlinkSync(target, join(root, ".mcp.json"));
    expect(() => claudeMcpExtra.add(root, CMD, {})).toThrow();
    expect(readFileSync(target, "utf8")).toBe('keep = "me"\n');
  });

  it("a symlinked file left blank by a removal is emptied at its target, the link kept", () => {
    const root = project();
    mkdirSync(join(root, "dot"));
    const target = join(root, "dot", "config.toml");
    writeFileSync(target, "");
    mkdirSync(join(root, ".codex"));
    symlinkSync(target, join(root, ".codex", "config.toml"));
    codexMcpExtra.add(root, CMD, {});
    expect(readFileSync(target, "utf8")).toContain("[mcp_servers.tapedeck]");
    expect(codexMcpExtra.remove(root, {})).toBe(true);
    expect(lstatSync(join(root, ".codex", "config.toml")).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("");
  });

  it("a table another program put inside the block survives removal; keys added to tapedeck's table go", () => {
    const root = project();
    codexMcpExtra.add(root, CMD, {});
    const path = join(root, ".codex", "config.toml");
    const text = readFileSync(path, "utf8").replace(
      "# <<< tapedeck mcp",
      'startup_timeout_sec = 30\n[profiles.fast]\nmodel = "o4-mini"\n# <<< tapedeck mcp',
    );
    writeFileSync(path, text);
    expect(codexMcpExtra.remove(root, {})).toBe(true);
    expect(readFileSync(path, "utf8")).toBe('[profiles.fast]\nmodel = "o4-mini"\n');
  });

  it("a .codex/config.toml that held only tapedeck's block goes with it", () => {
    const root = project();
    codexMcpExtra.add(root, CMD, {});
    expect(codexMcpExtra.remove(root, {})).toBe(true);
    expect(existsSync(join(root, ".codex", "config.toml"))).toBe(false);
  });
});

describe("isOurMcpEntry", () => {
  it("is a cli.js run with mcp as its first argument", () => {
    expect(isOurMcpEntry({ command: "node", args: ["/x/dist/cli.js", "mcp", "--provider", "codex"] })).toBe(
      true,
    );
    expect(isOurMcpEntry({ command: "tapedeck", args: ["mcp"] })).toBe(false);
    expect(isOurMcpEntry({ command: "node", args: ["/x/dist/cli.js", "serve"] })).toBe(false);
    expect(isOurMcpEntry(null)).toBe(false);
  });
});
