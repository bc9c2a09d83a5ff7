// The hook path (dist/hook.cjs, as the agent runs it) in a project another local user owns, or beside a file of
// theirs: it records nothing there and the agent sees what it sees from any hook, exit 0 and no output. Before
// the owner rule, a `.tapedeck/config.json` of theirs turning recording on made the user's prompts land in their
// directory. The suite runs as root (as CI does): "theirs" is chowned to nobody (test/helpers/other-user.ts).
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { ensureBuilt, HOOK } from "../helpers/cli-run.ts";
import { CAN_CHOWN, giveToOtherUser, snapshot } from "../helpers/other-user.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects("tapedeck-hook-owner-");
const PROMPT = "the user's private prompt 5c1e";
const SESSION = "2b78a515-1a4e-4949-93a8-4a58deaec546";

beforeAll(ensureBuilt);

/** A project whose config turns Claude's recording on. */
function recordingProject(): string {
  const root = project();
  writeConfig(root, { schema_version: 1, providers: { claude: { recording: "on", mode: "capture-only" } } });
  return root;
}

/** The prompt hook, run as Claude Code runs it, with a tapedeck home of the test's own. */
function promptHook(root: string) {
  const payload = {
    session_id: SESSION,
    transcript_path: join(root, "transcript.jsonl"),
    cwd: root,
    hook_event_name: "UserPromptSubmit",
    prompt: PROMPT,
  };
  const r = spawnSync(process.execPath, [HOOK, "claude"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    env: { ...process.env, CLAUDE_PROJECT_DIR: root, TAPEDECK_HOME: join(project(), ".tapedeck") },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const eventsOf = (root: string) => join(root, ".tapedeck", "claude-sessions", SESSION, "events.jsonl");

/** What the agent gets from the same hook in a project of the user's own, which records the prompt. */
function ownProjectAnswer() {
  const root = recordingProject();
  const answer = promptHook(root);
  expect(readFileSync(eventsOf(root), "utf8")).toContain(PROMPT);
  return answer;
}

describe("the hook in a place the owner rule refuses leaves the agent unaffected", () => {
  it.runIf(CAN_CHOWN)("a project of another user, their config turning recording on: nothing written", () => {
    const root = recordingProject();
    giveToOtherUser(root, join(root, ".tapedeck"), join(root, ".tapedeck", "config.json"));
    const before = snapshot(root);
    expect(promptHook(root)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(promptHook(root)).toEqual(ownProjectAnswer());
    expect(snapshot(root)).toEqual(before);
  });

  it.runIf(CAN_CHOWN)("a .tapedeck of theirs planted in the user's project: nothing written in it", () => {
    const root = recordingProject();
    const td = join(root, ".tapedeck");
    chmodSync(td, 0o777);
    giveToOtherUser(td, join(td, "config.json"));
    const before = snapshot(root);
    expect(promptHook(root)).toEqual(ownProjectAnswer());
    expect(snapshot(root)).toEqual(before);
  });

  it("a 0666 events.jsonl in the user's own session directory: the prompt never reaches it", () => {
    const root = recordingProject();
    const events = eventsOf(root);
    mkdirSync(join(events, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(events, "");
    chmodSync(events, 0o666);
    expect(promptHook(root)).toEqual(ownProjectAnswer());
    expect(readFileSync(events, "utf8")).toBe("");
    // Said where it can be said safely, without the prompt: the user's own session directory.
    const diagnostics = readFileSync(join(events, "..", "diagnostics.jsonl"), "utf8");
    expect(diagnostics).toContain("UnsafePathError");
    expect(diagnostics).not.toContain(PROMPT);
  });
});
