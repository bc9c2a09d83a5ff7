// doctor in a project that holds sessions but no agent's hooks (it was only imported: issue 41, item 12): it
// says what is and is not installed, and exits 0, for nothing is wrong. A project with nothing of tapedeck
// at all is still the problem it reports.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

describe("doctor where tapedeck's hooks are not installed", () => {
  it("with imported sessions: names them and what is not installed, exit 0", async () => {
    const root = project();
    fakeSession(root, { id: "imp-1", daysAgo: 1 });
    fakeSession(root, { id: "imp-2", daysAgo: 2 });
    fakeSession(root, { id: "imp-3", daysAgo: 2, provider: "gemini" });
    const r = await runCliInProcess(["doctor", "--project", root], join(root, "home"));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("2 Claude Code sessions, 1 Gemini CLI session in .tapedeck/");
    expect(r.stdout).toContain("no hooks installed (Claude Code, Codex CLI, Gemini CLI)");
    expect(r.stdout).not.toContain("not installed in");
    const json = await runCliInProcess(["doctor", "--project", root, "--json"], join(root, "home"));
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, problems: 0 });
  });

  it("with nothing of tapedeck: not installed, exit 1", async () => {
    const root = project();
    const r = await runCliInProcess(["doctor", "--project", root], join(root, "home"));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`tapedeck is not installed in ${root}`);
  });
});
