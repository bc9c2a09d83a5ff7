// doctor runs a provider's own checks (its catalog entry's doctorChecks) for
// that provider only, and only where the hooks check found hooks: Codex's hook
// trust for codex, nothing of it for gemini or claude.
import { mkdtempSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/cli/commands/doctor/run.ts";
import { runProgram } from "../helpers/program.ts";

const dirs: string[] = [];

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function install(project: string, provider: string, env: Record<string, string>): Promise<void> {
  const r = await runProgram(["install", provider, "--yes", "--transport", "command", "--project", project], {
    env: { ...env, TAPEDECK_HOME: join(project, "home") },
  });
  expect(r.code, r.stderr).toBe(0);
}

function checkNames(report: Awaited<ReturnType<typeof runDoctor>>, provider: string): string[] {
  return report.providers.find((p) => p.provider === provider)?.checks.map((c) => c.name) ?? [];
}

describe("doctor: the providers' own checks", () => {
  it("checks Codex's hook trust for codex only", async () => {
    const project = temp("tapedeck-doctor-");
    const codexHome = temp("tapedeck-codex-home-");
    for (const provider of ["codex", "gemini", "claude"])
      await install(project, provider, { CODEX_HOME: codexHome });
    const report = await runDoctor({ project, codexHome });
    expect(checkNames(report, "codex")).toContain("hook trust");
    expect(
      report.providers.find((p) => p.provider === "codex")?.checks.find((c) => c.name === "hook trust")
        ?.status,
    ).toBe("fail");
    for (const provider of ["gemini", "claude"]) {
      expect(checkNames(report, provider), provider).not.toContain("hook trust");
      expect(checkNames(report, provider), provider).not.toContain("project trust");
    }
  });

  it("does not check trust where no hooks are installed", async () => {
    const project = temp("tapedeck-doctor-");
    const codexHome = temp("tapedeck-codex-home-");
    await install(project, "codex", { CODEX_HOME: codexHome });
    unlinkSync(join(project, ".codex", "hooks.json"));
    const report = await runDoctor({ project, codexHome });
    expect(checkNames(report, "codex")).not.toContain("hook trust");
    expect(checkNames(report, "codex")).not.toContain("project trust");
  });
});
