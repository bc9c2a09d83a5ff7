// The one resolver of a SESSION argument: recordings, replays' and runs' sessions (under .tapedeck and through
// a link), every registered project, provider-qualified ids and prefixes, ambiguity, and what it must refuse.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkExperimentLinks } from "../../src/cli/commands/doctor/experiment-links.ts";
import { registerSession } from "../../src/core/archive/session-registry.ts";
import { ignoredExperimentLinks } from "../../src/core/read/experiment-links.ts";
import {
  AmbiguousSessionError,
  resolveSession,
  SessionNotFoundError,
} from "../../src/core/read/session-resolve.ts";
import { sessionsInScope } from "../../src/core/read/session-scope.ts";
import { CAN_CHOWN, giveToOtherUser, giveTreeToOtherUser } from "../helpers/other-user.ts";
import { externalExperiment, recordSession, runSessionsDir } from "../helpers/scoped-sessions.ts";
import { useTempProjects } from "../helpers/temp-project.ts";

const project = useTempProjects("tapedeck-resolve-");

function withReplay() {
  const root = project();
  const baseline = recordSession(root, "base-1111", { minute: 1 });
  const replay = recordSession(root, "run-2222", {
    sessionRoot: runSessionsDir(root, "exp-20261130-a"),
    replayOf: "claude:base-1111",
    minute: 2,
  });
  return { root, baseline, replay };
}

