// A model name is whatever a transcript or a response says. One that holds a credential and a path, imported
// and recorded through the CLI and its hook (in process): the archive keeps it redacted (as the payload's
// copy), `usage` prints it redacted, and `usage publish` sends only a model id's shape.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useScratchDir } from "../helpers/temp-project.ts";
import { dayRow, writeDay } from "../usage/day-file.ts";
import { machine, machinesRoot, type Turn } from "../usage/machines-fixture.ts";

const scratch = useScratchDir("tapedeck-usage-hostile-model-");

const SECRET = "AKIAZ7QX3M2KD9PLW4HB";
const HOSTILE = `claude-opus-4-1 ${SECRET} vm /home/alice/private`;
const turn = (at: string, model: string): Turn => ({ at, model, input: 1000, output: 200, read: 5000 });

function everyFile(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => join(dir, f));
}

describe("a model name holding a credential", () => {
  it("is redacted in the archive and in every report, on the import and the hook path", async () => {
    const root = machinesRoot(scratch);
    const m = machine(root, "laptop");
    const imported = join(m.home, "imported");
    const recorded = join(m.home, "recorded");
    await m.importSession(imported, "11111111-1111-4111-8111-111111111111", [
      turn("2026-01-01T10:00:00.000Z", HOSTILE),
    ]);
    await m.recordSession(recorded, "22222222-2222-4222-8222-222222222222", [
      turn(new Date(Date.now() + 1000).toISOString(), HOSTILE),
    ]);
    for (const project of [imported, recorded]) {
      const events = everyFile(join(project, ".tapedeck")).filter((f) => f.endsWith("events.jsonl"));
      expect(events.length).toBe(1);
      const text = readFileSync(events[0]!, "utf8");
      expect(text).toContain('"turn_usage"');
      expect(text.includes(SECRET), `${project}'s events hold the key`).toBe(false);
      expect(text).toMatch(/"usage":\{[^}]*"model":"claude-opus-4-1 \[REDACTED:/);
    }
    const report = await m.usage("model");
    expect(report.rows.map((r) => r.model)).toEqual([
      "claude-opus-4-1 [REDACTED:aws_access_key_id] vm /home/alice/private",
    ]);
    expect(report.rows[0]!.input_tokens).toBe(2000);
    expect((await m.cli(["usage", "model", "--all-projects"])).stdout.includes(SECRET)).toBe(false);
  });

  it("is published as no model, and a planted one is not summed", async () => {
    const root = machinesRoot(scratch);
    const m = machine(root, "laptop");
    await m.importSession(join(m.home, "p"), "33333333-3333-4333-8333-333333333333", [
      turn("2026-01-01T10:00:00.000Z", HOSTILE),
      turn(
        "2026-01-01T10:20:00.000Z",
        "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/x",
      ),
      turn("2026-01-01T10:40:00.000Z", "claude-sonnet-4-5-20250929"),
    ]);
    const dir = join(root, "synced");
    const pub = await m.cli(["usage", "publish", "--to", dir, "--json"]);
    expect(pub.code, pub.stderr).toBe(0);
    expect(JSON.parse(pub.stdout).models_withheld).toBe(2);
    const files = everyFile(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBe(2);
    for (const f of files) {
      const bytes = readFileSync(f, "utf8");
      for (const word of [SECRET, "alice", "REDACTED", "123456789012", "claude-opus"])
        expect(bytes.includes(word), `${f} holds ${word}`).toBe(false);
    }
    const all = JSON.parse((await m.cli(["usage", "model", "--json", "--machines", dir])).stdout);
    expect(all.rows.map((r: { model: string | null }) => r.model)).toEqual([
      null,
      "claude-sonnet-4-5-20250929",
    ]);
    expect(all.totals.input_tokens).toBe(3000);
    // A peer's file naming a model with a terminal escape: reported, not summed, never printed.
    writeDay(dir, "2026-01-02", [dayRow({ model: "\u001b]0;PWNED\u0007x" })]);
    const text = await m.cli(["usage", "model", "--machines", dir, "--timezone", "UTC"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain("PWNED");
    expect(text.stdout).toMatch(/2026-01-02\.json not summed: a row's model is not a model id/);
  });
});
