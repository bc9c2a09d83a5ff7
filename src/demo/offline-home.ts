// The throwaway HOME an offline run of an agent CLI gets, so that nothing of the developer's own setup leaks into
// a test or is changed by it: its directories and its environment.
import { mkdirSync, realpathSync } from "node:fs";

export interface OfflineHome {
  home: string;
  /** The realpath of the project dir: the agents key trust, hooks and their own files by it; tests use this one. */
  projectDir: string;
}

/** Creates the HOME and the project dir, and gives their real paths (the caller's may go through a link). */
export function makeHomeDirs(dir: string, projectDir: string): OfflineHome {
  mkdirSync(dir, { recursive: true });
  mkdirSync(projectDir, { recursive: true });
  return { home: realpathSync(dir), projectDir: realpathSync(projectDir) };
}

/** An offline run's environment: nothing inherited but PATH, the run's own HOME, then the agent's `vars`. */
export function offlineEnv(home: string, vars: Record<string, string>): Record<string, string> {
  return { HOME: home, PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", ...vars };
}
