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
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJsonOutput, runAgentProcess } from "./run-agent.ts";

/** The `gemini` of this package's dev dependencies (from src/demo/ under the test runner, from dist/ bundled). */
export const GEMINI_BIN =
  process.env.TAPEDECK_GEMINI_BIN ??
  ["../../node_modules/.bin/gemini", "../node_modules/.bin/gemini"]
    .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
    .find((p) => existsSync(p)) ??
  "gemini";

/** Any value passes: the mock never checks it. */
export const DUMMY_GEMINI_KEY = "dummy-gemini-key";

export interface GeminiHome {
  home: string;
  /** The realpath of the project dir: Gemini keys trust, hooks and chats by it, so tests should use this one. */
  projectDir: string;
}

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
  mkdirSync(dir, { recursive: true });
  mkdirSync(projectDir, { recursive: true });
  const home = realpathSync(dir);
  const project = realpathSync(projectDir);
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

export interface RunGeminiOptions {
  home: string;
  cwd: string;
  /** The mock's URL, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
  /**
   * Prompt and flags, e.g. `["SCENARIO_BASH echo hi"]` or `["--resume", "latest", "next prompt"]`. Without
   * `-p`/`--prompt` the last element is the prompt. `-o json` and `--yolo` are added unless already present.
   */
  args: string[];
  env?: Record<string, string>;
  /** Default 60 s; the process group is killed with SIGKILL once it passes. */
  timeoutMs?: number;
}

export interface GeminiResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Parsed `-o json` result (`{session_id, response, stats}`), when stdout was JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's result object is an external, unversioned format.
  json?: any;
  sessionId?: string;
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
  const env: Record<string, string> = {
    HOME: opts.home,
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    GOOGLE_GEMINI_BASE_URL: opts.baseUrl,
    GEMINI_API_KEY: DUMMY_GEMINI_KEY,
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...opts.env,
  };
  // The package's bin is a node script: run it with this node (no PATH lookup of `node`); a bare command
  // name (a gemini on PATH) is run as it is.
  const [command, argv] = existsSync(GEMINI_BIN)
    ? [process.execPath, [GEMINI_BIN, ...withDefaultArgs(opts.args)]]
    : [GEMINI_BIN, withDefaultArgs(opts.args)];
  const run = await runAgentProcess(command, argv, {
    cwd: opts.cwd,
    env,
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
  const json = parseJsonOutput(run.stdout);
  const record = json && typeof json === "object" ? (json as Record<string, unknown>) : undefined;
  const result: GeminiResult = { ...run, json };
  if (typeof record?.session_id === "string") result.sessionId = record.session_id;
  if (typeof record?.response === "string") result.response = record.response;
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
