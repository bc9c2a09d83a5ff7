// Hostile files where tapedeck reads an agent's file or its own (issue 11
// items 6 and 8, issue 10 item 7): a FIFO planted as a transcript, a rollout,
// a settings file, config.toml, auth.json, .git/HEAD or diagnostics.jsonl is
// refused at once instead of blocking the hook or the CLI; export --force
// never writes through a symlink; a credential-like session id never names a
// mirror directory. Anything that could block runs in a child with a timeout.
import { execFileSync, spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeExportFile } from "../../src/cli/commands/export/export-file.ts";
import { writeConfig } from "../../src/core/archive/config.ts";
import { readMirrorSession } from "../../src/providers/claude/mirror/restore.ts";
import {
  legacyMirrorDirName,
  MirrorWriter,
  mirrorDirName,
} from "../../src/providers/claude/mirror/writer.ts";
import { useBundledScript } from "../helpers/bundle.ts";
import { CHILD_TIMEOUT_MS } from "../helpers/child.ts";
import { useTempProjects } from "../helpers/temp-project.ts";

const childJs = useBundledScript("test/helpers/agent-file-child.ts", { externalPackages: true });
const dir = useTempProjects();

function mkfifo(path: string): string {
  execFileSync("mkfifo", [path]);
  return path;
}

/** Runs one scenario of the child; `finished` is false when it blocked until the kill. */
function child(...args: string[]): {
  finished: boolean;
  output?: { ok: boolean; result?: unknown; code?: string };
} {
  const r = spawnSync(process.execPath, [childJs(), ...args], {
    encoding: "utf8",
    timeout: CHILD_TIMEOUT_MS,
    killSignal: "SIGKILL",
    cwd: process.cwd(),
  });
  const finished = r.signal === null && r.error === undefined;
  const line = r.stdout?.trim().split("\n").at(-1);
  return { finished, output: line ? JSON.parse(line) : undefined };
}

/** The child's result when it is a list of messages, one string. */
function lines(r: ReturnType<typeof child>): string {
  return Array.isArray(r.output?.result) ? r.output.result.join("\n") : "";
}

describe("a FIFO planted where an agent's file belongs never blocks (11.6)", () => {
  it("a Claude transcript on the hook path", () => {
    const r = child("transcript", mkfifo(join(dir(), "t.jsonl")));
    expect(r.finished).toBe(true);
    expect(r.output).toEqual({ ok: true, result: 0 });
  });

  it("a Codex rollout on the hook path", () => {
    const r = child("rollout", mkfifo(join(dir(), "rollout.jsonl")));
    expect(r.finished).toBe(true);
    expect(r.output).toEqual({ ok: true, result: 0 });
  });

  it("an agent's JSON settings file: a clear error, not a hang", () => {
    const r = child("settings", mkfifo(join(dir(), "settings.json")));
    expect(r.finished).toBe(true);
    expect(r.output).toMatchObject({ ok: false });
  });

  it("a Codex config.toml edited as text", () => {
    const r = child("toml", mkfifo(join(dir(), "config.toml")));
    expect(r.finished).toBe(true);
    expect(r.output).toMatchObject({ ok: false });
  });

  it("Codex's hooks.json and config.toml read for the trust check", () => {
    const project = dir();
    const home = dir();
    mkdirSync(join(project, ".codex"));
    mkfifo(join(project, ".codex", "hooks.json"));
    mkfifo(join(home, "config.toml"));
    const r = child("codex-trust", project, home);
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
    expect(lines(r)).toMatch(/cannot read .*hooks\.json[\s\S]*cannot read .*config\.toml/);
  });

  it("Codex's auth.json and config.toml read for the endpoint", () => {
    const home = dir();
    mkfifo(join(home, "auth.json"));
    mkfifo(join(home, "config.toml"));
    const r = child("codex-endpoint", home, dir());
    expect(r.finished).toBe(true);
    expect(r.output).toMatchObject({ ok: true, result: { login: false } });
  });

  it("Gemini's settings.json read after install", () => {
    const project = dir();
    mkdirSync(join(project, ".gemini"));
    mkfifo(join(project, ".gemini", "settings.json"));
    const r = child("gemini", project);
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
  });

  it("the proxy's mirror settings file: a warning, not a hang", () => {
    const r = child("mirror-settings", mkfifo(join(dir(), "proxy.json")));
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
    expect(lines(r)).toMatch(/proxy\.json: unreadable/);
  });

  it("a repository's .git/HEAD read by mirror restore", () => {
    const project = dir();
    const mirror = dir();
    mkdirSync(join(project, ".git"));
    mkfifo(join(project, ".git", "HEAD"));
    mkdirSync(join(mirror, "sess-1"));
    const user = {
      type: "user",
      uuid: "u1",
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "user", content: "hi" },
    };
    writeFileSync(join(mirror, "sess-1", "2026-01-01T00-00-00-000Z.jsonl"), `${JSON.stringify(user)}\n`);
    const r = child("restore", project, mirror, dir());
    expect(r.finished).toBe(true);
    // The user record and the closing last-prompt.
    expect(r.output).toMatchObject({ ok: true, result: 2 });
  });
});

