import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  claudeProjectSlug,
  RestoreError,
  restoreMirror,
  toTranscript,
} from "../../../../src/providers/claude/mirror/restore.ts";
import {
  type AnyRecord,
  Conversation,
  makeCtx,
  runCutStream,
  sseEvents,
  type TempMirror,
  useTempMirror,
} from "./helpers.ts";

const SID = "2b78a515-1a4e-4949-93a8-4a58deaec546";

const mirror = useTempMirror();
/** The test's mirror, whose folder project() makes the project in. */
let t: TempMirror | undefined;

function project(): string {
  const dir = join((t as TempMirror).root, "my project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  return realpathSync(dir);
}

function readJsonl(path: string): AnyRecord[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as AnyRecord);
}

/** A session like the real one in reference/claude/transcript.sample.jsonl, plus a subagent and a second prompt. */
async function recordSession(m: TempMirror): Promise<void> {
  const conv = new Conversation(m.ext);
  conv.messages.push({
    role: "user",
    content: [
      { type: "text", text: "<system-reminder>\ngitStatus: clean\n</system-reminder>" },
      { type: "text", text: "SCENARIO_BASH please run echo hello" },
    ],
  });
  conv.messages.push({
    role: "system",
    content: [{ type: "text", text: "# Environment\n - Platform: linux" }],
  });
  await conv.echoHello("The user wants me to run echo hello.");
  await new Conversation(m.ext, { agentId: "aaffe666145fc9347" }).turn("SUBAGENT_TASK: hidden from restore");
  await conv.turn("SCENARIO_TEXT thanks", [{ type: "text", text: "You're welcome." }]);
  await m.ext.idle();
}

