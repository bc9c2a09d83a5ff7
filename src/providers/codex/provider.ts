// Everything Codex CLI offers tapedeck, for providers/catalog.ts. Its notify
// program (notify.ts) is not a second provider: a fallback capture path of
// this one, installed by the `--notify` extra and run by dist/hook.cjs itself.
import type { ProviderEntry } from "../entry.ts";
import { codexAdapter } from "./adapter.ts";
import { codexApiUsage } from "./api-usage.ts";
import { codexTrustCheck } from "./doctor.ts";
import { codexHistory } from "./history.ts";
import { codexIdentity } from "./identity.ts";
import { codexInstaller } from "./installer.ts";
import { codexLauncher } from "./launch.ts";
import { codexMcpExtra } from "./mcp-installer.ts";
import { codexNotifyHook } from "./notify.ts";
import { codexNotifyExtra } from "./notify-installer.ts";
import { codexPromptfooTurn } from "./promptfoo-turn.ts";
import { codexReplay } from "./replay.ts";
import { codexUsageFacts } from "./usage-facts.ts";

export const codexProvider: ProviderEntry = {
  identity: codexIdentity,
  adapter: codexAdapter,
  installer: { ...codexInstaller, extras: [codexNotifyExtra, codexMcpExtra] },
  apiUsage: codexApiUsage,
  doctorChecks: [codexTrustCheck],
  replay: codexReplay,
  promptfooTurn: codexPromptfooTurn,
  // Its config root and what it sets in the hooks and commands it runs.
  sessionEnv: [/^CODEX_HOME$/, /^CODEX_(THREAD_ID|MANAGED_BY_NPM|MANAGED_PACKAGE_ROOT)$/],
  launcher: codexLauncher,
  usage: codexUsageFacts,
  history: codexHistory,
  subagentTools: ["spawn_agent"],
  argvHook: codexNotifyHook,
};
