// The scenario's reading of a recorded session (scenario/source.ts): bounded whatever the archive holds.
import { appendFileSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SESSION_FILES } from "../../src/core/archive/paths.ts";
import { readSource } from "../../src/scenario/source.ts";
import { useTempProjects } from "../helpers/session.ts";
import { ANSWER, recordSession } from "./fixtures.ts";

const project = useTempProjects("tapedeck-scenario-source-");

describe("readSource", () => {
  it("a planted 256 MiB line streams by without being held; the prompts and answer after it are read", () => {
    const ref = recordSession(project());
    const path = join(ref.dir, SESSION_FILES.events);
    const good = readFileSync(path);
    writeFileSync(path, "");
    truncateSync(path, 256 * 1024 * 1024);
    appendFileSync(path, "\n");
    appendFileSync(path, good);
    const before = process.memoryUsage().arrayBuffers;
    const r = readSource(ref.dir);
    const after = process.memoryUsage().arrayBuffers;
    expect(r.finalAnswer).toBe(ANSWER);
    expect(r.prompts.map((p) => p.prompt)).toEqual(["Where does the cache live?", "And how is it flushed?"]);
    expect(r.skippedLines).toBe(1);
    // core's scanLines kept a buffer the size of the longest line (doubled past it) until the scan returned.
    expect(after - before).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
