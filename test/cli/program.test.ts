// The in-process harness (test/helpers/program.ts) answers what the binary answers: the same exit code,
// stdout and stderr for the same arguments, so a test of a command's output may run it either way.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { ensureBuilt, runCli } from "../helpers/cli-run.ts";
import { runCliInProcess, runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

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
