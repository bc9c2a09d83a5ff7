// Replaying prompts through Claude Code (measured with 2.1.332 against the mock): `-p --session-id <uuid>`
// starts the new session under the id we choose, `-p --resume <uuid>` continues it (same id, same
// transcript). CLAUDE_CONFIG_DIR moves everything claude writes (its `.claude.json`, transcripts, backups)
// into the run's config root; nothing reached the user's ~/.claude. Native memory off:
// CLAUDE_CODE_DISABLE_CLAUDE_MDS=1 drops every CLAUDE.md (the mock saw the project's text vanish from the
// system prompt), CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 the auto-memory directory.

import { join } from "node:path";
import { ensureDir } from "../../core/base/fsutil.ts";
import type {
  ArmSettings,
  HomeSource,
  PreparedHome,
  ReplayDriver,
  RunPaths,
} from "../../core/ports/replay-driver.ts";
import { copyUserFile, num, objectField, parseJsonOr, readUserJson, writeRunJson } from "../replay-home.ts";
import { failureReason, processOutcome } from "../replay-outcome.ts";
import { claudeCli } from "./launch.ts";

function userConfigRoot(source: HomeSource): string {
  return source.userEnv.CLAUDE_CONFIG_DIR || join(source.userHome, ".claude");
}

/** claude keeps `.claude.json` in CLAUDE_CONFIG_DIR when that is set, else beside it in HOME. */
function userStatePath(source: HomeSource): string {
  return source.userEnv.CLAUDE_CONFIG_DIR
    ? join(source.userEnv.CLAUDE_CONFIG_DIR, ".claude.json")
    : join(source.userHome, ".claude.json");
}

function prepareHome(paths: RunPaths, source: HomeSource, settings: ArmSettings): PreparedHome {
  const root = join(paths.home, ".claude");
  ensureDir(root);
  // Onboarding, the approved API key and the account stay as the user has them; the run's project is
  // trusted, so no question stops print mode.
  const state = readUserJson(userStatePath(source)) ?? {};
  state.hasCompletedOnboarding = true;
  const projects = objectField(state, "projects");
  projects[paths.work] = {
    hasTrustDialogAccepted: true,
    hasCompletedProjectOnboarding: true,
    projectOnboardingSeenCount: 1,
    allowedTools: [],
  };
  const secrets = [join(root, ".claude.json")];
  writeRunJson(secrets[0]!, state);
  const credentials = copyUserFile(userConfigRoot(source), root, ".credentials.json");
  if (credentials) secrets.push(credentials);
  if (settings.nativeMemory) copyUserFile(userConfigRoot(source), root, "CLAUDE.md");
  const env: Record<string, string> = { CLAUDE_CONFIG_DIR: root };
  if (!settings.nativeMemory) {
    env.CLAUDE_CODE_DISABLE_CLAUDE_MDS = "1";
    env.CLAUDE_CODE_DISABLE_AUTO_MEMORY = "1";
  }
  return { settingsRoot: root, env, secrets };
}

export const claudeReplay: ReplayDriver = {
  provider: "claude",
  cli: claudeCli,
  reportsCost: true,
  userMemoryFiles: ["CLAUDE.md"],
  prepareHome,
  command(bin, turn, settings) {
    const args = ["-p", "--output-format", "json", "--permission-mode", "bypassPermissions"];
    args.push(...(turn.sessionId ? ["--resume", turn.sessionId] : ["--session-id", turn.newSessionId]));
    if (settings.model) args.push("--model", settings.model);
    if (settings.maxCostUsd !== undefined) args.push("--max-budget-usd", String(settings.maxCostUsd));
    // `claude -p` reads the prompt from stdin when none is given: never a flag, never on the command line.
    return { command: bin, args, input: turn.prompt };
  },
  parse(run, turn) {
    const json = parseJsonOr(run.stdout) as Record<string, unknown> | undefined;
    const result = json && typeof json === "object" ? json : undefined;
    const usage = result?.usage as Record<string, unknown> | undefined;
    const models = result?.modelUsage as Record<string, unknown> | undefined;
    const isError = result?.is_error === true;
    const ok = run.code === 0 && !run.timedOut && result !== undefined && !isError;
    return {
      ok,
      ...processOutcome(run),
      sessionId: typeof result?.session_id === "string" ? result.session_id : turn.sessionId,
      answer: typeof result?.result === "string" ? result.result : undefined,
      costUsd: num(result?.total_cost_usd),
      ttftMs: num(result?.ttft_ms),
      usage: usage
        ? {
            input_tokens: num(usage.input_tokens),
            output_tokens: num(usage.output_tokens),
            cache_read_input_tokens: num(usage.cache_read_input_tokens),
            cache_creation_input_tokens: num(usage.cache_creation_input_tokens),
          }
        : undefined,
      model: models ? Object.keys(models)[0] : undefined,
      error: ok
        ? undefined
        : failureReason(
            "claude",
            run,
            isError ? `claude reported an error (${String(result?.subtype ?? "error")})` : undefined,
          ),
    };
  },
};
