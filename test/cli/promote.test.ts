// `tapedeck promote` as a user runs it, in process (test/helpers/program.ts), against sessions recorded through
// the hook's recorder (`tapedeck hook claude`) with Claude's payloads; on a terminal, streams that are one (the
// question and its answer read only their isTTY). Two promotions at once and a 100,000-event session in a small
// heap are soaks (./promote.soak.test.ts).
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { memoryPath } from "../../src/memory/store/store.ts";
import { runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects("tapedeck-promote-cli-");

function cli(args: string[]) {
  return runProgram(args);
}

/** The command on a terminal, `input` typed at it: what it wrote to the screen (stdout and stderr). */
async function onTerminal(args: string[], input: string) {
  const r = await runProgram(args, { stdin: input, terminalColumns: 80 });
  return { code: r.code, out: r.stdout + r.stderr };
}

async function hook(root: string, payload: object) {
  const r = await runProgram(["hook", "claude"], {
    stdin: JSON.stringify(payload),
    env: { CLAUDE_PROJECT_DIR: root },
  });
  expect(r.code, r.stderr).toBe(0);
}

const ids = { session_id: "promo-1", transcript_path: "/nonexistent", prompt_id: "p1" };

/** A Claude session in which the assistant states a fact (and a prompt carries a credential). */
async function recordFact(root: string) {
  expect((await cli(["install", "claude", "--project", root, "--yes", "--transport", "command"])).code).toBe(
    0,
  );
  await hook(root, { ...ids, hook_event_name: "SessionStart", source: "startup" });
  await hook(root, {
    ...ids,
    hook_event_name: "UserPromptSubmit",
    prompt: "where is the staging database? key AKIAQ3ZT7RBX5MWN2KPD",
  });
  await hook(root, {
    ...ids,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_use_id: "t1",
    tool_input: { command: "cat deploy/staging.env" },
  });
  await hook(root, {
    ...ids,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_use_id: "t1",
    tool_input: { command: "cat deploy/staging.env" },
    tool_response: { stdout: "DB_HOST=db-staging-7.internal", stderr: "" },
  });
  await hook(root, {
    ...ids,
    hook_event_name: "Stop",
    last_assistant_message: "The staging database is db-staging-7 on port 5433.",
  });
  await hook(root, { ...ids, hook_event_name: "SessionEnd", reason: "other" });
}

function json(r: { stdout: string }) {
  return JSON.parse(r.stdout) as {
    created: string[];
    existing: string[];
    items: Array<{
      id: string;
      kind: string;
      title: string;
      body: string;
      label: string | null;
      source: Record<string, unknown>;
    }>;
  };
}

describe("tapedeck promote", () => {
  it("without a terminal and without --yes: shows the preview, refuses (exit 2), stores nothing", async () => {
    const root = project();
    await recordFact(root);
    const r = await cli(["promote", "last", "--project", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not promoted: pass --yes");
    expect(r.stdout).toContain("2 item(s)");
    expect(r.stdout).toContain("db-staging-7");
    // The preview is redacted: it shows exactly what would be stored.
    expect(r.stdout).not.toContain("AKIAQ3ZT7RBX5MWN2KPD");
    expect(existsSync(memoryPath(root))).toBe(false);
  });

  it("on a terminal it asks: yes stores, anything else stores nothing (exit 2)", async () => {
    const root = project();
    await recordFact(root);
    const no = await onTerminal(["promote", "last", "--project", root], "n\n");
    expect(no.code).toBe(2);
    expect(no.out).toContain("Store 2 item(s)");
    expect(no.out).toContain("not promoted");
    expect(existsSync(memoryPath(root))).toBe(false);
    const yes = await onTerminal(["promote", "last", "--project", root], "y\n");
    expect(yes.code).toBe(0);
    expect(yes.out).toContain("Promoted 2 new item(s)");
  });

  it("--yes --json stores the items and reports them; the same promotion again creates nothing", async () => {
    const root = project();
    await recordFact(root);
    const first = await cli(["promote", "last", "--project", root, "--yes", "--json"]);
    expect(first.code).toBe(0);
    const a = json(first);
    expect(Object.keys(a)).toEqual(["created", "existing", "items"]);
    expect(a.created).toHaveLength(2);
    expect(a.existing).toEqual([]);
    // The prompt with its answer is one item, before the tool call of its turn: the order they are stored in.
    expect(a.items.map((i) => i.kind)).toEqual(["exchange", "tool_call"]);
    const answer = a.items.find((i) => i.kind === "exchange")!;
    expect(answer.source).toMatchObject({
      provider: "claude",
      session_id: "claude:promo-1",
      envelope_schema_version: 1,
    });
    expect(answer.source.archive_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(memoryPath(root)).mode & 0o777).toBe(0o600);
    const file = readFileSync(memoryPath(root));
    expect(file.includes(Buffer.from("AKIAQ3ZT7RBX5MWN2KPD"))).toBe(false);

    // The items reported are the rows stored, field for field (created_at too).
    const shown = JSON.parse((await cli(["memory", "show", answer.id, "--project", root, "--json"])).stdout);
    expect(shown).toEqual(answer);
    const again = json(await cli(["promote", "last", "--project", root, "--yes", "--json"]));
    expect(again.created).toEqual([]);
    expect(again.items.find((i) => i.id === answer.id)).toEqual(answer);
    expect([...again.existing].sort()).toEqual([...a.created].sort());
    const search = await cli(["memory", "search", "staging database", "--project", root, "--json"]);
    expect(search.code).toBe(0);
    const hits = JSON.parse(search.stdout).hits as Array<{ id: string; source: { session_id: string } }>;
    expect(hits.map((h) => h.id)).toContain(answer.id);
    expect(hits[0]!.source.session_id).toBe("claude:promo-1");
  });

  it("deleting the recording never deletes its memory; verify then reports the source gone (exit 1)", async () => {
    const root = project();
    await recordFact(root);
    const created = json(await cli(["promote", "last", "--project", root, "--yes", "--json"])).created;
    expect((await cli(["memory", "verify", "--project", root])).code).toBe(0);
    expect((await cli(["delete", "last", "--project", root, "--yes"])).code).toBe(0);
    const list = JSON.parse((await cli(["memory", "list", "--project", root, "--json"])).stdout) as Array<{
      id: string;
    }>;
    expect(list.map((i) => i.id).sort()).toEqual([...created].sort());
    expect((await cli(["memory", "search", "db-staging-7", "--project", root])).code).toBe(0);
    const verify = await cli(["memory", "verify", "--project", root, "--json"]);
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout);
    expect(report.checked).toBe(2);
    expect(report.findings.map((f: { problem: string }) => f.problem)).toEqual(["gone", "gone"]);
  });

  it("selection options: --events, --kinds, --exclude-events, --exclude-fields, --title, --dry-run", async () => {
    const root = project();
    await recordFact(root);
    const dryRun = (...options: string[]) =>
      cli(["promote", "last", "--project", root, "--dry-run", "--json", ...options]);
    const dry = await dryRun("--kinds", "tool_call,tool_result");
    expect(dry.code).toBe(0);
    expect(json(dry).items.map((i) => i.kind)).toEqual(["tool_call"]);
    expect(existsSync(memoryPath(root))).toBe(false);
    const fields = json(
      await dryRun("--events", "3..4", "--exclude-fields", "payload.tool_response", "--title", "Staging"),
    );
    expect(fields.items).toHaveLength(1);
    expect(fields.items[0]!.body).not.toContain("DB_HOST");
    // The title labels the set: beside the item, never in its own title.
    expect(fields.items[0]).toMatchObject({ title: "Bash: cat deploy/staging.env", label: "Staging" });
    // A list of events and ranges: the prompt and the answer (2 and 5) are still one exchange.
    const list = json(await dryRun("--events", "2,5"));
    expect(list.items.map((i) => [i.kind, i.source.seq_from, i.source.seq_to])).toEqual([["exchange", 2, 5]]);
    // Only the prompt: its answer exists outside the selection, so the prompt is an item of its own.
    const prompt = json(await dryRun("--events", "1-4"));
    expect(prompt.items.map((i) => i.kind)).toEqual(["prompt", "tool_call"]);
    const excluded = json(await dryRun("--exclude-events", "2,5"));
    expect(excluded.items.map((i) => i.kind)).toEqual(["tool_call"]);
  });

  it("bad input: a wrong range or kind is a usage error, an empty selection or unknown session is not found", async () => {
    const root = project();
    await recordFact(root);
    expect((await cli(["promote", "last", "--project", root, "--events", "9..3"])).code).toBe(2);
    expect((await cli(["promote", "last", "--project", root, "--kinds", "turn_usage"])).code).toBe(2);
    expect((await cli(["promote", "last", "--project", root, "--exclude-fields", "manifest.x"])).code).toBe(
      2,
    );
    const pick = await cli(["promote", "last", "--project", root, "--pick"]);
    expect(pick.code).toBe(2);
    expect(pick.stderr).toContain("--pick needs a terminal");
    expect((await cli(["promote", "last", "--project", root, "--events", "3-x"])).code).toBe(2);
    const none = await cli(["promote", "last", "--project", root, "--events", "100..200", "--yes"]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain("nothing to promote");
    expect((await cli(["promote", "no-such-session", "--project", root, "--yes"])).code).toBe(3);
  });

  it("a corrupt memory.sqlite: a clear error naming the file, exit 1, and the file is left as it was", async () => {
    const root = project();
    await recordFact(root);
    const garbage = Buffer.alloc(4096, 0x41);
    writeFileSync(memoryPath(root), garbage);
    const r = await cli(["promote", "last", "--project", root, "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("memory.sqlite is not a valid SQLite database");
    expect(r.stderr).toContain("never deletes it");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(memoryPath(root)).equals(garbage)).toBe(true);
    expect((await cli(["memory", "list", "--project", root])).code).toBe(1);
  });
});
