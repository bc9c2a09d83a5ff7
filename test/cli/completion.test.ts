// `tapedeck completion`: the scripts the build made, printed by the binary; bash loads them and they call the
// built CLI for the words to offer (session ids, an option's values), as they do in the user's shell.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { CLI, ensureBuilt, runCli } from "../helpers/cli-run.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

beforeAll(ensureBuilt);
const project = useTempProjects();

/** Loads the script in a real shell and asks it to complete `line` (the word under the cursor is the last). */
function completeBash(script: string, words: string[], home: string, cwd?: string): string[] {
  const program = [
    `tapedeck() { HOME='${home}' TAPEDECK_HOME='${home}/.tapedeck' '${process.execPath}' '${CLI}' "$@"; }`,
    script,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")})`,
    `COMP_CWORD=${words.length - 1}`,
    "_tapedeck",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own expansion, not a template
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join("\n");
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", program], { encoding: "utf8", cwd });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return r.stdout.split("\n").filter(Boolean).sort();
}

describe("tapedeck completion", () => {
  it("prints the scripts the build made, as they are: the eval line loads no command of the program", () => {
    // Made on each call, the script loaded every command's module: 1.0 s for every new shell (issue 41, item 11).
    const home = join(project(), "home");
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = runCli(["completion", shell], home);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(dirname(CLI), "completion", `tapedeck.${shell}`), "utf8"));
    }
  });

  it("the bash script loads in bash and completes commands, options, providers and session ids", async () => {
    const root = project();
    const home = join(root, "home");
    fakeSession(root, { id: "abc-111", daysAgo: 1 });
    fakeSession(root, { id: "abd-222", daysAgo: 2 });
    fakeSession(root, { id: "zzz-333", daysAgo: 3 });
    const r = await runCliInProcess(["completion", "bash"], home);
    expect(r.code).toBe(0);
    const script = r.stdout;
    expect(completeBash(script, ["tapedeck", "pr"], home)).toEqual(["promote", "proxy", "prune"]);
    expect(completeBash(script, ["tapedeck", "prune", "--ol"], home)).toEqual(["--older-than"]);
    expect(completeBash(script, ["tapedeck", "install", "co"], home)).toEqual(["codex"]);
    expect(completeBash(script, ["tapedeck", "list", "--provider", "g"], home)).toEqual(["gemini"]);
    expect(completeBash(script, ["tapedeck", "show", "--project", root, "ab"], home)).toEqual([
      "abc-111",
      "abd-222",
    ]);
    expect(completeBash(script, ["tapedeck", "delete", "--project", root, "zz"], home)).toEqual(["zzz-333"]);
    expect(completeBash(script, ["tapedeck", "memory", "s"], home)).toEqual(["search", "show"]);
    // A fixed set of values (import's sources: the agents tapedeck can import, and all).
    expect(completeBash(script, ["tapedeck", "import", ""], home)).toEqual([
      "all",
      "claude",
      "codex",
      "gemini",
    ]);
    expect(completeBash(script, ["tapedeck", "import", "--a"], home)).toEqual(["--all-projects"]);
    expect(completeBash(script, ["tapedeck", "usage", "m"], home)).toEqual(["model", "monthly"]);
    expect(completeBash(script, ["tapedeck", "usage", "daily", "--time"], home)).toEqual(["--timezone"]);
    expect(completeBash(script, ["tapedeck", "usage", "daily", "--timezone", "Europe/Pa"], home)).toEqual([
      "Europe/Paris",
    ]);
  });

  it("an option's value completes with its own values (formats, kinds, on/off), never session ids", async () => {
    const root = project();
    const home = join(root, "home");
    fakeSession(root, { id: "abc-111", daysAgo: 1 });
    const script = (await runCliInProcess(["completion", "bash"], home)).stdout;
    const at = (words: string[]) => completeBash(script, ["tapedeck", ...words], home, root);
    expect(at(["export", "abc-111", "--format", ""])).toEqual(["html", "jsonl", "md"]);
    expect(at(["memory", "export", "--format", "j"])).toEqual(["jsonl"]);
    expect(at(["show", "abc-111", "--kinds", "tool_r"])).toEqual(["tool_result"]);
    // A list completes the word after its last comma, keeping what comes before.
    expect(at(["show", "abc-111", "--kinds", "user_prompt,tool_e"])).toEqual(["user_prompt,tool_error"]);
    expect(at(["replay", "abc-111", "--retrieval", ""])).toEqual(["off", "on"]);
    expect(at(["prune", "--status", "c"])).toEqual(["complete"]);
    expect(at(["otel", "export", "--protocol", "http/j"])).toEqual(["http/json"]);
    // A free value (a number, an age) gets nothing: before, bash offered the session ids here.
    expect(at(["list", "--limit", ""])).toEqual([]);
    expect(at(["delete", "--project", root, "--older-than", ""])).toEqual([]);
  });

  it("a session id made of shell syntax (a planted archive) is offered as text, never run", async () => {
    const root = project();
    const home = join(root, "home");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted name is bash syntax
    const hostile = ["$(touch${IFS}ran-dollar)", "`touch${IFS}ran-tick`", "a;touch${IFS}ran-semi", "*"];
    for (const [i, id] of hostile.entries()) fakeSession(root, { id, daysAgo: i + 1 });
    fakeSession(root, { id: "abc-111", daysAgo: 9 });
    const script = (await runCliInProcess(["completion", "bash"], home)).stdout;
    const offered = completeBash(script, ["tapedeck", "show", "--project", root, ""], root, root);
    expect(readdirSync(root).filter((n) => n.startsWith("ran-"))).toEqual([]);
    expect(offered).toEqual(["abc-111", "last"]);
    const dollar = completeBash(script, ["tapedeck", "show", "--project", root, "$"], root, root);
    expect(readdirSync(root).filter((n) => n.startsWith("ran-"))).toEqual([]);
    expect(dollar).toEqual([]);
  });

  it("fish: a script naming every command; an unknown shell is a usage error", async () => {
    const root = project();
    const fish = (await runCliInProcess(["completion", "fish"], root)).stdout;
    expect(fish).toContain("-a prune");
    expect(fish).toContain("completion fish --sessions");
    expect((await runCliInProcess(["completion", "tcsh"], root)).code).toBe(2);
  });
});
