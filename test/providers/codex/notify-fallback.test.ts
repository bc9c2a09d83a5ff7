// Codex's notify program as the fallback for turns the hooks miss: the hooks
// mark each turn whose prompt they record (while a fallback is installed), and
// notify's report of a marked turn writes nothing. Also the marked blocks
// tapedeck keeps in a user's config.toml.
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeConfig } from "../../../src/core/archive/config.ts";
import { defaultSessionRoot } from "../../../src/core/archive/paths.ts";
import { runHook } from "../../../src/core/hook/recorder.ts";
import { codexAdapter } from "../../../src/providers/codex/adapter.ts";
import { codexNotifyAdapter } from "../../../src/providers/codex/notify.ts";
import { notifyLine } from "../../../src/providers/codex/notify-installer.ts";
import { parseTomlTables, TOML_ARRAY, tableKey } from "../../../src/providers/codex/toml.ts";
import { removeBlock, setBlock, setsOutsideBlock } from "../../../src/providers/codex/toml-blocks.ts";
import { tempProject } from "../../helpers/session.ts";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "codex");
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as Record<string, unknown>;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(fallback: boolean): string {
  const t = tempProject("tapedeck-notify-");
  cleanups.push(t.cleanup);
  writeConfig(t.root, {
    schema_version: 1,
    providers: { codex: { recording: "on", mode: "capture-only", ...(fallback ? { fallback: true } : {}) } },
  });
  return t.root;
}

const input = (value: unknown) => ({ data: Buffer.from(JSON.stringify(value)), overflow: false });

function eventsOf(root: string, thread: string): Array<{ kind: string; payload: Record<string, unknown> }> {
  const path = join(defaultSessionRoot(root, "codex"), thread, "events.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe("notify after the hooks", () => {
  const prompt = fixture("UserPromptSubmit.json");
  const thread = String(prompt.session_id);
  const notice = (turn: unknown) => ({
    type: "agent-turn-complete",
    "thread-id": thread,
    "turn-id": turn,
    "input-messages": ["hello"],
    "last-assistant-message": "hi",
  });

  it("a turn the hooks recorded is covered: notify writes nothing and consumes the mark", () => {
    const root = project(true);
    const env = { TAPEDECK_PROJECT_DIR: root };
    expect(runHook(codexAdapter, input(prompt), env).status).toBe("recorded");
    expect(readdirSync(join(root, ".tapedeck", "turn-marks"))).toHaveLength(1);
    const before = eventsOf(root, thread);
    expect(runHook(codexNotifyAdapter, input(notice(prompt.turn_id)), env).status).toBe("covered");
    expect(eventsOf(root, thread)).toEqual(before);
    expect(readdirSync(join(root, ".tapedeck", "turn-marks"))).toEqual([]);
  });

  it("a turn id holding a credential names its mark by its stored form, and notify still finds it", () => {
    const root = project(true);
    const env = { TAPEDECK_PROJECT_DIR: root };
    // A safe file name as it stands: only its stored form (identity.ts) keeps it out of the directory.
    const turn = `AK${"IA"}${"Q7ZX4W2M".repeat(2)}`;
    expect(runHook(codexAdapter, input({ ...prompt, turn_id: turn }), env).status).toBe("recorded");
    const marks = readdirSync(join(root, ".tapedeck", "turn-marks"));
    expect(marks).toHaveLength(1);
    expect(marks[0]!.toLowerCase()).not.toContain(turn.toLowerCase());
    expect(runHook(codexNotifyAdapter, input(notice(turn)), env).status).toBe("covered");
    expect(readdirSync(join(root, ".tapedeck", "turn-marks"))).toEqual([]);
  });

  it("a turn the hooks did not record is recorded from notify", () => {
    const root = project(true);
    const env = { TAPEDECK_PROJECT_DIR: root };
    expect(runHook(codexNotifyAdapter, input(notice("turn-unseen")), env).status).toBe("recorded");
    expect(eventsOf(root, thread).map((e) => [e.kind, e.payload.hook_event_name])).toEqual([
      ["user_prompt", "notify"],
      ["assistant_message", "notify"],
    ]);
  });

  it("without a fallback installed here, the hooks leave no marks and notify records nothing", () => {
    const root = project(false);
    runHook(codexAdapter, input(prompt), { TAPEDECK_PROJECT_DIR: root });
    expect(existsSync(join(root, ".tapedeck", "turn-marks"))).toBe(false);
    const before = eventsOf(root, thread);
    // The user-level notify also runs for this project; its hooks mark nothing, so notify must stay out.
    expect(
      runHook(codexNotifyAdapter, input(notice(prompt.turn_id)), { TAPEDECK_PROJECT_DIR: root }).status,
    ).toBe("off");
    expect(eventsOf(root, thread)).toEqual(before);
  });

  it("a symlinked turn-marks directory is refused, and nothing is deleted through it", () => {
    const root = project(true);
    const outside = tempProject("tapedeck-outside-");
    cleanups.push(outside.cleanup);
    const victim = join(outside.root, "codex-victim");
    writeFileSync(victim, "keep");
    symlinkSync(outside.root, join(root, ".tapedeck", "turn-marks"));
    const env = { TAPEDECK_PROJECT_DIR: root };
    expect(runHook(codexNotifyAdapter, input(notice("codex-victim".slice(6))), env).status).toBe("failed");
    expect(runHook(codexAdapter, input(prompt), env).status).toBe("recorded");
    expect(readdirSync(outside.root)).toEqual(["codex-victim"]);
    expect(readFileSync(victim, "utf8")).toBe("keep");
  });

  it("the TUI's hidden title thread creates no session directory", () => {
    const root = project(true);
    const title = fixture("notify.agent-turn-complete.tui-title-thread.json");
    expect(runHook(codexNotifyAdapter, input(title), { TAPEDECK_PROJECT_DIR: root }).status).toBe("covered");
    expect(existsSync(defaultSessionRoot(root, "codex"))).toBe(false);
  });
});

