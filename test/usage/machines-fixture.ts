// Simulated machines for `usage publish` and `--machines`: each its own HOME and tapedeck home, projects with
// Claude Code sessions imported from transcripts (`tapedeck import claude`) or recorded through the built hook
// (dist/hook.cjs), every command the built CLI in a child process.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { CLI, HOOK } from "../helpers/cli-run.ts";

export interface Turn {
  at: string;
  model: string;
  input: number;
  output: number;
  read?: number;
  write?: number;
  /** the prompt's text */
  prompt?: string;
  version?: string;
}

const line = (r: Record<string, unknown>) => `${JSON.stringify(r)}\n`;

/** A Claude Code transcript of the given turns: a user record, then the answer with its usage, per turn. */
export function transcript(cwd: string, sid: string, turns: readonly Turn[]): string {
  let parent: string | null = null;
  let out = "";
  turns.forEach((t, i) => {
    const version = t.version ?? "2.1.300";
    const origin = { cwd, sessionId: sid, version, userType: "external", entrypoint: "cli" };
    const u = `${sid.slice(0, 8)}-u${i}`;
    out += line({
      parentUuid: parent,
      isSidechain: false,
      promptId: `${sid}-p${i}`,
      type: "user",
      message: { role: "user", content: t.prompt ?? `turn ${i}` },
      uuid: u,
      timestamp: t.at,
      ...origin,
    });
    const a = `${sid.slice(0, 8)}-a${i}`;
    out += line({
      parentUuid: u,
      isSidechain: false,
      message: {
        id: `msg_${sid.slice(0, 8)}_${i}`,
        type: "message",
        role: "assistant",
        model: t.model,
        content: [{ type: "text", text: `done ${i}` }],
        stop_reason: "end_turn",
        usage: {
          input_tokens: t.input,
          output_tokens: t.output,
          cache_read_input_tokens: t.read ?? 0,
          cache_creation_input_tokens: t.write ?? 0,
        },
      },
      requestId: `req_${sid.slice(0, 8)}_${i}`,
      type: "assistant",
      uuid: a,
      timestamp: new Date(Date.parse(t.at) + 2000).toISOString(),
      ...origin,
    });
    parent = a;
  });
  return out;
}

export interface Machine {
  name: string;
  home: string;
  env: Record<string, string>;
  cli(args: string[], cwd?: string): { code: number | null; stdout: string; stderr: string };
  /** Imports a session from a transcript in this machine's ~/.claude. */
  importSession(project: string, sid: string, turns: readonly Turn[]): void;
  /** Records a session through the hooks: SessionStart, then per turn UserPromptSubmit and Stop. */
  recordSession(project: string, sid: string, turns: readonly Turn[]): void;
  /** `usage <kind> --all-projects --json` on this machine. */
  usage(kind: string, extra?: string[]): UsageJson;
}

export interface UsageJson {
  rows: Array<Record<string, unknown> & { provider: string; sessions: number }>;
  totals: Record<string, number | null>;
  machines?: Array<{
    device_id: string;
    name: string;
    published_at: string | null;
    days: number;
    problems: unknown[];
  }>;
}

export function slug(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

export function machine(root: string, name: string): Machine {
  const home = join(root, name);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: home,
    TAPEDECK_HOME: join(home, ".tapedeck"),
    TAPEDECK_MIRROR_DIR: join(home, "mirror"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
    GEMINI_CLI_HOME: home,
  };
  const cli = (args: string[], cwd = home) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { input: "", encoding: "utf8", env, cwd });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const transcriptFile = (project: string, sid: string) =>
    join(home, ".claude", "projects", slug(project), `${sid}.jsonl`);
  const write = (project: string, sid: string, turns: readonly Turn[]) => {
    const path = transcriptFile(project, sid);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, transcript(project, sid, turns));
    return path;
  };
  return {
    name,
    home,
    env,
    cli,
    importSession(project, sid, turns) {
      mkdirSync(join(project, ".git"), { recursive: true });
      write(project, sid, turns);
      const r = cli(["import", "claude", "--project", project, "--json"]);
      expect(r.code, r.stderr).toBe(0);
    },
    recordSession(project, sid, turns) {
      mkdirSync(project, { recursive: true });
      if (spawnSync("test", ["-f", join(project, ".tapedeck", "config.json")]).status !== 0) {
        const r = cli(["install", "claude", "--yes", "--transport", "command", "--project", project]);
        expect(r.code, r.stderr).toBe(0);
      }
      const path = transcriptFile(project, sid);
      const hook = (payload: Record<string, unknown>) => {
        const r = spawnSync(process.execPath, [HOOK, "claude"], {
          input: JSON.stringify({ session_id: sid, transcript_path: path, cwd: project, ...payload }),
          encoding: "utf8",
          cwd: project,
          env: { ...env, CLAUDE_PROJECT_DIR: project },
        });
        expect(r.status, r.stderr).toBe(0);
      };
      write(project, sid, []);
      hook({ hook_event_name: "SessionStart", source: "startup" });
      turns.forEach((t, i) => {
        hook({
          hook_event_name: "UserPromptSubmit",
          prompt_id: `${sid}-p${i}`,
          prompt: t.prompt ?? `turn ${i}`,
        });
        write(project, sid, turns.slice(0, i + 1));
        hook({ hook_event_name: "Stop", prompt_id: `${sid}-p${i}`, stop_hook_active: false });
      });
      hook({ hook_event_name: "SessionEnd", reason: "prompt_input_exit" });
    },
    usage(kind, extra = []) {
      const r = cli(["usage", kind, "--all-projects", "--json", ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as UsageJson;
    },
  };
}