describe("the session resolver", () => {
  it("finds a replay's session by id, provider-qualified id, prefix and directory; list shows it as a run", () => {
    const { root, replay } = withReplay();
    for (const q of ["run-2222", "claude:run-2222", "run-22", "claude:run-2", "run-2222"]) {
      const found = resolveSession({ project: root }, q);
      expect(found.dir, q).toBe(replay.dir);
      expect(found.origin).toBe("run");
      expect(found.project).toBe(root);
    }
    const all = sessionsInScope({ project: root });
    expect(all.map((s) => [s.manifest.session_id, s.origin])).toEqual([
      ["claude:run-2222", "run"],
      ["claude:base-1111", "recorded"],
    ]);
    expect(sessionsInScope({ project: root, runs: false }).map((s) => s.origin)).toEqual(["recorded"]);
    expect(sessionsInScope({ project: root, runs: "only" }).map((s) => s.origin)).toEqual(["run"]);
  });

  it("`last` is the newest recording, never a run made after it", () => {
    const { root, baseline } = withReplay();
    expect(resolveSession({ project: root }, "last").dir).toBe(baseline.dir);
  });

  it("an ambiguous prefix names every candidate; an unknown one is not found", () => {
    const root = project();
    recordSession(root, "abc-1", { minute: 1 });
    recordSession(root, "abc-2", { minute: 2 });
    try {
      resolveSession({ project: root }, "abc");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AmbiguousSessionError);
      const ids = (error as AmbiguousSessionError).candidates.map((c) => c.manifest.session_id).sort();
      expect(ids).toEqual(["claude:abc-1", "claude:abc-2"]);
    }
    expect(() => resolveSession({ project: root }, "zzz")).toThrow(SessionNotFoundError);
    expect(() => resolveSession({ project: root }, "")).toThrow(SessionNotFoundError);
  });

  it("finds an experiment made with --experiment-root through the project's link", () => {
    const root = project();
    const outside = mkdtempSync(join(tmpdir(), "tapedeck-exproot-"));
    try {
      const run = recordSession(root, "ext-3333", {
        sessionRoot: externalExperiment(root, outside, "exp-ext"),
        replayOf: "claude:base",
      });
      expect(resolveSession({ project: root }, "ext-33").dir).toBe(run.dir);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a planted link to another project's experiment, or a symlinked experiments directory, leads nowhere", () => {
    const victim = project();
    const planted = project();
    const outside = mkdtempSync(join(tmpdir(), "tapedeck-exproot-"));
    try {
      // The experiment is the victim's (its baseline names the victim); the link sits in the planted project.
      recordSession(victim, "theirs-4444", {
        sessionRoot: externalExperiment(planted, outside, "exp-x", victim),
        replayOf: "claude:v",
      });
      expect(() => resolveSession({ project: planted }, "theirs-4444")).toThrow(SessionNotFoundError);

      const linked = project();
      const elsewhere = withReplay();
      mkdirSync(join(linked, ".tapedeck"), { mode: 0o700 });
      symlinkSync(join(elsewhere.root, ".tapedeck", "experiments"), join(linked, ".tapedeck", "experiments"));
      expect(sessionsInScope({ project: linked })).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  describe("a link into another user's directory (the owner rule) is ignored", () => {
    /** The user's own recording, and a run of the same id in a linked experiment root outside the project. */
    function withLinkedTwin() {
      const root = project();
      const own = recordSession(root, "dup-5555", { minute: 1 });
      const outside = mkdtempSync(join(tmpdir(), "tapedeck-exproot-"));
      recordSession(root, "dup-5555", {
        sessionRoot: externalExperiment(root, outside, "exp-theirs"),
        replayOf: "claude:base",
        minute: 2,
      });
      // Found before it is taken away: the link works for the user's own directory.
      expect(sessionsInScope({ project: root })).toHaveLength(2);
      return { root, own, outside };
    }

    it.runIf(CAN_CHOWN)(
      "their sessions are no runs of the project, the id stays the user's, doctor names it",
      () => {
        const { root, own, outside } = withLinkedTwin();
        try {
          giveTreeToOtherUser(outside);
          expect(sessionsInScope({ project: root }).map((s) => s.dir)).toEqual([own.dir]);
          expect(resolveSession({ project: root }, "dup-5555").dir).toBe(own.dir);
          const ignored = ignoredExperimentLinks(root);
          expect(ignored).toEqual([
            {
              file: join(root, ".tapedeck", "experiments", "exp-theirs.link.json"),
              reason: `${outside} belongs to another user (uid 65534); tapedeck writes only into your own directories`,
            },
          ]);
          expect(checkExperimentLinks(root)).toMatchObject({
            name: "experiment links",
            status: "warn",
            message: `.tapedeck/experiments/exp-theirs.link.json is ignored: ${ignored[0]!.reason}`,
          });
        } finally {
          rmSync(outside, { recursive: true, force: true });
        }
      },
    );

    it.runIf(CAN_CHOWN)("a root of the user's whose experiment.json or run directory is theirs", () => {
      const { root, own, outside } = withLinkedTwin();
      try {
        giveToOtherUser(join(outside, "runs", "replay-r1"));
        expect(sessionsInScope({ project: root }).map((s) => s.dir)).toEqual([own.dir]);
        chownSync(join(outside, "runs", "replay-r1"), process.getuid!(), process.getgid!());
        expect(sessionsInScope({ project: root })).toHaveLength(2);
        giveToOtherUser(join(outside, "experiment.json"));
        expect(sessionsInScope({ project: root }).map((s) => s.dir)).toEqual([own.dir]);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it("a linked root of the user's that everyone can write: anyone could have put a session there", () => {
      const { root, own, outside } = withLinkedTwin();
      try {
        chmodSync(outside, 0o777);
        expect(resolveSession({ project: root }, "dup-5555").dir).toBe(own.dir);
        expect(ignoredExperimentLinks(root)[0]?.reason).toMatch(/writable by group or others \(mode 0777\)/);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });

  it("with allProjects, every registered project's sessions, replays included", () => {
    const here = project();
    const { root: other, replay } = withReplay();
    const home = join(here, "home");
    const env = { TAPEDECK_HOME: home };
    registerSession({ provider: "claude", provider_session_id: "base-1111", project_root: other }, env);
    expect(() => resolveSession({ project: here, env }, "run-2222")).toThrow(SessionNotFoundError);
    const found = resolveSession({ project: here, allProjects: true, env }, "run-2222");
    expect(found.dir).toBe(replay.dir);
    expect(found.project).toBe(other);
  });
});