describe("tapedeck's blocks in config.toml", () => {
  const USER = '# my settings\nmodel = "o3"\n\n[projects."/x"]\ntrust_level = "trusted"\n\n';
  const line = notifyLine({ node: "/usr/bin/node", hook: '/opt/td "x"/hook.cjs', cli: "" });

  it("a top block is a valid top-level key, and removing it gives back the exact bytes", () => {
    for (const text of [USER, "", 'model = "o3"']) {
      const withBlock = setBlock(text, "notify", [line], "top");
      const tables = parseTomlTables(withBlock);
      expect(tables.get(tableKey([]))?.get("notify")).toBe(TOML_ARRAY);
      expect(setBlock(withBlock, "notify", [line], "top")).toBe(withBlock);
      expect(removeBlock(withBlock, "notify")).toBe(text);
    }
  });

  it("an end block is appended after the user's tables and removed exactly", () => {
    const body = ["[mcp_servers.tapedeck]", 'command = "node"'];
    const withBlock = setBlock(USER, "mcp", body, "end");
    expect(
      parseTomlTables(withBlock)
        .get(tableKey(["mcp_servers", "tapedeck"]))
        ?.get("command"),
    ).toBe("node");
    expect(removeBlock(withBlock, "mcp")).toBe(USER);
  });

  it("keeps a path with commas intact in the notify line", () => {
    const withComma = notifyLine({ node: "/usr/bin/node", hook: "/home/u/a,b/dist/hook.cjs", cli: "" });
    expect(withComma).toBe('notify = ["/usr/bin/node", "/home/u/a,b/dist/hook.cjs", "codex", "--notify"]');
  });

  it("keeps a byte-order mark first and CRLF line endings, and removes the block from such a file exactly", () => {
    for (const text of [
      '\uFEFFmodel = "o3"\n',
      'model = "o3"\r\n[x]\r\ny = 1\r\n',
      '\uFEFF# c\r\nmodel = "o3"\r\n',
    ]) {
      const withBlock = setBlock(text, "notify", [line], "top");
      if (text.startsWith("\uFEFF")) expect(withBlock.startsWith("\uFEFF# >>> tapedeck notify")).toBe(true);
      if (text.includes("\r\n"))
        expect(
          withBlock
            .split("\n")
            .slice(0, -1)
            .every((l) => l.endsWith("\r")),
        ).toBe(true);
      expect(removeBlock(withBlock, "notify")).toBe(text);
    }
    // A user's own notify behind a byte-order mark is still seen.
    expect(setsOutsideBlock('\uFEFFnotify = ["mine"]\n', "notify", [], "notify")).toBe(true);
  });

  it("keeps another program's line that landed inside the block when told which lines are tapedeck's", () => {
    const edited = setBlock(USER, "notify", [line], "top").replace(
      line,
      `${line}\nmodel_reasoning_effort = "high"`,
    );
    expect(removeBlock(edited, "notify", ["notify = "])).toBe(`model_reasoning_effort = "high"\n\n${USER}`);
  });

  it("sees a user's own key outside the block, arrays included", () => {
    expect(setsOutsideBlock('notify = ["x", "y"]\n', "notify", [], "notify")).toBe(true);
    expect(setsOutsideBlock(setBlock("", "notify", [line], "top"), "notify", [], "notify")).toBe(false);
  });
});
