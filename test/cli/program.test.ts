// The in-process harness (test/helpers/program.ts) answers what the binary answers: the same exit code,
// stdout and stderr for the same arguments, so a test of a command's output may run it either way.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { ensureBuilt, runCli } from "../helpers/cli-run.ts";
import { runCliInProcess, runProgram } from "../helpers/program.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

beforeAll(ensureBuilt);
const project = useTempProjects();
const before = { tmpdir: process.env.TMPDIR };

describe("runProgram, the command line in process", () => {
  it("answers as dist/cli.js does: version, help, a usage error, an unknown command, a list", async () => {
    const root = project();
    const home = join(root, "home");
    fakeSession(root, { id: "abc-111", daysAgo: 1 });
    for (const args of [
      ["--version"],
      ["list", "--help"],
      ["list", "--limit", "x", "--project", root],
      ["lsit"],
      ["list", "--project", root, "--json"],
      ["show", "nothing-here", "--project", root],
    ]) {
      const inProcess = await runCliInProcess(args, home);
      const binary = runCli(args, home);
      expect(inProcess, args.join(" ")).toEqual(binary);
    }
  });

  it("sets the variables in the process's own environment, where Node reads TMPDIR and HOME", async () => {
    // install asks for --yes without a terminal unless the project is under the temporary directory: given
    // another TMPDIR, this project is a lasting one for the run, as it is for the binary.
    const root = project();
    const home = join(root, "home");
    const args = ["install", "claude", "--project", root];
    const env = { TMPDIR: join(root, "elsewhere") };
    const binary = runCli(args, home, env);
    expect(binary.code).toBe(2);
    expect(await runCliInProcess(args, home, env)).toEqual(binary);
    expect(process.env.TMPDIR).toBe(before.tmpdir);
  });

  it("sets a command's own exit code (a search with no hit) and the cwd and env only for the run", async () => {
    const root = project();
    const before = { cwd: process.cwd(), home: process.env.HOME };
    const r = await runProgram(["search", "nothing-matches-this", "--json"], {
      cwd: root,
      env: { HOME: join(root, "home"), TAPEDECK_HOME: join(root, "home", ".tapedeck") },
    });
    expect(r.code).toBe(1);
    expect({ cwd: process.cwd(), home: process.env.HOME }).toEqual(before);
  });

  it("a run sees only the environment it is given when it inherits none", async () => {
    const root = project();
    const r = await runProgram(["config", "get", "otel.endpoint", "--json", "--project", root], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ source: "environment" });
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = "http://127.0.0.1:4318";
    try {
      const alone = await runProgram(["config", "get", "otel.endpoint", "--json", "--project", root], {
        env: { PATH: process.env.PATH, HOME: join(root, "home") },
        inheritEnv: false,
      });
      expect(JSON.parse(alone.stdout).source).not.toBe("environment");
      expect(process.env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe("http://127.0.0.1:4318");
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    }
  });

  it("refuses two runs at once: each sets the process's env and cwd", async () => {
    const first = runProgram(["--version"]);
    await expect(runProgram(["--version"])).rejects.toThrow(/one run at a time/);
    expect((await first).code).toBe(0);
  });
});

describe("a command run in process reads the stdin it is handed, never the test process's own", () => {
  it("tapedeck hook records the payload on it", async () => {
    const root = project();
    writeConfig(root, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only" } },
    });
    const payload = {
      session_id: "in-1",
      transcript_path: "/nonexistent",
      hook_event_name: "UserPromptSubmit",
    };
    const r = await runProgram(["hook", "claude", "--strict", "--json", "--project", root], {
      stdin: JSON.stringify({ ...payload, prompt: "handed on stdin" }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "recorded" });
    const events = join(root, ".tapedeck", "claude-sessions", "in-1", "events.jsonl");
    expect(readFileSync(events, "utf8")).toContain("handed on stdin");
  });

  it("memory edit --text-file - takes the new text from it", async () => {
    const root = project();
    recordEvents(spec(root), [
      { ...event("user_prompt", "p1", { prompt: "which port does the gizmo use?" }), turn_id: "t1" },
      { ...event("assistant_message", "a1", { text: "The gizmo listens on 7311." }), turn_id: "t1" },
    ]);
    const promoted = await runProgram(["promote", "last", "--project", root, "--yes", "--json"]);
    expect(promoted.code, promoted.stderr).toBe(0);
    const [id] = JSON.parse(promoted.stdout).created as string[];
    const edit = await runProgram(["memory", "edit", id!, "--text-file", "-", "--project", root], {
      stdin: "the gizmo uses 7311",
    });
    expect(edit.code, edit.stderr).toBe(0);
    const shown = await runProgram(["memory", "show", id!, "--json", "--project", root]);
    expect(JSON.parse(shown.stdout).body).toBe("the gizmo uses 7311");
  });
});
