// The one editor of the hooks table (src/providers/hooks-table.ts) and the
// quirks each installer keeps beside it: what is tapedeck's is found, counted
// and removed by the same rule that wrote it, and nothing else is touched.
import { describe, expect, it } from "vitest";
import { claudeInstaller } from "../../src/providers/claude/installer.ts";
import {
  CODEX_HOOK_EVENTS,
  codexInstaller,
  installedCodexHooks,
} from "../../src/providers/codex/installer.ts";
import { geminiInstaller } from "../../src/providers/gemini/installer.ts";
import {
  appendHooks,
  countHooks,
  findHooks,
  groupOf,
  HOOK_MARKER,
  hasMarker,
  markedCommand,
  removeHooks,
  type Settings,
  shellQuote,
  tableHooks,
} from "../../src/providers/hooks-table.ts";

const ours = (event: string) => ({ type: "command", command: markedCommand(`hook ${event}`), timeout: 5 });
const theirs = { type: "command", command: "./mine.sh # tapedeck-like but not ours" };

describe("the hooks table", () => {
  it("marks commands and recognises only marked ones", () => {
    expect(markedCommand("node hook.cjs claude")).toBe(`node hook.cjs claude ${HOOK_MARKER}`);
    expect(hasMarker({ command: `x ${HOOK_MARKER}  ` })).toBe(true);
    for (const e of [theirs, { command: 5 }, null, "x # tapedeck", [`x ${HOOK_MARKER}`]])
      expect(hasMarker(e), JSON.stringify(e)).toBe(false);
  });

  it("quotes one shell argument, a quote inside included", () => {
    expect(shellQuote("/opt/it's here")).toBe(`'/opt/it'\\''s here'`);
  });

  it("finds, counts and removes only tapedeck's entries, with their place", () => {
    const settings: Settings = {
      hooks: {
        Stop: [{ hooks: [theirs, ours("Stop")] }, { hooks: [] }],
        PreToolUse: [{ matcher: "Bash", hooks: [ours("PreToolUse")] }, "not a group"],
        enabled: true,
      },
      other: 1,
    };
    expect(tableHooks(settings).map((h) => [h.event, h.groupIndex, h.hookIndex])).toEqual([
      ["Stop", 0, 1],
      ["PreToolUse", 0, 0],
    ]);
    expect(countHooks(settings)).toBe(2);
    expect(findHooks(settings)).toEqual([
      { event: "Stop", type: "command", command: "hook Stop # tapedeck" },
      { event: "PreToolUse", type: "command", command: "hook PreToolUse # tapedeck" },
    ]);
    expect(removeHooks(settings)).toBe(2);
    expect(settings).toEqual({
      hooks: { Stop: [{ hooks: [theirs] }, { hooks: [] }], PreToolUse: ["not a group"], enabled: true },
      other: 1,
    });
    expect(removeHooks(settings)).toBe(0);
  });

  it("drops a table left empty, and ignores one an agent would not read", () => {
    const settings: Settings = { hooks: { Stop: [{ hooks: [ours("Stop")] }] } };
    expect(removeHooks(settings)).toBe(1);
    expect(settings).toEqual({});
    for (const hooks of [[[{ hooks: [ours("Stop")] }]], "x", null]) {
      const odd: Settings = { hooks };
      expect(countHooks(odd)).toBe(0);
      expect(removeHooks(odd)).toBe(0);
      expect(odd).toEqual({ hooks });
    }
  });

  it("appends after the user's groups, a separate copy of the entry in each", () => {
    const settings: Settings = { hooks: { Stop: [{ hooks: [theirs] }] } };
    const entry = ours("any");
    appendHooks(settings, [
      { event: "Stop", group: groupOf(entry, false) },
      { event: "PreToolUse", group: groupOf(entry, true) },
    ]);
    const hooks = settings.hooks as Record<string, Settings[]>;
    expect(hooks.Stop).toEqual([{ hooks: [theirs] }, { hooks: [entry] }]);
    expect(hooks.PreToolUse).toEqual([{ matcher: "*", hooks: [entry] }]);
    expect(hooks.Stop![1]!.hooks).not.toBe(hooks.PreToolUse![0]!.hooks);
    expect((hooks.Stop![1]!.hooks as unknown[])[0]).not.toBe(entry);
  });
});

describe("each installer reads with the rule it writes by", () => {
  const spec = { command: "'/usr/bin/node' '/opt/tapedeck/dist/hook.cjs' claude", timeoutSeconds: 10 };
  // An install before the hook client wrote Claude http hooks, which carry our header instead of the marker.
  const legacyHttp = {
    type: "http",
    url: "http://127.0.0.1:7777/hook/claude",
    headers: { "X-Tapedeck": "1" },
  };

  it("Claude still finds, counts and removes an older install's http hooks, and its status line", () => {
    const settings: Settings = {
      hooks: { Stop: [{ hooks: [legacyHttp, theirs] }] },
      statusLine: { type: "command", command: markedCommand("status") },
    };
    expect(claudeInstaller.count(settings)).toBe(1);
    expect(claudeInstaller.find(settings)).toEqual([
      { event: "Stop", type: "http", url: legacyHttp.url, headers: legacyHttp.headers },
    ]);
    expect(claudeInstaller.statusLine?.hasForeign(settings)).toBe(false);
    expect(claudeInstaller.remove(settings)).toBe(2);
    expect(settings).toEqual({ hooks: { Stop: [{ hooks: [theirs] }] } });
  });

  it("Codex and Gemini never wrote http hooks, and do not claim one", () => {
    for (const installer of [codexInstaller, geminiInstaller]) {
      const settings: Settings = { hooks: { Stop: [{ hooks: [legacyHttp] }] } };
      expect(installer.count(settings), installer.provider).toBe(0);
      expect(installer.find(settings), installer.provider).toEqual([]);
    }
  });

  it("Codex keys each installed hook by its place in the table, in Codex's event order", () => {
    const settings: Settings = { hooks: { Stop: [{ hooks: [theirs] }] } };
    codexInstaller.add(settings, spec);
    const installed = installedCodexHooks(settings, "/p/.codex/hooks.json");
    // The table lists Stop first (the user's group was there before install); Codex's own order wins.
    expect(Object.keys(settings.hooks as Settings)[0]).toBe("Stop");
    expect(installed.map((h) => h.event)).toEqual(CODEX_HOOK_EVENTS.map((e) => e.event));
    expect(installed[0]!.key).toBe("/p/.codex/hooks.json:session_start:0:0");
    expect(installed.find((h) => h.event === "Stop")!.key).toBe("/p/.codex/hooks.json:stop:1:0");
    expect(installed.every((h) => /^sha256:[0-9a-f]{64}$/.test(h.hash))).toBe(true);
  });

  it("Gemini writes its timeouts in milliseconds and its hook name", () => {
    const settings: Settings = {};
    geminiInstaller.add(settings, spec);
    const [first] = tableHooks(settings);
    expect(first!.entry).toMatchObject({ name: "tapedeck", timeout: 10_000 });
    expect(first!.group.matcher).toBe("*");
  });
});
