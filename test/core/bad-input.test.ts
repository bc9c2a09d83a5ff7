// Hostile and broken hook input: each gets a bounded, safe record or a clear
// refusal, never a crash, a hang, or a write outside the session root.
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { type HookInput, runHook } from "../../src/core/hook/recorder.ts";
import { claudeAdapter } from "../../src/providers/claude/adapter.ts";
import { tempProject } from "../helpers/session.ts";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function enabledProject(sessionRoot?: string): string {
  const p = tempProject();
  cleanups.push(p.cleanup);
  writeConfig(p.root, {
    schema_version: 1,
    providers: {
      claude: {
        recording: "on",
        mode: "capture-only",
        ...(sessionRoot ? { session_root: sessionRoot } : {}),
      },
    },
  });
  return p.root;
}

function input(data: string | Buffer): HookInput {
  return { data: Buffer.isBuffer(data) ? data : Buffer.from(data), overflow: false };
}

function hook(root: string, payload: unknown) {
  return runHook(claudeAdapter, input(JSON.stringify(payload)), { CLAUDE_PROJECT_DIR: root });
}

function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: assertions reach into arbitrary payload shapes
type Loose = Record<string, any>;

function sessionLines(root: string, id: string): Loose[] {
  return readFileSync(join(root, ".tapedeck", "claude-sessions", id, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const base = {
  session_id: "s1",
  transcript_path: "/nonexistent",
  hook_event_name: "UserPromptSubmit",
  prompt_id: "p1",
};

describe("bad hook input", () => {
  it("malformed JSON is refused with a reason and writes no event", () => {
    const root = enabledProject();
    const out = runHook(claudeAdapter, input('{"session_id": "s1", "prompt": '), {
      CLAUDE_PROJECT_DIR: root,
    });
    expect(out.status).toBe("bad-input");
    expect(out.reason).toBe("input is not valid JSON");
    const diag = readFileSync(join(root, ".tapedeck", "diagnostics.jsonl"), "utf8");
    expect(diag).toContain('"stage":"parse"');
  });

  it("empty and over-limit input are refused", () => {
    const root = enabledProject();
    expect(runHook(claudeAdapter, input(""), { CLAUDE_PROJECT_DIR: root }).status).toBe("bad-input");
    const over = runHook(
      claudeAdapter,
      { data: Buffer.alloc(0), overflow: true },
      { CLAUDE_PROJECT_DIR: root },
    );
    expect(over.reason).toBe("input larger than the hook limit");
  });

  it("a non-object payload becomes a safe provider_event", () => {
    const root = enabledProject();
    const out = runHook(claudeAdapter, input("[1,2,3]"), {
      CLAUDE_PROJECT_DIR: root,
      CLAUDE_CODE_SESSION_ID: "s9",
    });
    expect(out.status).toBe("recorded");
    const [e] = sessionLines(root, "s9");
    expect(e?.kind).toBe("provider_event");
  });

  it("a 50 MB payload is recorded bounded, quickly enough", () => {
    const root = enabledProject();
    const big = "A quick brown fox. ".repeat(Math.ceil((50 * 1024 * 1024) / 19));
    const out = hook(root, { ...base, prompt: big });
    expect(out.status).toBe("recorded");
    const [e] = sessionLines(root, "s1");
    expect(Buffer.byteLength(JSON.stringify(e))).toBeLessThan(256 * 1024);
    expect(e?.truncations[0]).toMatchObject({ path: "payload.prompt", reason: "string" });
    expect(e?.payload.prompt).toMatch(/…\[truncated \d+ bytes\]…/);
  });

  it("10,000-deep nesting does not overflow the stack", () => {
    const root = enabledProject();
    // Built as text: stringifying such an object would overflow the test's own stack.
    const deep = `${'{"d":'.repeat(10_000)}"leaf"${"}".repeat(10_000)}`;
    const head = JSON.stringify({
      ...base,
      hook_event_name: "PreToolUse",
      tool_use_id: "t1",
      tool_name: "X",
    });
    const text = `${head.slice(0, -1)},"tool_input":${deep}}`;
    const out = runHook(claudeAdapter, input(text), { CLAUDE_PROJECT_DIR: root });
    expect(out.status).toBe("recorded");
    const [e] = sessionLines(root, "s1");
    expect(e?.truncations.some((t: { reason: string }) => t.reason === "depth")).toBe(true);
  });

  it("100,000-deep nesting in an event without ids (hashed whole) is still recorded", () => {
    const root = enabledProject();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const head = JSON.stringify({ session_id: "s1", hook_event_name: "SomeFutureEvent" });
    const out = runHook(claudeAdapter, input(`${head.slice(0, -1)},"blob":${deep}}`), {
      CLAUDE_PROJECT_DIR: root,
    });
    expect(out.status).toBe("recorded");
    const [e] = sessionLines(root, "s1");
    expect(e?.kind).toBe("provider_event");
  });

  it("invalid UTF-8 and NUL bytes are stored as valid JSON", () => {
    const root = enabledProject();
    const prefix = Buffer.from(JSON.stringify({ ...base, prompt: "x" }).replace('"x"', '"a'));
    const data = Buffer.concat([prefix, Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('\\u0000b"}')]);
    const out = runHook(claudeAdapter, input(data), { CLAUDE_PROJECT_DIR: root });
    expect(out.status).toBe("recorded");
    const raw = readFileSync(join(root, ".tapedeck", "claude-sessions", "s1", "events.jsonl"));
    const e = JSON.parse(raw.toString("utf8"));
    expect(e.payload.prompt).toContain("\u0000b");
  });

  it("a traversal session id stays inside the session root", () => {
    const root = enabledProject();
    const out = hook(root, { ...base, session_id: "../../etc/passwd" });
    expect(out.status).toBe("recorded");
    const dirs = readdirSync(join(root, ".tapedeck", "claude-sessions"));
    expect(dirs).toHaveLength(1);
    expect(dirs[0]).toMatch(/^h-[0-9a-f]{32}$/);
    for (const f of allFiles(root)) expect(f.startsWith(root)).toBe(true);
  });

  it("a session root symlinked outside the project is refused", () => {
    const outside = tempProject("tapedeck-outside-");
    cleanups.push(outside.cleanup);
    const root = enabledProject();
    mkdirSync(join(root, ".tapedeck"), { recursive: true });
    symlinkSync(outside.root, join(root, ".tapedeck", "claude-sessions"));
    const out = hook(root, base);
    expect(out.status).toBe("failed");
    expect(readdirSync(outside.root)).toHaveLength(0);
  });

  it("a session directory that is a symlink is refused", () => {
    const outside = tempProject("tapedeck-outside-");
    cleanups.push(outside.cleanup);
    const root = enabledProject();
    mkdirSync(join(root, ".tapedeck", "claude-sessions"), { recursive: true });
    symlinkSync(outside.root, join(root, ".tapedeck", "claude-sessions", "s1"));
    expect(hook(root, base).status).toBe("failed");
    expect(readdirSync(outside.root)).toHaveLength(0);
  });

  it("a planted events.jsonl symlink is not followed", () => {
    const outside = tempProject("tapedeck-outside-");
    cleanups.push(outside.cleanup);
    const target = join(outside.root, "victim");
    writeFileSync(target, "original\n");
    const root = enabledProject();
    const dir = join(root, ".tapedeck", "claude-sessions", "s1");
    mkdirSync(dir, { recursive: true });
    symlinkSync(target, join(dir, "events.jsonl"));
    expect(hook(root, base).status).toBe("failed");
    expect(readFileSync(target, "utf8")).toBe("original\n");
  });

  it("does nothing when recording is off or the project is not enabled", () => {
    const root = enabledProject();
    writeConfig(root, {
      schema_version: 1,
      providers: { claude: { recording: "off", mode: "capture-only" } },
    });
    expect(hook(root, base).status).toBe("off");
    const bare = tempProject();
    cleanups.push(bare.cleanup);
    expect(hook(bare.root, base).status).toBe("not-enabled");
    expect(readdirSync(bare.root)).toHaveLength(0);
  });
});

describe("secrets never reach disk", () => {
  it("secrets planted in every field are absent from every byte under the session root", () => {
    const root = enabledProject();
    const gh = `gh${"p_"}${"Zq8rT2vLmN4pQ7sX1yB5cD9fG3hJ6kW0aE2i"}`;
    const aws = `AKIA${"Q3ZT7RBX5MWN2KPD"}`;
    const ant = `sk-${"ant-api03-"}${"Xy7_Qw-Er8Ty9Ui0Op1As2Df3Gh4Jk5Lz6Xc7Vb8Nm9Qw0Er1Ty2Ui3Op4As5Df6Gh7Jk8Lz9Xc0Vb1N"}AA`;
    const pem = [
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEA7Yq9s".padEnd(64, "Q"),
      "-----END RSA PRIVATE KEY-----",
    ].join("\n");
    const secrets = [gh, aws, ant, "hunter2-Very-Secret"];
    const events = [
      { ...base, hook_event_name: "SessionStart", source: "startup", model: aws },
      { ...base, prompt: `deploy with ${gh} and ${aws}` },
      {
        ...base,
        hook_event_name: "PreToolUse",
        tool_use_id: "t1",
        tool_name: "Bash",
        tool_input: { command: `curl -H "Authorization: Bearer ${ant}" https://x`, env: { API_KEY: gh } },
      },
      {
        ...base,
        hook_event_name: "PostToolUse",
        tool_use_id: "t1",
        tool_name: "Bash",
        tool_input: { command: "cat .env" },
        tool_response: {
          stdout: `GITHUB_TOKEN=${gh}\nDB_PASSWORD=hunter2-Very-Secret\n${pem}`,
          password: "hunter2-Very-Secret",
        },
      },
      { ...base, hook_event_name: "Stop", last_assistant_message: `Your key ${aws} is set`, [`x-${gh}`]: 1 },
      { ...base, hook_event_name: "SessionEnd", reason: ant },
    ];
    for (const e of events) expect(hook(root, e).status).toBe("recorded");
    const tapedeck = join(root, ".tapedeck");
    let markers = 0;
    for (const file of allFiles(tapedeck)) {
      const bytes = readFileSync(file);
      for (const s of secrets) {
        expect(bytes.includes(s), `${s.slice(0, 6)}… in ${file}`).toBe(false);
        expect(bytes.includes(s.slice(4, 16)), `${s.slice(0, 6)}… slice in ${file}`).toBe(false);
      }
      expect(bytes.includes("MIIEowIBAAKCAQEA7Yq9s")).toBe(false);
      markers += bytes.toString("latin1").split("[REDACTED:").length - 1;
    }
    expect(markers).toBeGreaterThan(6);
  });
});
