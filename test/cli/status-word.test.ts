// One status for one session in every command (issue 41, item 10): a session whose turn failed (Claude's
// StopFailure) was `failed` in list and `complete` in prune and delete; show's header and inspect said
// `complete` too.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { spec, useTempProjects } from "../helpers/session.ts";

const { tick, ev } = eventClock("2026-10-01T10:00:00.000Z");

const project = useTempProjects();

describe("a failed session's status", () => {
  it("is `failed` in list, prune, delete, show and inspect alike", async () => {
    const root = project();
    recordEvents(
      spec(root),
      [
        ev("session_start", "s", { source: "startup" }),
        ev("user_prompt", "p", { prompt: "deploy it" }),
        ev("provider_event", "f", { hook_event_name: "StopFailure", error: "API Error: 529", failure: true }),
        ev("session_end", "e", { reason: "other" }),
      ],
      tick,
    );
    const home = join(root, "home");
    const run = (args: string[]) => runCliInProcess([...args, "--project", root], home);
    const statusIn = (text: string) => {
      const words = new Set(["failed", "complete", "incomplete", "active"]);
      return [...new Set(text.split(/[\s·]+/).filter((w) => words.has(w)))];
    };
    const list = await run(["list"]);
    const prune = await run(["prune", "--older-than", "30d", "--dry-run"]);
    const del = await run(["delete", "last", "--dry-run"]);
    const show = await run(["show", "last"]);
    const inspect = await run(["inspect", "last"]);
    const outputs = { list, prune, del, show, inspect };
    for (const [name, r] of Object.entries(outputs)) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(statusIn(r.stdout), `${name}: ${r.stdout}`).toEqual(["failed"]);
    }
    const [listed] = JSON.parse((await run(["list", "--json"])).stdout);
    const pruned = JSON.parse((await run(["prune", "--older-than", "30d", "--dry-run", "--json"])).stdout);
    expect(listed.failed).toBe(true);
    expect(JSON.stringify(pruned)).toContain('"shown_status":"failed"');
  });
});
