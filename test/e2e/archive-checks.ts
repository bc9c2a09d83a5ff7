// Checks on a recorded archive shared by the real-client e2e tests: what is
// on disk, byte for byte, and with which modes.
import { type ExecFileException, execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join, relative } from "node:path";
import { expect } from "vitest";
import type { Checksums, Envelope, Manifest } from "../../src/core/archive/schemas.ts";

/** The envelopes of an events.jsonl, or none when it does not exist. */
export function readEventsFile(path: string): Envelope[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Envelope);
}

/** Every path under `dir` (itself included), by lstat, depth first. */
export function walk(dir: string): Array<{ path: string; stat: Stats }> {
  const out = [{ path: dir, stat: lstatSync(dir) }];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) out.push(...walk(path));
    else out.push({ path, stat });
  }
  return out;
}

/** Relative path -> mode and content hash of everything under `dir`: equal snapshots mean nothing was written. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { path, stat } of walk(dir)) {
    const mode = (stat.mode & 0o7777).toString(8);
    const hash = stat.isFile() ? createHash("sha256").update(readFileSync(path)).digest("hex") : "dir";
    out[relative(dir, path) || "."] = `${mode} ${hash}`;
  }
  return out;
}

/**
 * Waits (up to `ms`) until no session under `dir` holds its writer's lock: a writer Codex starts detached (notify)
 * can still be committing after its events are readable, and a check of every file must see the archive at rest.
 */
export async function writersDone(dir: string, ms = 15_000): Promise<void> {
  const held = () => walk(dir).some(({ path }) => path.endsWith("/lock"));
  const deadline = Date.now() + ms;
  while (held() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(held(), "a session's writer still holds its lock").toBe(false);
}

/** No file under `dir` holds any of the needles, searched in the raw bytes. */
export function expectNoSecrets(dir: string, needles: readonly string[]): void {
  for (const { path, stat } of walk(dir)) {
    if (!stat.isFile()) continue;
    const bytes = readFileSync(path);
    for (const needle of needles) {
      expect(bytes.includes(Buffer.from(needle)), `${needle} found in ${path}`).toBe(false);
    }
  }
}

export function expectPrivateModes(dir: string): void {
  const modes = walk(dir).map(({ path, stat }) => ({
    path: relative(dir, path) || ".",
    type: stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "other",
    mode: (stat.mode & 0o7777).toString(8),
  }));
  expect(modes.filter((m) => m.type === "other")).toEqual([]);
  expect(modes.filter((m) => m.type === "dir" && m.mode !== "700")).toEqual([]);
  expect(modes.filter((m) => m.type === "file" && m.mode !== "600")).toEqual([]);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI; asynchronous, because a mock in the test's process must keep serving meanwhile. */
export function runCli(cliJs: string, args: string[], opts: { cwd: string; env: Record<string, string> }) {
  return new Promise<CliResult>((resolve) => {
    execFile(
      process.execPath,
      [cliJs, ...args],
      { cwd: opts.cwd, env: opts.env, encoding: "utf8", timeout: 30_000 },
      (error: ExecFileException | null, stdout: string, stderr: string) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export function countKinds(events: Envelope[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events) counts[e.kind] = (counts[e.kind] ?? 0) + 1;
  return counts;
}

export function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

const readJson = <T>(path: string) => JSON.parse(readFileSync(path, "utf8")) as T;

/**
 * A finished session: manifest complete, checksums over the exact bytes, sequences gapless across all epochs,
 * and `tapedeck inspect --json` (run by `inspect`) agreeing. Answers what inspect said.
 */
export async function expectCompleteSession<T>(opts: {
  dir: string;
  provider: string;
  id: string;
  inspect: () => Promise<T>;
}): Promise<T> {
  const { dir, provider, id } = opts;
  const events = readEventsFile(join(dir, "events.jsonl"));
  const manifest = readJson<Manifest>(join(dir, "manifest.json"));
  expect(manifest).toMatchObject({
    session_id: `${provider}:${id}`,
    provider,
    provider_session_id: id,
    status: "complete",
    event_count: events.length,
  });
  expect(manifest.ended_at).not.toBeNull();
  const checksums = readJson<Checksums>(join(dir, "checksums.json"));
  expect(checksums).toMatchObject({
    algorithm: "sha256",
    events_sha256: sha256File(join(dir, "events.jsonl")),
    event_count: events.length,
    byte_count: lstatSync(join(dir, "events.jsonl")).size,
  });
  const inspected = await opts.inspect();
  expect(inspected).toMatchObject({
    session_id: `${provider}:${id}`,
    status: "complete",
    event_count: events.length,
    counts_by_kind: countKinds(events),
    malformed_lines: 0,
    sequence_anomalies: 0,
    checksums: { ok: true },
  });
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  return inspected;
}
