// Hostile files where tapedeck reads an agent's file or its own (issue 11
// items 6 and 8, issue 10 item 7): a FIFO planted as a transcript, a rollout,
// a settings file, config.toml, auth.json, .git/HEAD or diagnostics.jsonl is
// refused at once instead of blocking the hook or the CLI; export --force
// never writes through a symlink; a credential-like session id never names a
// mirror directory. Anything that could block runs in a child with a
// timeout: one child for all of them, each planted first.
import { execFileSync, spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
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
import { useScratchDir, useTempProjects } from "../helpers/temp-project.ts";

const childJs = useBundledScript("test/helpers/agent-file-child.ts", { externalPackages: true });
const dir = useTempProjects();
const scratch = useScratchDir("tapedeck-agent-files-");

function mkfifo(path: string): string {
  execFileSync("mkfifo", [path]);
  return path;
}

/** A folder of its own for a scenario's files, kept until the file's tests are done. */
function folder(): string {
  const d = scratch.fresh("d");
  mkdirSync(d);
  return d;
}

interface ChildRun {
  /** false when the child was killed at the timeout before this scenario ended: it blocked */
  finished: boolean;
  output?: { ok: boolean; result?: unknown; code?: string };
}

/**
 * The FIFO scenarios, each planted before the child starts and run in one child (one Node start instead of
 * twelve, ~100 ms each), which reports each as it ends.
 */
const planted: Array<{ plant: () => string[]; run?: ChildRun }> = [];
/**
 * Whether the child exited by itself once the scenarios ended: a read left pending on a FIFO (a thread of the
 * pool blocked in open) keeps a hook from exiting though every scenario answered.
 */
let exitedItself: boolean | undefined;

/** A scenario of the child: `plant` makes its files and answers its arguments; the result is read in the test. */
function scenario(plant: () => string[]): () => ChildRun {
  const s: (typeof planted)[number] = { plant };
  planted.push(s);
  return () => {
    if (!s.run) throw new Error("the scenarios run in beforeAll");
    return s.run;
  };
}

beforeAll(() => {
  const args = planted.map((s) => s.plant());
  const r = spawnSync(process.execPath, [childJs(), JSON.stringify(args)], {
    encoding: "utf8",
    timeout: CHILD_TIMEOUT_MS,
    killSignal: "SIGKILL",
    cwd: process.cwd(),
  });
  exitedItself = r.signal === null && r.error === undefined && r.status === 0;
  const ended = new Map<number, ChildRun["output"]>();
  for (const line of (r.stdout ?? "").split("\n")) {
    if (!line.startsWith('{"scenario":')) continue;
    const { scenario: i, ...output } = JSON.parse(line) as { scenario: number } & ChildRun["output"];
    ended.set(i, output as ChildRun["output"]);
  }
  planted.forEach((s, i) => {
    s.run = { finished: ended.has(i), ...(ended.has(i) ? { output: ended.get(i) } : {}) };
  });
});

/** The child's result when it is a list of messages, one string. */
function lines(r: ChildRun): string {
  return Array.isArray(r.output?.result) ? r.output.result.join("\n") : "";
}

describe("a FIFO planted where an agent's file belongs never blocks (11.6)", () => {
  const transcript = scenario(() => ["transcript", mkfifo(join(folder(), "t.jsonl"))]);
  it("a Claude transcript on the hook path", () => {
    const r = transcript();
    expect(r.finished).toBe(true);
    expect(r.output).toEqual({ ok: true, result: 0 });
  });

  const rollout = scenario(() => ["rollout", mkfifo(join(folder(), "rollout.jsonl"))]);
  it("a Codex rollout on the hook path", () => {
    const r = rollout();
    expect(r.finished).toBe(true);
    expect(r.output).toEqual({ ok: true, result: 0 });
  });

  const settings = scenario(() => ["settings", mkfifo(join(folder(), "settings.json"))]);
  it("an agent's JSON settings file: a clear error, not a hang", () => {
    const r = settings();
    expect(r.finished).toBe(true);
    expect(r.output).toMatchObject({ ok: false });
  });

  const toml = scenario(() => ["toml", mkfifo(join(folder(), "config.toml"))]);
  it("a Codex config.toml edited as text", () => {
    const r = toml();
    expect(r.finished).toBe(true);
    expect(r.output).toMatchObject({ ok: false });
  });

  const codexTrust = scenario(() => {
    const project = folder();
    const home = folder();
    mkdirSync(join(project, ".codex"));
    mkfifo(join(project, ".codex", "hooks.json"));
    mkfifo(join(home, "config.toml"));
    return ["codex-trust", project, home];
  });
  it("Codex's hooks.json and config.toml read for the trust check", () => {
    const r = codexTrust();
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
    expect(lines(r)).toMatch(/cannot read .*hooks\.json[\s\S]*cannot read .*config\.toml/);
  });

  const codexEndpoint = scenario(() => {
    const home = folder();
    mkfifo(join(home, "auth.json"));
    mkfifo(join(home, "config.toml"));
    return ["codex-endpoint", home, folder()];
  });
  it("Codex's auth.json and config.toml read for the endpoint", () => {
    const r = codexEndpoint();
    expect(r.finished).toBe(true);
    expect(r.output).toMatchObject({ ok: true, result: { login: false } });
  });

  const gemini = scenario(() => {
    const project = folder();
    mkdirSync(join(project, ".gemini"));
    mkfifo(join(project, ".gemini", "settings.json"));
    return ["gemini", project];
  });
  it("Gemini's settings.json read after install", () => {
    const r = gemini();
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
  });

  const mirrorSettings = scenario(() => ["mirror-settings", mkfifo(join(folder(), "proxy.json"))]);
  it("the proxy's mirror settings file: a warning, not a hang", () => {
    const r = mirrorSettings();
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
    expect(lines(r)).toMatch(/proxy\.json: unreadable/);
  });

  const restore = scenario(() => {
    const project = folder();
    const mirror = folder();
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
    return ["restore", project, mirror, folder()];
  });
  it("a repository's .git/HEAD read by mirror restore", () => {
    const r = restore();
    expect(r.finished).toBe(true);
    // The user record and the closing last-prompt.
    expect(r.output).toMatchObject({ ok: true, result: 2 });
  });
});

describe("the FIFOs' child", () => {
  it("exits by itself once every scenario has ended: no read of a FIFO is left pending", () => {
    expect(exitedItself).toBe(true);
  });
});

describe("doctor never hangs on a FIFO (11.6, 11.8)", () => {
  function installed(): string {
    const project = folder();
    mkdirSync(join(project, ".tapedeck"), { mode: 0o700 });
    writeConfig(project, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only", transport: "command" } },
    });
    return project;
  }

  const diagnostics = scenario(() => {
    const project = installed();
    mkfifo(join(project, ".tapedeck", "diagnostics.jsonl"));
    return ["doctor", project];
  });
  it("as .tapedeck/diagnostics.jsonl", () => {
    const r = diagnostics();
    expect(r.finished).toBe(true);
    expect(r.output?.ok).toBe(true);
  });

  const agentSettings = scenario(() => {
    const project = installed();
    return ["doctor", project, mkfifo(join(project, "settings.json"))];
  });
  it("as the agent's settings file: reported missing, at once", () => {
    const r = agentSettings();
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

  let fifo = "";
  const exported = scenario(() => {
    fifo = mkfifo(join(folder(), "export.jsonl"));
    return ["export", fifo];
  });
  it("replaces a FIFO instead of blocking on it", () => {
    const r = exported();
    expect(r.finished).toBe(true);
    expect(r.output).toEqual({ ok: true, result: "written" });
    expect(readFileSync(fifo, "utf8")).toBe("exported\n");
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
