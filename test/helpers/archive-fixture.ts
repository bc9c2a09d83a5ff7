// Sessions written straight into a project's archive (manifest and events), dated as a test needs, for the
// commands that select sessions by age, provider and status without recording through the hooks.
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface FakeSession {
  provider?: string;
  id: string;
  daysAgo: number;
  status?: "complete" | "incomplete" | "active";
  agentPid?: number | null;
  replayOf?: string | null;
  eventBytes?: number;
}

const DAY = 86_400_000;

export function fakeSession(root: string, s: FakeSession, now = Date.now()): string {
  const provider = s.provider ?? "claude";
  const dir = join(root, ".tapedeck", `${provider}-sessions`, s.id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const at = new Date(now - s.daysAgo * DAY).toISOString();
  const events = `${JSON.stringify({ sequence: 1, text: "x".repeat(s.eventBytes ?? 100) })}\n`;
  const manifest = {
    schema_version: 1,
    session_id: s.id,
    provider,
    provider_session_id: s.id,
    started_at: at,
    ended_at: s.status === "complete" || s.status === undefined ? at : null,
    last_event_at: at,
    status: s.status ?? "complete",
    event_count: 1,
    byte_count: Buffer.byteLength(events),
    replay_of_session_id: s.replayOf ?? null,
    agent_pid: s.agentPid ?? null,
    run_type: s.replayOf ? "replay" : "recorded",
  };
  writeFileSync(join(dir, "events.jsonl"), events, { mode: 0o600 });
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest), { mode: 0o600 });
  const t = new Date(now - s.daysAgo * DAY);
  for (const f of ["events.jsonl", "manifest.json"]) utimesSync(join(dir, f), t, t);
  return dir;
}
