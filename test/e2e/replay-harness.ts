// Shared by the replay e2e tests: the built CLI run without a time limit of its own (a replay runs an
// agent several times), hashes of what a replay must never change, and the baseline's project set up as a
// git repository with a committed memory file.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { Scenario } from "../../src/scenario/schema.ts";
import { snapshot } from "./archive-checks.ts";
import { CLI_JS } from "./sandboxes.ts";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function tapedeck(
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
  timeoutMs = 240_000,
) {
  return new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      [CLI_JS, ...args],
      { cwd: opts.cwd, env: opts.env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export function git(cwd: string, args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/** A committed project with the provider's memory file holding a fact only that file knows. */
export function commitProject(projectDir: string, memoryFile: string, fact: string): string {
  writeFileSync(join(projectDir, memoryFile), `${fact}\n`);
  writeFileSync(join(projectDir, "README.md"), "A project to replay.\n");
  git(projectDir, ["add", "-A"]);
  git(projectDir, ["commit", "-q", "-m", "init"]);
  return git(projectDir, ["rev-parse", "HEAD"]);
}

/** The scenario file at `path`, read, changed by `edit` and written (to `to`) as a user would; the scenario. */
export function editScenario(path: string, edit: (s: Scenario) => void, to = path): Scenario {
  const s = JSON.parse(readFileSync(path, "utf8")) as Scenario;
  edit(s);
  writeFileSync(to, JSON.stringify(s, null, 2));
  return s;
}

/**
 * `scenario run` of the scenario at `path` with `args`, through `scenario` (the scenario command in the
 * project): it grades and writes its result, never the scenario file or the baseline's archive.
 */
export async function runScenario(
  scenario: (args: string[]) => Promise<Run>,
  path: string,
  archive: string,
  args: string[],
): Promise<Run> {
  const before = { scenario: readFileSync(path, "utf8"), archive: snapshot(archive) };
  const run = await scenario(["run", path, ...args]);
  expect(readFileSync(path, "utf8")).toBe(before.scenario);
  expect(snapshot(archive)).toEqual(before.archive);
  return run;
}

function hashOf(path: string): string {
  return existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : "absent";
}

/** Everything a replay must leave as it was: the user's provider settings, tree, HEAD, refs and baseline archive. */
export function untouched(opts: { home: string; projectDir: string; archive: string; settings: string[] }) {
  return {
    settings: Object.fromEntries(
      opts.settings.map((p) => [p, existsSync(p) && !p.endsWith(".json") ? snapshot(p) : hashOf(p)]),
    ),
    tree: withoutLinks(git(opts.projectDir, ["status", "--porcelain", "--untracked-files=all", "--ignored"])),
    head: git(opts.projectDir, ["rev-parse", "HEAD"]),
    refs: git(opts.projectDir, ["for-each-ref"]),
    worktrees: git(opts.projectDir, ["worktree", "list", "--porcelain"]),
    files: withoutIndex(snapshot(opts.projectDir)),
    archive: snapshot(opts.archive),
  };
}

/**
 * git's index is refreshed by `git status` itself (above): not a write of the replay's. Nor is tapedeck's own
 * note of where an experiment made with --experiment-root lives (.tapedeck/experiments/<id>.link.json), which
 * lets the project find its sessions.
 */
const LINK = /^\.tapedeck\/experiments(\/[^/]+\.link\.json)?$/;

function withoutLinks(status: string): string {
  return status
    .split("\n")
    .filter((line) => !LINK.test(line.slice(3)))
    .join("\n");
}

function withoutIndex(files: Record<string, string>): Record<string, string> {
  const { ".git/index": _index, ...rest } = files;
  return Object.fromEntries(
    Object.entries(rest).filter(([path]) => !LINK.test(path) && path !== ".tapedeck"),
  );
}
