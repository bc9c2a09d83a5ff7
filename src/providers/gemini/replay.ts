// Replaying prompts through Gemini CLI (measured with 0.61.0 against the mock): `gemini -p --session-id
// <uuid>` starts a session under the id we choose, `gemini -p --resume <uuid>` continues it (the second
// request carried the first prompt). GEMINI_CLI_HOME replaces the home directory for everything under
// `.gemini/` (settings, trust, chats, history); nothing reached the user's ~/.gemini.
// Native memory: Gemini has no switch. `context.fileName` only adds names to GEMINI.md (setGeminiMdFilename
// merges), and a trusted folder always loads the project's files up to the git root (an untrusted one also
// drops the project's settings, tapedeck's hooks among them, and yolo). So an off arm deletes the memory
// files from its own work tree and copies no user-level GEMINI.md; the mock saw the text vanish.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureDir } from "../../core/base/fsutil.ts";
import type {
  ArmSettings,
  HomeSource,
  PreparedHome,
  ReplayDriver,
  RunPaths,
  TurnOutcome,
} from "../../core/ports/replay-driver.ts";
import { copyUserFile, num, objectField, parseJsonOr, readUserJson, writeRunJson } from "../replay-home.ts";
import { failureReason, processOutcome } from "../replay-outcome.ts";

const MEMORY_FILE = "GEMINI.md";

function userGeminiDir(source: HomeSource): string {
  return join(source.userEnv.GEMINI_CLI_HOME || source.userHome, ".gemini");
}

function prepareHome(paths: RunPaths, source: HomeSource, settings: ArmSettings): PreparedHome {
  const root = join(paths.home, ".gemini");
  ensureDir(root);
  const from = userGeminiDir(source);
  const userSettings = readUserJson(join(from, "settings.json")) ?? {};
  // Without an auth type pinned, -p fails with "Invalid auth method selected." (exit 41) when only a key is set.
  const security = objectField(userSettings, "security");
  const auth = objectField(security, "auth");
  if (!auth.selectedType && source.userEnv.GEMINI_API_KEY) auth.selectedType = "gemini-api-key";
  const secrets: string[] = [];
  const settingsPath = join(root, "settings.json");
  writeRunJson(settingsPath, userSettings);
  secrets.push(settingsPath);
  const trusted = readUserJson(join(from, "trustedFolders.json")) ?? {};
  trusted[paths.work] = "TRUST_FOLDER";
  const trustPath = join(root, "trustedFolders.json");
  writeRunJson(trustPath, trusted);
  for (const name of ["oauth_creds.json", "google_accounts.json", ".env"]) {
    const copied = copyUserFile(from, root, name);
    if (copied) secrets.push(copied);
  }
  if (settings.nativeMemory) copyUserFile(from, root, MEMORY_FILE);
  return { settingsRoot: root, env: { GEMINI_CLI_HOME: paths.home }, secrets };
}

/** Every GEMINI.md of the work tree (never under .git), for an arm without native memory. */
function removeMemoryFiles(dir: string, depth = 0): void {
  if (depth > 32) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === ".git") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removeMemoryFiles(path, depth + 1);
    else if (entry.name === MEMORY_FILE) rmSync(path, { force: true });
  }
}

export const geminiReplay: ReplayDriver = {
  provider: "gemini",
  cli: { name: "gemini", npmPackage: "@google/gemini-cli" },
  userMemoryFiles: [MEMORY_FILE],
  prepareHome,
  prepareWork(paths, settings) {
    if (!settings.nativeMemory) removeMemoryFiles(paths.work);
  },
  command(bin, turn, settings) {
    // No --prompt: with stdin not a terminal gemini runs headless and takes stdin as the prompt, which keeps it
    // off the command line (and never a flag). --yolo: headless without it the shell tool is not even
    // registered.
    const args = ["-o", "json", "--yolo"];
    args.push(...(turn.sessionId ? ["--resume", turn.sessionId] : ["--session-id", turn.newSessionId]));
    if (settings.model) args.push("-m", settings.model);
    return { command: bin, args, input: turn.prompt };
  },
  parse(run, turn): TurnOutcome {
    const json = parseJsonOr(run.stdout) as Record<string, unknown> | undefined;
    const result = json && typeof json === "object" ? json : undefined;
    const ok = run.code === 0 && !run.timedOut && typeof result?.response === "string" && !result?.error;
    const models = (result?.stats as { models?: Record<string, { tokens?: Record<string, unknown> }> })
      ?.models;
    const main = models ? Object.entries(models).at(-1) : undefined;
    const tokens = main?.[1]?.tokens;
    return {
      ok,
      ...processOutcome(run),
      sessionId: typeof result?.session_id === "string" ? result.session_id : turn.sessionId,
      ...(typeof result?.response === "string" ? { answer: result.response } : {}),
      ...(tokens
        ? {
            usage: {
              input_tokens: num(tokens.prompt ?? tokens.input),
              output_tokens: num(tokens.candidates),
              cache_read_input_tokens: num(tokens.cached),
            },
          }
        : {}),
      ...(main ? { model: main[0] } : {}),
      error: ok ? undefined : failureReason("gemini", run),
    };
  },
};
