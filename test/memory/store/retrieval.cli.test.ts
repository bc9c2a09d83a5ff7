// `tapedeck retrieval on|off|status` and `install --retrieval`, in process: what they write to the
// project's config, what status shows, and the usage errors (a budget out of bounds, a provider whose hooks
// cannot add context, nothing installed).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeConfig } from "../../../src/core/archive/config.ts";
import { runProgram } from "../../helpers/program.ts";
import { useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-retrieval-cli-");

/** A command in the project at `root`: its HOME, the suite's tapedeck home, nothing else inherited. */
function cli(root: string, args: string[], stdin = "") {
  return runProgram([...args, "--project", root], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: root,
      TAPEDECK_HOME: process.env.TAPEDECK_HOME ?? "",
    },
    inheritEnv: false,
    stdin,
  });
}

const configOf = (root: string) => JSON.parse(readFileSync(join(root, ".tapedeck", "config.json"), "utf8"));

function installed(providers: string[]): string {
  const root = project();
  writeConfig(root, {
    schema_version: 1,
    providers: Object.fromEntries(providers.map((p) => [p, { recording: "on", mode: "capture-only" }])),
  });
  return root;
}

describe("tapedeck retrieval", () => {
  it("on with a budget, then off, then on again: the config, status and the status line follow", async () => {
    const root = installed(["claude"]);
    const on = await cli(root, ["retrieval", "on", "--budget", "2048", "--json"]);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({
      memory: false,
      providers: [{ provider: "claude", retrieval: "on", budget_bytes: 2048, supported: true }],
    });
    expect(configOf(root).providers.claude.retrieval).toEqual({ state: "on", budget_bytes: 2048 });
    // Recording is untouched: the two controls are independent.
    expect(configOf(root).providers.claude.recording).toBe("on");
    const status = JSON.parse((await cli(root, ["status", "--provider", "claude", "--json"])).stdout);
    expect(status).toMatchObject({ retrieval: "on", retrieval_budget_bytes: 2048 });
    expect((await cli(root, ["status", "--statusline"])).stdout.trim()).toBe(
      "tapedeck ● REC capture-only · memory",
    );
    expect((await cli(root, ["status"])).stdout).toMatch(/^Retrieval +on \(up to 2048 bytes/m);

    const off = await cli(root, ["retrieval", "off"]);
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(/Retrieval off +Claude Code/);
    expect(configOf(root).providers.claude.retrieval).toEqual({ state: "off", budget_bytes: 2048 });
    expect((await cli(root, ["status", "--statusline"])).stdout.trim()).toBe("tapedeck ● REC capture-only");
    await cli(root, ["retrieval", "on"]);
    expect(configOf(root).providers.claude.retrieval).toEqual({ state: "on", budget_bytes: 2048 });
  });

  it("says when the memory is empty", async () => {
    const root = installed(["claude"]);
    const on = await cli(root, ["retrieval", "on"]);
    expect(on.stderr).toMatch(/memory is empty.*tapedeck promote/);
  });

  it("with recording stopped, the status line still says memory is on", async () => {
    const root = installed(["codex"]);
    await cli(root, ["record", "stop"]);
    await cli(root, ["retrieval", "on"]);
    expect((await cli(root, ["status", "--statusline"])).stdout.trim()).toBe("tapedeck ○ off · memory");
  });

  it("every installed provider by default, except one whose hooks cannot add context", async () => {
    const root = installed(["claude", "antigravity"]);
    const on = await cli(root, ["retrieval", "on", "--json"]);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout).providers).toEqual([
      { provider: "claude", retrieval: "on", budget_bytes: 4096, threshold: 0.5, supported: true },
      { provider: "antigravity", retrieval: "off", budget_bytes: 4096, threshold: 0.5, supported: false },
    ]);
    expect(configOf(root).providers.antigravity.retrieval).toBeUndefined();
    const asked = await cli(root, ["retrieval", "on", "--provider", "antigravity"]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/cannot add context/);
  });

  it("usage errors change nothing", async () => {
    const root = installed(["claude"]);
    const before = readFileSync(join(root, ".tapedeck", "config.json"), "utf8");
    for (const args of [
      ["retrieval", "on", "--budget", "9000"],
      ["retrieval", "on", "--budget", "100"],
      ["retrieval", "on", "--budget", "4k"],
      ["retrieval", "off", "--budget", "1024"],
      ["retrieval", "maybe"],
      ["retrieval", "on", "--provider", "nope"],
    ]) {
      const res = await cli(root, args);
      expect(res.code, args.join(" ")).toBe(2);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await cli(root, ["retrieval", "on", "--budget", "9000"])).stderr).toMatch(/512 to 8192/);
    expect(readFileSync(join(root, ".tapedeck", "config.json"), "utf8")).toBe(before);
  });

  it("nothing installed: says how to install, writes nothing", async () => {
    const root = project();
    const res = await cli(root, ["retrieval", "on"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/tapedeck install/);
    expect(existsSync(join(root, ".tapedeck", "config.json"))).toBe(false);
  });
});