describe("restoreMirror", () => {
  it("writes a transcript Claude Code can resume: chain, cwd, split blocks, tool links, last-prompt", async () => {
    t = mirror();
    await recordSession(t);
    const projectDir = project();
    const claudeHome = join(t.root, "claude-home");
    const r = restoreMirror({ sessionId: SID, projectDir, claudeHome, mirrorDir: t.dir });

    const slug = realpathSync(projectDir).replace(/[^a-zA-Z0-9]/g, "-");
    expect(claudeProjectSlug(projectDir)).toBe(slug);
    expect(r.path).toBe(join(claudeHome, "projects", slug, `${SID}.jsonl`));
    expect(r.backup).toBeUndefined();
    expect(statSync(r.path).mode & 0o777).toBe(0o600);

    const recs = readJsonl(r.path);
    expect(r.records).toBe(recs.length);
    expect(
      recs.map((x) => (x.type === "assistant" ? `assistant:${x.message.content[0].type}` : x.type)),
    ).toEqual([
      "user",
      "attachment",
      "assistant:thinking",
      "assistant:text",
      "assistant:tool_use",
      "user",
      "assistant:text",
      "user",
      "assistant:text",
      "last-prompt",
    ]);

    const chain = recs.filter((x) => x.type !== "last-prompt");
    let parent: string | null = null;
    for (const x of chain) {
      expect(x.parentUuid).toBe(parent);
      expect(x.sessionId).toBe(SID);
      expect(x.cwd).toBe(projectDir);
      expect(x.gitBranch).toBe("main");
      expect(x.isSidechain).toBe(false);
      // The mirror's null placeholders are gone; absent is what older transcripts look like.
      for (const [k, v] of Object.entries(x)) if (k !== "parentUuid") expect(v, k).not.toBeNull();
      parent = x.uuid;
    }
    expect(new Set(chain.map((x) => x.uuid)).size).toBe(chain.length);

    const split = recs.filter((x) => x.type === "assistant" && x.message.id === "msg_main_1");
    expect(split.map((x) => x.apiBlockIndex)).toEqual([0, 1, 2]);
    expect(split.every((x) => x.message.content.length === 1 && x.message.stop_reason === "end_turn")).toBe(
      true,
    );
    expect(Object.keys(split[0] as AnyRecord).indexOf("apiBlockIndex")).toBe(
      Object.keys(split[0] as AnyRecord).indexOf("message") + 1,
    );
    const toolResult = recs[5] as AnyRecord;
    expect(toolResult.sourceToolAssistantUUID).toBe(split[2]?.uuid);

    expect(recs[1]).toMatchObject({
      renderedRole: "system",
      rendered: [{ content: "# Environment\n - Platform: linux" }],
    });
    expect(recs.at(-1)).toEqual({
      type: "last-prompt",
      lastPrompt: "SCENARIO_TEXT thanks",
      leafUuid: chain.at(-1)?.uuid,
      sessionId: SID,
    });
    expect(JSON.stringify(recs)).not.toContain("hidden from restore");
  });

  it("uses only keys Claude Code's own records have (plus source)", async () => {
    t = mirror();
    await recordSession(t);
    const r = restoreMirror({
      sessionId: SID,
      projectDir: project(),
      claudeHome: join(t.root, "h"),
      mirrorDir: t.dir,
    });
    const real = readJsonl(
      new URL("../../../fixtures/claude/transcript.sample.jsonl", import.meta.url).pathname,
    );
    for (const type of ["user", "assistant", "attachment", "last-prompt"]) {
      const known = new Set(real.filter((x) => x.type === type).flatMap((x) => Object.keys(x)));
      known.add("source");
      for (const rec of readJsonl(r.path).filter((x) => x.type === type)) {
        for (const k of Object.keys(rec)) expect(known.has(k), `${type}.${k}`).toBe(true);
      }
    }
  });

  it("never overwrites an existing transcript without force; with force it backs it up first", async () => {
    t = mirror();
    await recordSession(t);
    const projectDir = project();
    const claudeHome = join(t.root, "claude-home");
    const dir = join(claudeHome, "projects", claudeProjectSlug(projectDir));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${SID}.jsonl`);
    const stub = '{"type":"ai-title","title":"stub left by CC#66734"}\n';
    writeFileSync(path, stub);

    let error: unknown;
    try {
      restoreMirror({ sessionId: SID, projectDir, claudeHome, mirrorDir: t.dir });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RestoreError);
    expect((error as RestoreError).code).toBe("exists");
    expect(readFileSync(path, "utf8")).toBe(stub);

    const r = restoreMirror({
      sessionId: SID,
      projectDir,
      claudeHome,
      mirrorDir: t.dir,
      force: true,
      now: () => 0,
    });
    expect(r.backup).toBe(`${path}.bak-1970-01-01T00-00-00-000Z`);
    expect(readFileSync(r.backup as string, "utf8")).toBe(stub);
    expect(readJsonl(path)[0]?.type).toBe("user");
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("concatenates rotated mirror files in order and skips a torn line", async () => {
    t = mirror({ maxBytes: 1500 });
    const conv = new Conversation(t.ext);
    for (let i = 0; i < 6; i++) await conv.turn(`prompt ${i}`, [{ type: "text", text: `answer ${i}` }]);
    await t.ext.idle();
    const files = readdirSync(join(t.dir, SID)).filter((n) => n.endsWith(".jsonl"));
    expect(files.length).toBeGreaterThan(1);
    appendFileSync(join(t.dir, SID, files.sort().at(-1) as string), '{"type":"user","mess');
    const r = restoreMirror({
      sessionId: SID,
      projectDir: project(),
      claudeHome: join(t.root, "h"),
      mirrorDir: t.dir,
    });
    expect(r.files).toBe(files.length);
    expect(r.skippedLines).toBe(1);
    const prompts = readJsonl(r.path)
      .filter((x) => x.type === "user")
      .map((x) => x.message.content);
    expect(prompts).toEqual([0, 1, 2, 3, 4, 5].map((i) => `prompt ${i}`));
  });

  it("drops what the API would reject on resume from an interrupted partial", () => {
    const base = { sessionId: "s", source: "tapedeck-mirror", timestamp: "2026-01-01T00:00:00.000Z" };
    const mirror: AnyRecord[] = [
      { ...base, type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "go" } },
      {
        ...base,
        type: "assistant",
        uuid: "a1",
        parentUuid: "u1",
        message: {
          id: "m1",
          role: "assistant",
          stop_reason: "interrupted",
          content: [
            { type: "thinking", thinking: "half a thought", signature: "" },
            { type: "text", text: "I was saying" },
            { type: "tool_use", id: "t-cut", name: "Bash", input: '{"command":"ec' },
            { type: "tool_use", id: "t-unanswered", name: "Bash", input: { command: "ls" } },
          ],
        },
      },
      {
        ...base,
        type: "assistant",
        uuid: "a2",
        parentUuid: "a1",
        message: { id: "m2", role: "assistant", stop_reason: "interrupted", content: [] },
      },
      {
        ...base,
        type: "user",
        uuid: "u2",
        parentUuid: "a2",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t-never-called", content: "x" }],
        },
      },
      { ...base, type: "user", uuid: "u3", parentUuid: "u2", message: { role: "user", content: "continue" } },
    ];
    const out = toTranscript(mirror as never, { sessionId: "s", cwd: "/p" });
    expect(out.map((x) => x.uuid ?? x.type)).toEqual(["u1", "a1", "u3", "last-prompt"]);
    expect((out[1] as AnyRecord).message.content).toEqual([{ type: "text", text: "I was saying" }]);
    expect((out[2] as AnyRecord).parentUuid).toBe("a1");
    expect(out[3]).toMatchObject({ lastPrompt: "continue", leafUuid: "u3" });
  });

  it("restores the partial of an interrupted stream recorded by the extension", async () => {
    t = mirror();
    const ctx = makeCtx([{ role: "user", content: "start something" }]);
    const events = sseEvents({ id: "msg_cut", blocks: [{ type: "text", text: "Working on it, first" }] });
    await runCutStream(t.ext, ctx, events.slice(0, 4), { by: "client", reason: "closed" });
    await t.ext.idle();
    const r = restoreMirror({
      sessionId: SID,
      projectDir: project(),
      claudeHome: join(t.root, "h"),
      mirrorDir: t.dir,
    });
    const recs = readJsonl(r.path);
    expect(recs.map((x) => x.type)).toEqual(["user", "assistant", "last-prompt"]);
    expect(recs[1]?.message).toMatchObject({ stop_reason: "interrupted", content: [{ type: "text" }] });
  });

  it("refuses unsafe ids, missing mirrors and a symlinked projects directory", async () => {
    const m = mirror();
    t = m;
    const projectDir = project();
    const expectCode = (fn: () => unknown, code: string) => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(RestoreError);
        expect((e as RestoreError).code).toBe(code);
        return;
      }
      throw new Error("expected a RestoreError");
    };
    const opts = { projectDir, claudeHome: join(m.root, "h"), mirrorDir: m.dir };
    expectCode(() => restoreMirror({ ...opts, sessionId: "../../etc/passwd" }), "unsafe_id");
    expectCode(() => restoreMirror({ ...opts, sessionId: "" }), "unsafe_id");
    expectCode(() => restoreMirror({ ...opts, sessionId: SID }), "not_found");

    await recordSession(m);
    const elsewhere = join(m.root, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(join(m.root, "h2", "projects"), { recursive: true });
    symlinkSync(elsewhere, join(m.root, "h2", "projects", claudeProjectSlug(projectDir)));
    expectCode(
      () => restoreMirror({ ...opts, claudeHome: join(m.root, "h2"), sessionId: SID }),
      "unsafe_path",
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
