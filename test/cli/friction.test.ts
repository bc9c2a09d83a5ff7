// What a new user tripped over (issue 11, items 10, 11, 13, 16, 19) and what the CLI prints from the archive
// (issue 10, item 7): the commands in process (test/helpers/program.ts), the sessions recorded by the hook's
// recorder (`tapedeck hook`).
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tapedeckHome } from "../../src/core/archive/session-registry.ts";
import { CAN_CHOWN, giveToOtherUser } from "../helpers/other-user.ts";
import { runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

/** A git repository with a subdirectory, as a real project is. */
function gitProject(): { root: string; sub: string } {
  const root = project();
  execFileSync("git", ["init", "-q"], { cwd: root });
  const sub = join(root, "src", "deep");
  mkdirSync(sub, { recursive: true });
  return { root, sub };
}

function cli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  return runProgram(args, opts);
}

async function hook(provider: string, root: string, payload: object) {
  const r = await runProgram(["hook", provider], {
    stdin: JSON.stringify(payload),
    cwd: root,
    env: { CLAUDE_PROJECT_DIR: root },
  });
  expect(r.code, r.stderr).toBe(0);
}

function config(root: string) {
  return JSON.parse(readFileSync(join(root, ".tapedeck", "config.json"), "utf8"));
}

// A terminal control of any kind: C0 (but newline), DEL, C1, bidi and separators.
const CONTROLS = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("which project: one rule for every command (issue 11.10)", () => {
  it("install from a subdirectory of a git repository installs at the git root and says so", async () => {
    const { root, sub } = gitProject();
    const r = await cli(["install", "claude", "--yes", "--transport", "command"], { cwd: sub });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${root} (the git root; you are in src/deep`);
    expect(r.stdout).toContain("--project .");
    expect(existsSync(join(root, ".tapedeck", "config.json"))).toBe(true);
    expect(existsSync(join(root, ".claude", "settings.local.json"))).toBe(true);
    expect(existsSync(join(sub, ".tapedeck"))).toBe(false);
    expect(existsSync(join(sub, ".claude"))).toBe(false);
  });

  it("record, status, list, doctor and uninstall from a subdirectory act on the installed project", async () => {
    const { root, sub } = gitProject();
    expect(
      (await cli(["install", "claude", "--yes", "--transport", "command", "--project", root])).code,
    ).toBe(0);
    const stop = await cli(["record", "stop"], { cwd: sub });
    expect(stop.code, stop.stderr).toBe(0);
    expect(config(root).providers.claude.recording).toBe("off");
    expect(JSON.parse((await cli(["status", "--json"], { cwd: sub })).stdout)).toMatchObject({
      project: root,
      recording: false,
    });
    expect((await cli(["record", "start"], { cwd: sub })).code).toBe(0);
    expect(config(root).providers.claude.recording).toBe("on");
    expect((await cli(["list"], { cwd: sub })).stdout).toContain(`No recorded sessions in ${root}.`);
    expect(JSON.parse((await cli(["doctor", "--json"], { cwd: sub })).stdout).project).toBe(root);
    const un = await cli(["uninstall", "claude"], { cwd: sub });
    expect(un.code, un.stderr).toBe(0);
    expect(un.stdout).toContain("Removed 18 tapedeck entries");
    expect(existsSync(join(root, ".claude", "settings.local.json"))).toBe(false);
  });

  it("the nearest installed project wins over the git root, and --project is taken as given", async () => {
    const { root, sub } = gitProject();
    const inner = join(root, "src");
    expect((await cli(["install", "gemini", "--yes", "--project", inner])).code).toBe(0);
    expect(JSON.parse((await cli(["status", "--json"], { cwd: sub })).stdout).project).toBe(inner);
    const here = await cli(["install", "gemini", "--yes", "--project", "."], { cwd: sub });
    expect(here.code, here.stderr).toBe(0);
    expect(existsSync(join(sub, ".tapedeck", "config.json"))).toBe(true);
  });
});

describe("status and record cover every installed provider (issue 11.11)", () => {
  it("with only Codex installed, status shows it recording and record stop stops it", async () => {
    const root = project();
    expect((await cli(["install", "codex", "--yes", "--project", root])).code).toBe(0);
    expect((await cli(["status", "--statusline", "--project", root])).stdout).toBe(
      "tapedeck ● REC capture-only\n",
    );
    const human = (await cli(["status", "--project", root])).stdout;
    expect(human).toContain("Codex CLI");
    expect(human).not.toContain("Claude");
    const stop = await cli(["record", "stop", "--project", root]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain("tapedeck ○ off  (Codex CLI");
    expect(config(root).providers.codex.recording).toBe("off");
    expect((await cli(["status", "--statusline", "--project", root])).stdout).toBe("tapedeck ○ off\n");
  });

  it("with two providers, record stop stops both, and --provider only the one named", async () => {
    const root = project();
    await cli(["install", "codex", "--yes", "--project", root]);
    await cli(["install", "gemini", "--yes", "--project", root]);
    expect((await cli(["record", "stop", "--provider", "gemini", "--project", root])).code).toBe(0);
    expect(config(root).providers.codex.recording).toBe("on");
    const status = JSON.parse((await cli(["status", "--json", "--project", root])).stdout);
    expect(status.recording).toBe(true);
    expect(
      status.providers.map((p: { provider: string; recording: boolean }) => [p.provider, p.recording]),
    ).toEqual([
      ["codex", true],
      ["gemini", false],
    ]);
    expect((await cli(["record", "stop", "--project", root])).code).toBe(0);
    expect(config(root).providers.codex.recording).toBe("off");
  });

  it("record start with nothing installed says what to install", async () => {
    const r = await cli(["record", "start", "--project", project()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tapedeck install claude");
  });
});

describe("--session-root is checked and kept out of git (issue 11.13)", () => {
  it("refuses a file and the project itself", async () => {
    const root = project();
    writeFileSync(join(root, "notes.txt"), "mine");
    const file = await cli([
      "install",
      "claude",
      "--yes",
      "--project",
      root,
      "--session-root",
      join(root, "notes.txt"),
    ]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("is not a directory");
    const itself = await cli(["install", "claude", "--yes", "--project", root, "--session-root", root]);
    expect(itself.code).toBe(2);
    expect(itself.stderr).toContain("holds the project itself");
    expect(existsSync(join(root, ".tapedeck"))).toBe(false);
  });

  it("a root outside .tapedeck gets a .gitignore of *, and the view warns first that git would track it", async () => {
    const { root } = gitProject();
    const r = await cli(
      ["install", "claude", "--yes", "--transport", "command", "--project", root, "--session-root", "rec"],
      {
        cwd: root,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("WARNING: git would track it now");
    expect(readFileSync(join(root, "rec", ".gitignore"), "utf8")).toBe("*\n");
    await hook("claude", root, {
      session_id: "sr-1",
      hook_event_name: "UserPromptSubmit",
      prompt: "secret plan",
    });
    expect(existsSync(join(root, "rec", "sr-1", "events.jsonl"))).toBe(true);
    // git add -A would not commit the prompt.
    execFileSync("git", ["add", "-A"], { cwd: root });
    const staged = execFileSync("git", ["diff", "--cached", "--name-only"], { cwd: root, encoding: "utf8" });
    expect(staged).not.toContain("rec/");
    // A second install finds it ignored: no warning.
    const again = await cli(
      ["install", "claude", "--yes", "--transport", "command", "--project", root, "--session-root", "rec"],
      {
        cwd: root,
      },
    );
    expect(again.stdout).not.toContain("WARNING");
    expect((await cli(["doctor", "--project", root])).stdout).not.toContain("not ignored by git");
    // Without tapedeck's .gitignore, doctor warns.
    rmSync(join(root, "rec", ".gitignore"));
    const doctor = (await cli(["doctor", "--project", root])).stdout;
    expect(doctor).toContain("rec is not ignored by git");
    expect(doctor).toContain(`printf '*\\n' > ${join(root, "rec", ".gitignore")}`);
  });
});

describe("--session-root must be the user's own directory (the owner rule)", () => {
  it("install refuses one others can write, and doctor fails one that became so", async () => {
    const root = project();
    const shared = join(project(), "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const r = await cli(["install", "claude", "--yes", "--project", root, "--session-root", shared]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`session root ${shared} is writable by group or others (mode 0777)`);
    expect(existsSync(join(root, ".tapedeck"))).toBe(false);

    chmodSync(shared, 0o700);
    const ok = await cli([
      "install",
      "claude",
      "--yes",
      "--transport",
      "command",
      "--project",
      root,
      "--session-root",
      shared,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    chmodSync(shared, 0o777);
    const doctor = await cli(["doctor", "--project", root]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`${shared} is writable by group or others (mode 0777)`);
  });

  it.runIf(CAN_CHOWN)("install refuses one another user owns", async () => {
    const root = project();
    const theirs = join(project(), "theirs");
    mkdirSync(theirs, { mode: 0o700 });
    giveToOtherUser(theirs);
    const r = await cli(["install", "claude", "--yes", "--project", root, "--session-root", theirs]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`session root ${theirs} belongs to another user (uid 65534)`);
    expect(readdirSync(theirs)).toEqual([]);
  });
});

describe("small slips (issue 11.16)", () => {
  it("uninstall where nothing is installed says so instead of reporting a removal", async () => {
    const root = project();
    const r = await cli(["uninstall", "codex", "--project", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Codex CLI was not installed in ${root}: nothing to remove.\n`);
  });

  it("uninstall of an unknown provider says uninstall", async () => {
    const r = await cli(["uninstall", "bogus", "--project", project()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot uninstall "bogus"');
  });

  it("an unknown --provider is a usage error for list, status, record and doctor", async () => {
    const root = project();
    for (const args of [["list"], ["status"], ["record", "status"], ["doctor"], ["inspect"]]) {
      const r = await cli([...args, "--provider", "claud", "--project", root]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain('unknown provider "claud"');
    }
  });

  it("export refuses --json instead of ignoring it", async () => {
    const r = await cli(["export", "x", "--format", "md", "--json", "--project", project()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--json");
  });

  it("doctor's hint names Gemini too", async () => {
    expect((await cli(["doctor", "--project", project()])).stdout).toContain("(or codex, gemini)");
  });

  it("the install view shows the configured limits", async () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"), { mode: 0o700 });
    writeFileSync(
      join(root, ".tapedeck", "config.json"),
      JSON.stringify({ schema_version: 1, providers: {}, limits: { max_string_bytes: 4096 } }),
    );
    const r = await cli(["install", "gemini", "--yes", "--project", root]);
    expect(r.stdout).toContain("4.0 KB per string");
    expect(config(root).limits).toEqual({ max_string_bytes: 4096 });
  });

  it("install with a broken config says so before showing a view of defaults, and changes nothing", async () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"), { mode: 0o700 });
    writeFileSync(join(root, ".tapedeck", "config.json"), '{"schema_version":1,');
    const r = await cli(["install", "gemini", "--yes", "--project", root]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("config.json:1:21: is not valid JSON");
    expect(readFileSync(join(root, ".tapedeck", "config.json"), "utf8")).toBe('{"schema_version":1,');
    expect(existsSync(join(root, ".gemini"))).toBe(false);
  });

  it("uninstall removes the settings file (and directory) install created", async () => {
    const root = project();
    for (const provider of ["claude", "codex", "gemini"]) {
      expect(
        (await cli(["install", provider, "--yes", "--transport", "command", "--project", root])).code,
      ).toBe(0);
      expect((await cli(["uninstall", provider, "--project", root])).code).toBe(0);
    }
    expect(existsSync(join(root, ".claude"))).toBe(false);
    expect(existsSync(join(root, ".codex"))).toBe(false);
    expect(existsSync(join(root, ".gemini"))).toBe(false);
  });

  it("uninstall keeps a settings file that holds the user's own settings", async () => {
    const root = project();
    mkdirSync(join(root, ".gemini"));
    writeFileSync(join(root, ".gemini", "settings.json"), JSON.stringify({ theme: "dark" }));
    await cli(["install", "gemini", "--yes", "--project", root]);
    await cli(["uninstall", "gemini", "--project", root]);
    expect(JSON.parse(readFileSync(join(root, ".gemini", "settings.json"), "utf8"))).toEqual({
      theme: "dark",
    });
  });

  it("delete removes the session's registry entry", async () => {
    const root = project();
    await cli(["install", "claude", "--yes", "--transport", "command", "--project", root]);
    await hook("claude", root, { session_id: "reg-1", hook_event_name: "SessionStart", source: "startup" });
    const entry = join(tapedeckHome(), "registry", "claude", "reg-1.json");
    expect(existsSync(entry)).toBe(true);
    expect((await cli(["delete", "reg-1", "--yes", "--force", "--project", root])).code).toBe(0);
    expect(existsSync(entry)).toBe(false);
  });

  it("mirror restore: exit 3 for a missing session, SESSION as a prefix or last, --force named as such", async () => {
    const root = project();
    const home = join(root, "claude-home");
    const mirror = join(root, "mirrors");
    const restore = (session: string, ...more: string[]) =>
      cli([
        "mirror",
        "restore",
        session,
        "--project",
        root,
        "--claude-home",
        home,
        "--mirror-dir",
        mirror,
        ...more,
      ]);
    expect((await restore("nope")).code).toBe(3);
    // An archived session and its mirror.
    await cli(["install", "claude", "--yes", "--transport", "command", "--project", root]);
    const id = "abcdef12-0000-4000-8000-000000000001";
    await hook("claude", root, { session_id: id, hook_event_name: "SessionStart", source: "startup" });
    mkdirSync(join(mirror, id), { recursive: true });
    const message = {
      type: "user",
      uuid: "u1",
      message: { role: "user", content: "hello" },
      timestamp: "2026-11-29T10:00:00.000Z",
    };
    writeFileSync(join(mirror, id, "2026-11-29T10-00-00.000Z.jsonl"), `${JSON.stringify(message)}\n`);
    const byPrefix = await restore("abcdef12");
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toContain(`claude --resume ${id}`);
    const again = await restore("last");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("pass --force");
    expect((await restore("last", "--force")).code).toBe(0);
  });
});

describe("nothing the CLI prints can steer the terminal (issue 10.7)", () => {
  it("install, status, record and doctor strip controls from a project path", async () => {
    const hostile = join(project(), "proj\u001b]0;owned\u0007\u202e");
    mkdirSync(hostile);
    const outputs = [
      await cli(["install", "gemini", "--yes", "--project", hostile]),
      await cli(["status", "--project", hostile]),
      await cli(["record", "stop", "--project", hostile]),
      await cli(["doctor", "--project", hostile]),
      await cli(["list", "--project", hostile]),
    ];
    for (const [i, out] of outputs.entries()) {
      expect(out.stdout, `output ${i}`).toContain("proj");
      expect(out.stdout + out.stderr, `output ${i}`).not.toMatch(CONTROLS);
    }
  });

  it("list, inspect, last, export md, delete and errors strip escapes, BEL and bidi controls from ids", async () => {
    const root = project();
    await cli(["install", "claude", "--yes", "--transport", "command", "--project", root]);
    await hook("claude", root, { session_id: "plain-1", hook_event_name: "SessionStart", source: "startup" });
    await hook("claude", root, { session_id: "plain-1", hook_event_name: "UserPromptSubmit", prompt: "hi" });
    // The recorder cleans ids it is given; a manifest planted or edited on disk is not cleaned by anyone.
    const id = "evil\u001b]0;owned\u0007\u001b[2J\u202eid\u0085x";
    const manifestPath = join(root, ".tapedeck", "claude-sessions", "plain-1", "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    writeFileSync(
      manifestPath,
      JSON.stringify({
        ...manifest,
        provider_session_id: id,
        session_id: `claude:${id}`,
        recording_mode: `\u001b[31m`,
      }),
    );
    const outputs = [
      (await cli(["list", "--project", root])).stdout,
      (await cli(["inspect", "last", "--project", root])).stdout,
      (await cli(["last", "--project", root])).stdout,
      (await cli(["export", "last", "--format", "md", "--project", root])).stdout
        .split("\n")
        .slice(0, 14)
        .join("\n"),
      (await cli(["inspect", "evil\u001b[2J", "--project", root])).stderr,
      (await cli(["list", "--json", "--project", root])).stdout,
      (await cli(["delete", "last", "--yes", "--force", "--project", root])).stdout,
    ];
    for (const [i, out] of outputs.entries()) {
      expect(out.length, `output ${i}`).toBeGreaterThan(0);
      expect(out).not.toMatch(CONTROLS);
    }
    expect(outputs[0]).toContain("evil");
    // JSON keeps the data exact: the id parses back unchanged.
    expect(JSON.parse(outputs[5]!)[0].provider_session_id).toBe(id);
  });
});
