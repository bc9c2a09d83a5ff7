// A user's Claude Code history for the import's tests: the captured transcripts, their recorded cwd moved to
// a temp project, under a temp HOME laid out as Claude lays it out.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ImportPlan, planImport } from "../../src/import/plan.ts";
import { type ImportResult, runImport } from "../../src/import/run.ts";

export const CLAUDE_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "claude");
export const SAMPLE_ID = "2b78a515-1a4e-4949-93a8-4a58deaec546";
export const SUBAGENT_SESSION = "acc5acad-2490-47d5-a323-cd06330e0e14";

/** A fixture's lines with the recorded cwd replaced by `cwd`. */
export function fixtureLines(name: string, cwd: string): string[] {
  return readFileSync(join(CLAUDE_FIXTURES, name), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("/home/user/project").join(cwd));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const MOCK_ID = /\b(msg|req|toolu)_mock[a-z0-9]+/g;

/**
 * `count` turns of a long session from turn `from` on: the sample's prompt, answer blocks, Bash call and result
 * (the records that become events, 7 a turn), every id made unique per turn, as `bench/import.bench.ts` grows
 * its transcript. Turn n's lines are always the same, so a transcript grown turn by turn is the one written at once.
 */
export function claudeTurns(cwd: string, from: number, count: number): string[] {
  const template = fixtureLines("transcript.sample.jsonl", cwd).filter((l) =>
    ["user", "assistant"].includes(JSON.parse(l).type),
  );
  const out: string[] = [];
  for (let n = from; n < from + count; n += 1) {
    const tag = n.toString(16).padStart(12, "0");
    for (const line of template) {
      out.push(
        line
          .replace(UUID, (u) => (u === SAMPLE_ID ? u : `${u.slice(0, 24)}${tag}`))
          .replace(MOCK_ID, (id) => `${id}_${n}`),
      );
    }
  }
  return out;
}

export function slugOf(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

export function transcriptPath(home: string, cwd: string, id: string): string {
  return join(home, ".claude", "projects", slugOf(cwd), `${id}.jsonl`);
}

/** Writes a transcript (the lines given, each with its newline) and answers its path. */
export function writeTranscript(home: string, cwd: string, id: string, lines: string[]): string {
  const path = transcriptPath(home, cwd, id);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((l) => `${l}\n`).join(""));
  return path;
}

export function appendLines(path: string, lines: string[]): void {
  appendFileSync(path, lines.map((l) => `${l}\n`).join(""));
}

/** The subagent sample as a subagent of `id` (its own file under `<id>/subagents/`). */
export function writeSubagent(home: string, cwd: string, id: string, lines: string[]): string {
  const dir = join(home, ".claude", "projects", slugOf(cwd), id, "subagents");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "agent-aaffe666145fc9347.jsonl");
  writeFileSync(path, lines.map((l) => `${l}\n`).join(""));
  writeFileSync(
    join(dir, "agent-aaffe666145fc9347.meta.json"),
    JSON.stringify({ agentType: "general-purpose" }),
  );
  return path;
}

export function envFor(home: string): Record<string, string> {
  return { HOME: home, TAPEDECK_HOME: join(home, ".tapedeck") };
}

export function plan(
  home: string,
  project: string,
  extra: Partial<Parameters<typeof planImport>[0]> = {},
): ImportPlan {
  return planImport({ providers: ["claude"], project, env: envFor(home), ...extra });
}

export function importAll(
  home: string,
  project: string,
  extra: Partial<Parameters<typeof planImport>[0]> = {},
): ImportResult {
  return runImport(plan(home, project, extra), { env: envFor(home) });
}
