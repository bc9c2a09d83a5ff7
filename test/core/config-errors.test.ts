// A broken .tapedeck/config.json (issue 11 item 9) is never "not installed":
// it is an error naming the file, line and column and none of its content,
// it is never overwritten, the hook records a content-free diagnostic, and
// doctor and status say what is wrong.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  findProjectRoot,
  loadConfig,
  readConfigFile,
  writeConfig,
} from "../../src/core/archive/config.ts";
import { runHook } from "../../src/core/hook/recorder.ts";
import { claudeAdapter } from "../../src/providers/claude/adapter.ts";
import { runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

const SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
// A trailing comma on line 4, after a value that must never be quoted back.
const BROKEN = `{
  "schema_version": 1,
  "providers": {
    "claude": { "recording": "on", "mode": "capture-only", "note": "${SECRET}" },
    "codex": { "recording": "on", "mode": "capture-only" },
  },
  "limits": { "max_event_bytes": 65536 }
}
`;

function brokenProject(): { root: string; path: string } {
  const root = project();
  mkdirSync(join(root, ".tapedeck"));
  const path = join(root, ".tapedeck", "config.json");
  writeFileSync(path, BROKEN);
  return { root, path };
}

describe("a corrupt config.json (11.9)", () => {
  it("is an error that names the file, line and column, and quotes nothing of it", () => {
    const { root, path } = brokenProject();
    const read = readConfigFile(root);
    expect(read.state).toBe("invalid");
    const error = (read as { error: ConfigError }).error;
    expect(error.position).toEqual({ line: 6, column: 3 });
    expect(error.message).toContain(`${path}:6:3: is not valid JSON`);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain("claude");
    expect(() => loadConfig(root)).toThrow(ConfigError);
  });

  it("still marks its project, from a subdirectory too", () => {
    const { root } = brokenProject();
    mkdirSync(join(root, "src"));
    expect(findProjectRoot(join(root, "src"))).toBe(root);
  });

  it("is never overwritten: writeConfig refuses, the other providers' settings and limits stay", () => {
    const { root, path } = brokenProject();
    expect(() => writeConfig(root, { schema_version: 1, providers: {} })).toThrow(ConfigError);
    expect(readFileSync(path, "utf8")).toBe(BROKEN);
  });

  it("a valid JSON file that is not a config is named as such", () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"));
    writeFileSync(join(root, ".tapedeck", "config.json"), "[1, 2]\n");
    const read = readConfigFile(root);
    expect(read.state === "invalid" && read.error.message).toMatch(/is not a tapedeck config/);
  });

  it("a hook records a content-free diagnostic instead of recording silently nothing", () => {
    const { root } = brokenProject();
    const payload = { session_id: "s1", hook_event_name: "UserPromptSubmit", prompt: "hello", cwd: root };
    const result = runHook(
      claudeAdapter,
      { data: Buffer.from(JSON.stringify(payload)), overflow: false },
      { CLAUDE_PROJECT_DIR: root },
    );
    expect(result.status).toBe("not-enabled");
    const diagnostics = readFileSync(join(root, ".tapedeck", "diagnostics.jsonl"), "utf8");
    expect(diagnostics).toContain('"config_invalid"');
    expect(diagnostics).not.toContain(SECRET);
    expect(diagnostics).not.toContain("hello");
  });

  it("doctor, status and install say what is wrong and exit 1; install leaves the file as it was", async () => {
    const { root, path } = brokenProject();
    for (const args of [["doctor"], ["status"], ["install", "claude", "--yes"]]) {
      const r = await runProgram([...args, "--project", root], {
        env: { TAPEDECK_HOME: join(root, "home") },
      });
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toContain(`${path}:6:3: is not valid JSON`);
      expect(r.stderr + r.stdout).not.toContain(SECRET);
    }
    expect(readFileSync(path, "utf8")).toBe(BROKEN);
  });
});
