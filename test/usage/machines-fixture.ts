// Simulated machines for `usage publish` and `--machines`: each its own HOME and tapedeck home, projects with
// Claude Code sessions imported from transcripts (`tapedeck import claude`) or recorded through the hook
// (`tapedeck hook claude`, the recorder the installed hook runs), every command run in process
// (test/helpers/program.ts) with exactly the machine's environment, as a child started with it would be.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import type { CliResult } from "../helpers/cli-run.ts";
import { runProgram } from "../helpers/program.ts";
import type { ScratchDir } from "../helpers/temp-project.ts";
import { type Turn, transcript } from "./claude-transcript.ts";

export type { Turn };

export interface Machine {
  name: string;
  home: string;
  env: Record<string, string>;
  cli(args: string[], cwd?: string): Promise<CliResult>;
  /** Imports a session from a transcript in this machine's ~/.claude. */
  importSession(project: string, sid: string, turns: readonly Turn[]): Promise<void>;
  /** Records a session through the hooks: SessionStart, then per turn UserPromptSubmit and Stop. */
  recordSession(project: string, sid: string, turns: readonly Turn[]): Promise<void>;
  /** `usage <kind> --all-projects --json` on this machine. */
  usage(kind: string, extra?: string[]): Promise<UsageJson>;
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

/** A fresh folder for machines, private as a user's home is (publish refuses a folder others can write). */
export function machinesRoot(scratch: ScratchDir): string {
  const root = scratch.fresh("root");
  mkdirSync(root, { mode: 0o700 });
  return root;
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
  const cli = (args: string[], cwd = home, stdin = "", extra: Record<string, string> = {}) =>
    runProgram(args, { env: { ...env, ...extra }, inheritEnv: false, cwd, stdin });
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
    async importSession(project, sid, turns) {
      mkdirSync(join(project, ".git"), { recursive: true });
      write(project, sid, turns);
      const r = await cli(["import", "claude", "--project", project, "--json"]);
      expect(r.code, r.stderr).toBe(0);
    },
    async recordSession(project, sid, turns) {
      mkdirSync(project, { recursive: true });
      if (!existsSync(join(project, ".tapedeck", "config.json"))) {
        const r = await cli(["install", "claude", "--yes", "--transport", "command", "--project", project]);
        expect(r.code, r.stderr).toBe(0);
      }
      const path = transcriptFile(project, sid);
      const hook = async (payload: Record<string, unknown>) => {
        const input = JSON.stringify({ session_id: sid, transcript_path: path, cwd: project, ...payload });
        const r = await cli(["hook", "claude"], project, input, { CLAUDE_PROJECT_DIR: project });
        expect(r.code, r.stderr).toBe(0);
      };
      write(project, sid, []);
      await hook({ hook_event_name: "SessionStart", source: "startup" });
      for (const [i, t] of turns.entries()) {
        await hook({
          hook_event_name: "UserPromptSubmit",
          prompt_id: `${sid}-p${i}`,
          prompt: t.prompt ?? `turn ${i}`,
        });
        write(project, sid, turns.slice(0, i + 1));
        await hook({ hook_event_name: "Stop", prompt_id: `${sid}-p${i}`, stop_hook_active: false });
      }
      await hook({ hook_event_name: "SessionEnd", reason: "prompt_input_exit" });
    },
    async usage(kind, extra = []) {
      const r = await cli(["usage", kind, "--all-projects", "--json", ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as UsageJson;
    },
  };
}