describe("tapedeck retrieval: a memory file the project came with", () => {
  it("says the agent gets nothing from it; memory_usable is false, and true for the user's own", async () => {
    const root = installed(["claude"]);
    const { openMemory } = await import("../../../src/memory/store/store.ts");
    const saved = process.env.TAPEDECK_HOME;
    process.env.TAPEDECK_HOME = join(root, "someone-else");
    try {
      openMemory(root)!.close();
    } finally {
      process.env.TAPEDECK_HOME = saved;
    }
    const on = await cli(root, ["retrieval", "on", "--json"]);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ memory: true, memory_usable: false });
    expect(on.stderr).toMatch(/not laid out by your tapedeck/);
    const mine = installed(["claude"]);
    openMemory(mine)!.close();
    const ok = await cli(mine, ["retrieval", "status", "--json"]);
    expect(JSON.parse(ok.stdout)).toMatchObject({ memory: true, memory_usable: true });
    expect(ok.stderr).toBe("");
  });
});

describe("tapedeck hook", () => {
  it("prints the prompt hook's added context as the installed hook does", async () => {
    const root = installed(["claude"]);
    await cli(root, ["retrieval", "on"]);
    const { openMemory } = await import("../../../src/memory/store/store.ts");
    const { MEMORY_SCHEMA_VERSION } = await import("../../../src/memory/store/items.ts");
    const store = openMemory(root)!;
    store.insert([
      {
        id: "m1-0000000000000000000000000000000a",
        schema_version: MEMORY_SCHEMA_VERSION,
        kind: "answer",
        title: "Deploy key",
        body: "The deploy key rotates every Friday.",
        truncated: false,
        created_at: "2026-12-01T00:00:00.000Z",
        source: {
          provider: "claude",
          session_id: "claude:x",
          agent_id: null,
          seq_from: 1,
          seq_to: 1,
          event_ids: ["e1"],
          envelope_schema_version: 1,
          archive_sha256: "0".repeat(64),
          archive_bytes: 1,
        },
      },
    ]);
    store.close();
    const payload = JSON.stringify({
      session_id: "s1",
      transcript_path: "/nonexistent",
      cwd: root,
      hook_event_name: "UserPromptSubmit",
      prompt_id: "p1",
      prompt: "when does the deploy key rotate",
    });
    const out = (await cli(root, ["hook", "claude"], payload)).stdout;
    const context = JSON.parse(out).hookSpecificOutput.additionalContext as string;
    expect(context).toContain("The deploy key rotates every Friday.");
    expect(context.startsWith('<tapedeck-memory items="m1-0000000000000000000000000000000a">')).toBe(true);
  });
});

describe("install --retrieval", () => {
  it("switches retrieval on, shows it in the view, and a re-install keeps what it finds", async () => {
    const root = project();
    const first = await cli(root, ["install", "claude", "--retrieval", "--yes", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.retrieval).toBe("on");
    expect(out.view.Retrieval).toMatch(/^On/);
    expect(configOf(root).providers.claude.retrieval).toEqual({ state: "on" });
    await cli(root, ["retrieval", "on", "--budget", "1024"]);
    const again = await cli(root, ["install", "claude", "--yes", "--json"]);
    expect(JSON.parse(again.stdout).retrieval).toBe("on");
    expect(configOf(root).providers.claude.retrieval).toEqual({ state: "on", budget_bytes: 1024 });
  });
});
