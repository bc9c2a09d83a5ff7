// @module-tag claude
// What retrieval gives the real `claude` (offline, against the mock, over the default http transport): a
// promoted session's fact and nothing of its small talk; no injection at all for an unrelated prompt (the
// archive says "nothing_relevant" with the query); the fact for a related prompt, not again for the next
// prompt of the same session (resumed), again after `/compact`, and still not twice after the hook server was
// killed (the state is on disk). And `promote --pick` on a real terminal: space unticks, enter stores.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { runClaude } from "../../src/demo/claude-offline.ts";
import { DONT_KNOW } from "../../src/demo/recall-mock.ts";
import { readEventsFile } from "./archive-checks.ts";
import { spawnInPty } from "./pty-screen.ts";
import { CLI_JS, hookServerPids, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

const FACT = "The staging deploy key rotates every Friday at 17:00 UTC.";
const OTHER = "The reconciliation job posts its mismatches to the ledger-alerts channel.";
const ASK = "SCENARIO_RECALL staging deploy key";

describe("retrieval's gate and no-repeat rule with the real claude (http transport)", () => {
  const sb = useClaudeSandbox("recall-gate");
  const cli = (args: string[]) => sb.cli([...args, "--project", sb.projectDir]);
  const json = async (args: string[]) => {
    const res = await cli([...args, "--json"]);
    expect(res.code, res.stderr).toBe(0);
    return JSON.parse(res.stdout);
  };
  const claude = async (prompt: string, resume?: string) => {
    const args = resume ? ["--resume", resume, prompt] : [prompt];
    const res = await runClaude({ home: sb.home, cwd: sb.projectDir, baseUrl: sb.mock.url, args });
    expect(res.code, res.stderr).toBe(0);
    return { session: res.sessionId!, answer: String(res.json?.result ?? "") };
  };
  const archive = (session: string): Envelope[] =>
    readEventsFile(join(sb.projectDir, ".tapedeck", "claude-sessions", session, "events.jsonl"));
  const injections = (session: string) =>
    archive(session)
      .filter((e) => e.kind === "provider_event" && e.payload.type === "context_injection")
      .map((e) => e.payload as Record<string, unknown>);
  /** The main requests (not the title ones) the mock got since `from`, each as JSON text. */
  const requests = (from: number) =>
    sb.mock.requests
      .slice(from)
      .filter((r) => r.path.startsWith("/v1/messages") && JSON.stringify(r.body).includes("SCENARIO_"))
      .map((r) => JSON.stringify(r.body));
  const markers = (text: string) => text.split("tapedeck-memory items=").length - 1;
  let factId = "";
  let asking = "";

  it("promotes a session's fact as one exchange, and leaves its greeting and thanks out", async () => {
    expect((await cli(["install", "claude", "--yes"])).code).toBe(0);
    const said = await claude("hello");
    expect(said.answer).toBe("Mock reply.");
    expect((await claude(`SCENARIO_SAY ${FACT}`, said.session)).answer).toBe(FACT);
    expect((await claude("thanks!", said.session)).answer).toBe("Mock reply.");
    const promoted = await json(["promote", said.session, "--yes", "--title", "deploy facts"]);
    expect(promoted.items.map((i: { kind: string }) => i.kind)).toEqual(["exchange"]);
    expect(promoted.items[0]).toMatchObject({ label: "deploy facts", title: `SCENARIO_SAY ${FACT}` });
    expect(promoted.items[0].body).toContain(`Assistant: ${FACT}`);
    expect(JSON.stringify(promoted.items)).not.toContain("Mock reply.");
    factId = promoted.created[0];
    const other = await claude(`SCENARIO_SAY ${OTHER}`);
    expect((await json(["promote", other.session, "--yes"])).created).toHaveLength(1);
    expect((await json(["retrieval", "on", "--provider", "claude"])).providers[0]).toMatchObject({
      retrieval: "on",
      threshold: 0.5,
    });
  });

  it("an unrelated prompt gets no injection: nothing reaches the model, the archive says nothing_relevant", async () => {
    const from = sb.mock.requests.length;
    const asked = await claude("SCENARIO_RECALL vacation policy");
    expect(asked.answer).toBe(DONT_KNOW);
    expect(requests(from).join("\n")).not.toContain("tapedeck-memory");
    const [record] = injections(asked.session);
    expect(record).toMatchObject({ outcome: "nothing_relevant", bytes: 0, item_ids: [], context: null });
    expect(String(record!.query)).toContain("vacation");
  });

  it("a related prompt gets the fact, and the next prompt of the same session does not get it again", async () => {
    const from = sb.mock.requests.length;
    const first = await claude(ASK);
    asking = first.session;
    expect(first.answer).toBe(`From memory: ${FACT}`);
    const firstRequests = requests(from);
    expect(firstRequests.join("\n")).toContain(FACT);
    expect(firstRequests.join("\n")).not.toContain(OTHER);
    expect(injections(asking)).toEqual([
      expect.objectContaining({ outcome: "injected", item_ids: [factId], skipped_repeat_ids: [] }),
    ]);
    const before = Math.max(...firstRequests.map(markers));
    const next = sb.mock.requests.length;
    await claude(ASK, asking);
    const again = injections(asking);
    expect(again).toHaveLength(2);
    expect(again[1]).toMatchObject({
      outcome: "repeats_only",
      bytes: 0,
      item_ids: [],
      context: null,
      skipped_repeat_ids: [factId],
    });
    // The resumed conversation still holds the first block; no second one was added.
    for (const body of requests(next)) expect(markers(body)).toBeLessThanOrEqual(before);
  });

  it("after /compact the fact is given again; a hook server killed meanwhile does not make it repeat", async () => {
    await claude("/compact", asking);
    expect(archive(asking).some((e) => e.kind === "compaction")).toBe(true);
    const from = sb.mock.requests.length;
    const after = await claude(ASK, asking);
    expect(after.answer).toBe(`From memory: ${FACT}`);
    expect(requests(from).join("\n")).toContain(FACT);
    expect(injections(asking).at(-1)).toMatchObject({ outcome: "injected", item_ids: [factId] });
    // The server holds nothing the next one needs: the session's state is on disk.
    const servers = hookServerPids(sb.projectDir);
    expect(servers.length).toBeGreaterThan(0);
    for (const pid of servers) process.kill(pid, "SIGKILL");
    await claude(ASK, asking);
    expect(injections(asking).at(-1)).toMatchObject({
      outcome: "repeats_only",
      skipped_repeat_ids: [factId],
    });
  });

  it("promote --pick on a terminal: the candidates listed, space unticks one, enter stores the others", async () => {
    const s = await claude("SCENARIO_SAY The worker queue is named settlement and runs 4 workers per pod.");
    await claude("SCENARIO_SAY Migrations live in migrations/ and are never edited once merged.", s.session);
    const term = spawnInPty(
      process.execPath,
      [CLI_JS, "promote", s.session, "--pick", "--project", sb.projectDir],
      {
        cwd: sb.projectDir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...sb.env, TERM: "xterm-256color" },
        cols: 140,
        rows: 30,
      },
    );
    try {
      const screen = await term.waitFor(/2 of 2 ticked/, 20_000);
      expect(screen).toContain("worker queue is named settlement");
      expect(screen).toContain("Migrations live in migrations/");
      term.type(" ");
      await term.waitFor(/1 of 2 ticked/, 10_000);
      term.type("\r");
      expect(await term.waitExit(20_000)).toBe(0);
    } finally {
      term.kill();
    }
    const stored = await json(["memory", "list", "--session", s.session]);
    expect(stored).toHaveLength(1);
    expect(stored[0].title).toContain("Migrations live in migrations/");
  });
});
