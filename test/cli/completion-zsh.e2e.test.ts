// @module-tag zsh
// The zsh completion script in a real zsh: zsh is an e2e prerequisite like Chromium (npm run test:e2e
// installs both: scripts/test-prereqs.sh), so a missing zsh fails here, never skips.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { CLI, ensureBuilt, runCli } from "../helpers/cli-run.ts";
import { useTempProjects } from "../helpers/session.ts";

beforeAll(ensureBuilt);
const project = useTempProjects();

describe("tapedeck completion zsh", () => {
  it("the zsh script loads after compinit and completes a session id", () => {
    expect(
      spawnSync("zsh", ["-fc", "exit 0"]).status,
      "zsh is needed for this test (apt-get install zsh)",
    ).toBe(0);
    const root = project();
    const home = join(root, "home");
    fakeSession(root, { id: "abc-111", daysAgo: 1 });
    fakeSession(root, { id: "zzz-333", daysAgo: 2 });
    const script = runCli(["completion", "zsh"], home).stdout;
    // compadd and _describe only work inside a completion widget: stand-ins print what they are given,
    // filtered by the word typed so far, as zsh would.
    const program = [
      `tapedeck() { HOME='${home}' TAPEDECK_HOME='${home}/.tapedeck' '${process.execPath}' '${CLI}' "$@"; }`,
      `autoload -Uz compinit && compinit -u -d '${home}/.zcompdump'`,
      script,
      'compadd() { [[ $1 == -- ]] && shift; local w; for w in "$@"; do [[ $w == $PREFIX* ]] && print -r -- $w; done }',
      `words=(tapedeck show --project '${root}' ab); CURRENT=5; PREFIX=ab; _tapedeck`,
      "words=(tapedeck memory s); CURRENT=3; PREFIX=s; _tapedeck",
      "words=(tapedeck export abc-111 --format m); CURRENT=5; PREFIX=m; _tapedeck",
    ].join("\n");
    const z = spawnSync("zsh", ["-f", "-c", program], { encoding: "utf8" });
    expect(z.stderr).toBe("");
    expect(z.stdout.split("\n").filter(Boolean)).toEqual(["abc-111", "show", "search", "md"]);
  });
});