describe("doctor never hangs on a FIFO (11.6, 11.8)", () => {
  function installed(): string {
    const project = dir();
    mkdirSync(join(project, ".tapedeck"), { mode: 0o700 });
    writeConfig(project, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only", transport: "command" } },
    });
    return project;
  }

  it("as .tapedeck/diagnostics.jsonl", () => {
    const project = installed();
    mkfifo(join(project, ".tapedeck", "diagnostics.jsonl"));
    const r = child("doctor", project);
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
  });

  it("as the agent's settings file: reported missing, at once", () => {
    const project = installed();
    const settings = mkfifo(join(project, "settings.json"));
    const r = child("doctor", project, settings);
    expect(r.finished).toBe(true);
    expect(lines(r)).toMatch(/settings\.json is missing/);
  });
});

describe("export --out FILE --force never writes through a symlink", () => {
  it("refuses the link and leaves its target untouched", () => {
    const root = dir();
    const victim = join(root, "victim.txt");
    writeFileSync(victim, "keep me\n");
    const out = join(root, "export.jsonl");
    symlinkSync(victim, out);
    expect(() => writeExportFile(out, "exported\n", true)).toThrow(/symlink/);
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    expect(lstatSync(out).isSymbolicLink()).toBe(true);
  });

  it("replaces a regular file with a private one, and without --force refuses it", () => {
    const root = dir();
    const out = join(root, "export.jsonl");
    writeFileSync(out, "old\n", { mode: 0o644 });
    expect(() => writeExportFile(out, "new\n", false)).toThrow(/--force/);
    writeExportFile(out, "new\n", true);
    expect(readFileSync(out, "utf8")).toBe("new\n");
    expect(lstatSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(root)).toEqual(["export.jsonl"]);
  });

  it("replaces a FIFO instead of blocking on it", () => {
    const out = mkfifo(join(dir(), "export.jsonl"));
    const r = child("export", out);
    expect(r.finished).toBe(true);
    expect(r.output).toEqual({ ok: true, result: "written" });
    expect(readFileSync(out, "utf8")).toBe("exported\n");
  });
});

describe("mirror directories are named from the stored id (10.7)", () => {
  const token = `ghp_${"A1b2C3d4E5f6G7h8I9j0".repeat(2)}`;

  it("a credential-like session id never lands on disk; the same id finds the same mirror", async () => {
    const root = dir();
    const writer = new MirrorWriter({ root, maxBytes: 1 << 20, retentionDays: 30 });
    const target = { sessionId: token, agentId: null };
    const user = { uuid: "u1", type: "user", message: { role: "user", content: "hi" } };
    const r = await writer.append(target, () => ({ records: [user] }));
    expect(r.ok).toBe(true);
    const names = readdirSync(root);
    expect(names.join("\n")).not.toContain(token);
    expect(names).toContain(mirrorDirName(token));
    expect(mirrorDirName(token)).toMatch(/^redacted-[0-9a-f]{32}$/);
    expect(readMirrorSession(root, token).records).toHaveLength(1);
    // `tapedeck list` shows the stored id: it finds the same mirror.
    expect(readMirrorSession(root, mirrorDirName(token)).records).toHaveLength(1);
  });

  it("a mirror written under the raw name before is still read, before the new one", () => {
    const root = dir();
    const rec = (text: string) => ({ type: "user", message: { role: "user", content: text } });
    mkdirSync(join(root, legacyMirrorDirName(token)));
    writeFileSync(
      join(root, legacyMirrorDirName(token), "2026-01-01T00-00-00-000Z.jsonl"),
      `${JSON.stringify(rec("old"))}\n`,
    );
    mkdirSync(join(root, mirrorDirName(token)));
    writeFileSync(
      join(root, mirrorDirName(token), "2026-01-02T00-00-00-000Z.jsonl"),
      `${JSON.stringify(rec("new"))}\n`,
    );
    const read = readMirrorSession(root, token);
    expect(read.records.map((r) => (r.message as { content: string }).content)).toEqual(["old", "new"]);
  });

  it("a harmless id keeps the name it always had", () => {
    for (const id of [
      "0b6d1c9e-6c3f-4a4e-9d1b-2f3a4b5c6d7e",
      "a/b",
      "x".repeat(300),
      "session-mirror-events",
    ]) {
      expect(mirrorDirName(id)).toBe(legacyMirrorDirName(id));
    }
  });
});
