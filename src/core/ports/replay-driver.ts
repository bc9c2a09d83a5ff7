// What a provider's replay driver does (src/providers/<name>/replay.ts): set up its own config root for one
// run, and run one prompt of that run through the real CLI. The orchestrator does the rest (baseline,
// work tree, install, order, records, cleanup), the same for every provider. A port of the core's, like the
// provider port (./provider.ts): the drivers implement it, src/experiment/ runs them, neither imports the other.

export interface ArmSettings {
  nativeMemory: boolean;
  retrieval: boolean;
  /** Passed to the CLI's model option when given; otherwise the CLI's default (as in the baseline). */
  model?: string;
  /** Claude's `--max-budget-usd` per turn: what is left of the run's budget. */
  maxCostUsd?: number;
}

export interface RunPaths {
  /** The agent's cwd: the project at the baseline's revision. */
  work: string;
  /** HOME for the agent (and the provider's config root under it). */
  home: string;
}

export interface HomeSource {
  /** The user's HOME and environment, read only: where the user's config root and credentials are. */
  userHome: string;
  userEnv: Record<string, string | undefined>;
}

export interface PreparedHome {
  /** The provider's config root of this run (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME). */
  settingsRoot: string;
  /** Environment the CLI needs on top of the base one (the config root, memory switches). */
  env: Record<string, string>;
  /** Copied credential files: removed when the run ends, whatever happens, --keep or not. */
  secrets: string[];
}

export interface TurnUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface TurnOutcome {
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** The provider's session id this turn ran in (the new session's). */
  sessionId?: string;
  answer?: string;
  costUsd?: number;
  usage?: TurnUsage;
  /** Time to the first token of this turn's first response, as the CLI measured it (Claude's ttft_ms). */
  ttftMs?: number;
  /** The model the CLI reports having used. */
  model?: string;
  /** A short reason without output content, when not ok. */
  error?: string;
}

export interface TurnRequest {
  index: number;
  prompt: string;
  /** Set from the second prompt on: the session the first one started. */
  sessionId?: string;
  /** The id a driver that chooses its own (Claude, Gemini) gives the new session. */
  newSessionId: string;
}

/** How a turn process is run: the orchestrator's spawner (timeouts, Ctrl-C, process groups). */
export type Spawn = (
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; input?: string },
) => Promise<{
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}>;

export interface ReplayDriver {
  provider: string;
  /** The CLI: its command name and the npm package that provides it. */
  cli: { name: string; npmPackage: string };
  /** The CLI reports each turn's cost (Claude's total_cost_usd): only then can --max-cost stop a run. */
  reportsCost?: boolean;
  /** Files copied into the config root when native memory is on (relative to the user's config root). */
  userMemoryFiles: readonly string[];
  /** Sets up the run's config root from the user's; never writes outside `paths.home`. */
  prepareHome(paths: RunPaths, source: HomeSource, settings: ArmSettings): PreparedHome;
  /** Adjusts the work tree for the arm (Gemini has no switch for project memory). */
  prepareWork?(paths: RunPaths, settings: ArmSettings): void;
  /**
   * The command line of one turn, and what goes to its stdin: the prompt, where the CLI reads it there, since
   * every local user can read a command line (`ps`) for as long as the turn runs, and one argument is limited
   * to 128 KiB on Linux (E2BIG).
   */
  command(
    bin: string,
    turn: TurnRequest,
    settings: ArmSettings,
  ): { command: string; args: string[]; input?: string };
  /** The turn's outcome from the CLI's output. */
  parse(run: Awaited<ReturnType<Spawn>>, turn: TurnRequest): TurnOutcome;
}
