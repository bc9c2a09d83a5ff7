import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pruneWhenDue } from "../../src/serve/retention-idle.ts";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

describe("the hook server's automatic retention", () => {
  it("runs the configured rule off the hook's call, once, and logs counts without ids or paths", async () => {
    const root = project();
    fakeSession(root, { id: "secret-named-session", daysAgo: 40 });
    writeFileSync(
      join(root, ".tapedeck", "config.json"),
      JSON.stringify({ schema_version: 1, providers: {}, retention: { older_than: "30d" } }),
    );
    const dir = join(root, ".tapedeck", "claude-sessions", "secret-named-session");
    const done = new Promise<void>((resolve) => pruneWhenDue(root, { cli: null, onDone: resolve }));
    // Not removed during the hook's own call: the work is deferred.
    expect(existsSync(dir)).toBe(true);
    await done;
    expect(existsSync(dir)).toBe(false);
    const log = readFileSync(join(root, ".tapedeck", "diagnostics.jsonl"), "utf8");
    expect(JSON.parse(log.trim())).toMatchObject({ what: "retention", count: 1, stage: "auto" });
    expect(log).not.toContain("secret-named-session");
    expect(log).not.toContain(root);
    // Within the hour the config is not even looked at again.
    fakeSession(root, { id: "later", daysAgo: 40 });
    let called = false;
    pruneWhenDue(root, { cli: null, onDone: () => (called = true) });
    await new Promise((r) => setImmediate(r));
    expect(called).toBe(false);
  });
});
