// The owner rule (core/base/fsutil.ts): another local user gets no write into the archive. Every writer refuses a
// project, `.tapedeck`, session root or tapedeck home another user owns (or, for tapedeck's own directories, one
// others can write), and never opens an existing file to append that is not the user's private one: a 0666
// events.jsonl planted where the user's prompts go was appended to, so its owner read them. The suite runs as
// root (as CI does): "another user's" is a directory or file chowned to nobody (test/helpers/other-user.ts).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureTapedeckDir, sessionWriteProblem } from "../../src/core/archive/paths.ts";
import { lookupSession, registerSession } from "../../src/core/archive/session-registry.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { writeDiagnostic } from "../../src/core/base/diagnostics.ts";
import { UnsafePathError } from "../../src/core/base/fsutil.ts";
import { CAN_CHOWN, giveToOtherUser, snapshot } from "../helpers/other-user.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects("tapedeck-owner-");
const PROMPT = "the user's private prompt 7f3a";
const prompt = () => [event("user_prompt", "p1", { hook_event_name: "UserPromptSubmit", prompt: PROMPT })];

const outside: string[] = [];
afterEach(() => {
  for (const dir of outside.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function outsideDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tapedeck-owner-root-"));
  outside.push(dir);
  return dir;
}

/** The session directory the default spec writes into, made as the recorder makes it, holding `events`. */
function sessionWith(root: string, events: { mode: number; foreign?: boolean }): string {
  const dir = join(root, ".tapedeck", "claude-sessions", "sess-1");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, "events.jsonl");
  writeFileSync(file, "");
  chmodSync(file, events.mode);
  if (events.foreign) giveToOtherUser(file);
  return file;
}

describe("an events.jsonl that is not the user's private file is never appended to", () => {
  it("a 0666 one planted in the user's own session directory: refused, the event goes only to a diagnostic", () => {
    const root = project();
    const file = sessionWith(root, { mode: 0o666 });
    expect(() => recordEvents(spec(root), prompt())).toThrow(/open to group or others \(mode 0666\)/);
    expect(readFileSync(file, "utf8")).toBe("");
    const diagnostics = readFileSync(join(file, "..", "diagnostics.jsonl"), "utf8");
    expect(diagnostics).toContain('"stage":"append"');
    expect(diagnostics).not.toContain(PROMPT);
  });

  it.runIf(CAN_CHOWN)("one another user owns (0600): refused, nothing of the prompt reaches it", () => {
    const root = project();
    const file = sessionWith(root, { mode: 0o600, foreign: true });
    expect(() => recordEvents(spec(root), prompt())).toThrow(/belongs to another user \(uid 65534\)/);
    expect(readFileSync(file, "utf8")).toBe("");
  });

  it("the user's own 0600 file is appended to as before", () => {
    const root = project();
    const file = sessionWith(root, { mode: 0o600 });
    expect(recordEvents(spec(root), prompt()).appended).toBe(1);
    expect(readFileSync(file, "utf8")).toContain(PROMPT);
  });
});

describe.runIf(CAN_CHOWN)("a directory another user owns is never written into", () => {
  it("a planted .tapedeck of theirs in the user's project: refused, nothing written in it, no diagnostic", () => {
    const root = project();
    const td = join(root, ".tapedeck");
    mkdirSync(td, { mode: 0o777 });
    chmodSync(td, 0o777);
    giveToOtherUser(td);
    expect(() => recordEvents(spec(root), prompt())).toThrow(UnsafePathError);
    expect(() => ensureTapedeckDir(root)).toThrow(/\.tapedeck belongs to another user/);
    writeDiagnostic(td, { what: "error", stage: "record", code: "UnsafePathError" });
    expect(snapshot(td)).toEqual({});
  });

  it("a project directory another user owns: no .tapedeck is made in it", () => {
    const root = project();
    giveToOtherUser(root);
    expect(() => recordEvents(spec(root), prompt())).toThrow(/belongs to another user/);
    expect(() => ensureTapedeckDir(root)).toThrow(UnsafePathError);
    expect(existsSync(join(root, ".tapedeck"))).toBe(false);
    expect(sessionWriteProblem(root, join(root, ".tapedeck", "claude-sessions"))?.message).toMatch(
      /belongs to another user \(uid 65534\); tapedeck writes only into your own directories/,
    );
  });

  it("a session root elsewhere (--session-root) that another user owns", () => {
    const root = project();
    const sessions = outsideDir();
    giveToOtherUser(sessions);
    expect(() => recordEvents(spec(root, { sessionRoot: sessions }), prompt())).toThrow(
      /belongs to another user/,
    );
    expect(snapshot(sessions)).toEqual({});
  });

  it("a session directory of theirs in the user's own session root", () => {
    const root = project();
    const dir = join(root, ".tapedeck", "claude-sessions", "sess-1");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    giveToOtherUser(dir);
    expect(() => recordEvents(spec(root), prompt())).toThrow(/sess-1 belongs to another user/);
    expect(snapshot(dir)).toEqual({});
  });

  it("a tapedeck home another user owns gets no registry entry; an entry of theirs is not believed", () => {
    const root = project();
    const home = join(root, "home");
    mkdirSync(home, { mode: 0o700 });
    giveToOtherUser(home);
    const entry = { provider: "claude", provider_session_id: "sess-1", project_root: root };
    expect(() => registerSession(entry, { TAPEDECK_HOME: home })).toThrow(/belongs to another user/);
    expect(snapshot(home)).toEqual({});

    const mine = join(root, "my-home");
    registerSession(entry, { TAPEDECK_HOME: mine });
    expect(lookupSession("claude", "sess-1", { TAPEDECK_HOME: mine })?.project_root).toBe(root);
    giveToOtherUser(join(mine, "registry", "claude", "sess-1.json"));
    expect(lookupSession("claude", "sess-1", { TAPEDECK_HOME: mine })).toBeUndefined();
  });
});

describe("a directory of tapedeck's that others can write is refused too", () => {
  it("a session root elsewhere that is 0777: nothing is written into it", () => {
    const root = project();
    const sessions = outsideDir();
    chmodSync(sessions, 0o777);
    expect(() => recordEvents(spec(root, { sessionRoot: sessions }), prompt())).toThrow(
      /writable by group or others \(mode 0777\); run chmod go-w on it/,
    );
    expect(snapshot(sessions)).toEqual({});
  });

  it("a .tapedeck that is 0777 gets no session", () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"));
    chmodSync(join(root, ".tapedeck"), 0o777);
    expect(() => recordEvents(spec(root), prompt())).toThrow(/writable by group or others/);
    expect(snapshot(join(root, ".tapedeck"))).toEqual({});
  });
});
