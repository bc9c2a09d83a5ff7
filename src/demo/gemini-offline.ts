/**
 * Runs the real `gemini` CLI (devDependency, 0.61) offline against a local mock of the Gemini API
 * (gemini-mock.ts), with a throwaway HOME so that nothing from the developer's own Gemini setup leaks into a test
 * or gets modified by it.
 *
 * What it takes (Gemini CLI 0.61):
 * - `security.auth.selectedType: "gemini-api-key"` in the user settings. With only the environment variables
 *   the auth type resolves to `gateway` and `-p` fails with "Invalid auth method selected." (exit 41).
 * - `GOOGLE_GEMINI_BASE_URL` (the mock) and any `GEMINI_API_KEY`.
 * - `GEMINI_CLI_NO_RELAUNCH=true`: otherwise the CLI re-spawns itself in a child node with a bigger heap.
 * - `--yolo`: in `-p` mode without it `run_shell_command` is not even in the tool registry.
 * - A trusted folder: Gemini loads `.gemini/settings.json` of the project, and runs its hooks, only there.
 *   Either folder trust is off (`security.folderTrust.enabled: false`) or `~/.gemini/trustedFolders.json`
 *   names the project (`TRUST_FOLDER`), which is what a user who trusted the folder has.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findAgentCli } from "../providers/agent-cli.ts";
import { geminiReplay } from "../providers/gemini/replay.ts";
import { makeHomeDirs, type OfflineHome, offlineEnv } from "./offline-home.ts";
import { type JsonAgentRun, type OfflineRunOptions, runAgentForJson } from "./run-agent.ts";

/**
 * The `gemini` the tests run, in the one lookup order (providers/agent-cli.ts: TAPEDECK_GEMINI_BIN, this
 * checkout's pinned dev dependency, the PATH), else the bare name.
 */
export const GEMINI_BIN: string = findAgentCli(geminiReplay.cli) ?? geminiReplay.cli.name;

/** Any value passes: the mock never checks it. */
export const DUMMY_GEMINI_KEY = "dummy-gemini-key";

export type GeminiHome = OfflineHome;

export interface GeminiHomeOptions {
  /**
   * How the project becomes trusted: `file` (default) lists it in `~/.gemini/trustedFolders.json` with folder
   * trust on, `disabled` turns folder trust off, `none` leaves it untrusted (project settings and hooks ignored).
   */
  trust?: "file" | "disabled" | "none";
  /** Merged over the user settings written here. */
  settings?: Record<string, unknown>;
}

/**
 * Prepares a HOME in which `gemini -p` starts without any question (auth, folder trust, updates, telemetry) and
 * a git-initialised project dir, as Gemini's workspace context expects one.
 */
export function makeGeminiHome(dir: string, projectDir: string, opts: GeminiHomeOptions = {}): GeminiHome {
  const { home, projectDir: project } = makeHomeDirs(dir, projectDir);
  execFileSync("git", ["init", "-q"], { cwd: project, stdio: "ignore" });
  const trust = opts.trust ?? "file";
  const settings: Record<string, unknown> = {
    security: {
      auth: { selectedType: "gemini-api-key" },
      folderTrust: { enabled: trust !== "disabled" },
    },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ...opts.settings,
  };
  const geminiDir = join(home, ".gemini");
  mkdirSync(geminiDir, { recursive: true });
  writeFileSync(join(geminiDir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  if (trust === "file") {
    // Both spellings: the caller may pass a symlinked path (e.g. macOS /var -> /private/var).
    const folders = { [project]: "TRUST_FOLDER", [projectDir]: "TRUST_FOLDER" };
    writeFileSync(join(geminiDir, "trustedFolders.json"), `${JSON.stringify(folders, null, 2)}\n`, {
      mode: 0o600,
    });
  }
  return { home, projectDir: project };
}

/**
 * `args`: prompt and flags, e.g. `["SCENARIO_BASH echo hi"]` or `["--resume", "latest", "next prompt"]`; without
 * `-p`/`--prompt` the last element is the prompt; `-o json` and `--yolo` are added unless already present. The
 * timeout is 60 s unless given.
 */
export interface RunGeminiOptions extends OfflineRunOptions {
  /** The mock's URL, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
}

/** `json`: the `-o json` result (`{session_id, response, stats}`). */
export interface GeminiResult extends JsonAgentRun {
  /** The final answer (`json.response`). */
  response?: string;
}

function withDefaultArgs(args: string[]): string[] {
  const out = [...args];
  if (!out.includes("-p") && !out.includes("--prompt") && out.length > 0) {
    const prompt = out.pop() as string;
    out.push("-p", prompt);
  }
  if (!out.includes("-o") && !out.includes("--output-format")) out.push("-o", "json");
  if (!out.some((a) => a === "--yolo" || a === "-y" || a.startsWith("--approval-mode"))) out.push("--yolo");
  return out;
}

export async function runGemini(opts: RunGeminiOptions): Promise<GeminiResult> {
  const env = offlineEnv(opts.home, {
    GOOGLE_GEMINI_BASE_URL: opts.baseUrl,
    GEMINI_API_KEY: DUMMY_GEMINI_KEY,
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...opts.env,
  });
  // The package's bin (the pinned one, or one installed with npm) is a node script: run it with this node (no
  // PATH lookup of `node`); the bare name, when no gemini was found, is run as it is.
  const [command, argv] = existsSync(GEMINI_BIN)
    ? [process.execPath, [GEMINI_BIN, ...withDefaultArgs(opts.args)]]
    : [GEMINI_BIN, withDefaultArgs(opts.args)];
  const result: GeminiResult = await runAgentForJson(command, argv, {
    cwd: opts.cwd,
    env,
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
  if (typeof result.json?.response === "string") result.response = result.json.response;
  return result;
}

/** Every chat recording under `<home>/.gemini/tmp/<project-slug>/chats/`. */
export function geminiChatFiles(home: string): string[] {
  const tmp = join(home, ".gemini", "tmp");
  if (!existsSync(tmp)) return [];
  const out: string[] = [];
  for (const slug of readdirSync(tmp)) {
    const chats = join(tmp, slug, "chats");
    if (!existsSync(chats)) continue;
    for (const name of readdirSync(chats)) {
      if (name.endsWith(".jsonl") || name.endsWith(".json")) out.push(join(chats, name));
    }
  }
  return out.sort();
}
