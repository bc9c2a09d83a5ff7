// Which project a hook records into. An agent started inside another agent's session inherits the outer
// agent's environment: codex run from Claude's Bash tool sees CLAUDE_PROJECT_DIR naming Claude's project.
// Only the provider's own variable may name the project; otherwise the payload's cwd does.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { runHook } from "../../src/core/hook/recorder.ts";
import { claudeAdapter } from "../../src/providers/claude/adapter.ts";
import { codexAdapter } from "../../src/providers/codex/adapter.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function installed(root: string): string {
  writeConfig(root, {
    schema_version: 1,
    providers: {
      claude: { recording: "on", mode: "capture-only" },
      codex: { recording: "on", mode: "capture-only" },
    },
  });
  return root;
}

const input = (payload: object) => ({ data: Buffer.from(JSON.stringify(payload)), overflow: false });
const sessions = (root: string, provider: string) => join(root, ".tapedeck", `${provider}-sessions`);

describe("the project a hook records into", () => {
  it("a codex hook inside a Claude session records into codex's own project, not Claude's", () => {
    const outer = installed(project());
    const inner = installed(project());
    const fixture = JSON.parse(
      readFileSync(join("test", "fixtures", "codex", "UserPromptSubmit.json"), "utf8"),
    );
    const result = runHook(
      codexAdapter,
      input({ ...fixture, cwd: inner, transcript_path: null }),
      // What codex's hooks inherit when codex runs from Claude's Bash tool.
      { CLAUDE_PROJECT_DIR: outer, CLAUDE_CODE_SESSION_ID: "outer-session" },
    );
    expect(result).toMatchObject({ status: "recorded", project: inner });
    expect(existsSync(sessions(outer, "codex"))).toBe(false);
    expect(existsSync(sessions(inner, "codex"))).toBe(true);
  });

  it("claude's own variable still names its project, from any cwd", () => {
    const root = installed(project());
    const fixture = JSON.parse(
      readFileSync(join("test", "fixtures", "claude", "UserPromptSubmit.json"), "utf8"),
    );
    const result = runHook(claudeAdapter, input({ ...fixture, cwd: "/", transcript_path: "/nonexistent" }), {
      CLAUDE_PROJECT_DIR: root,
    });
    expect(result).toMatchObject({ status: "recorded", project: root });
  });
});
