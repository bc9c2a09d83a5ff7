// Everything Claude Code offers tapedeck, for providers/catalog.ts.
import type { ProviderEntry } from "../entry.ts";
import { claudeAdapter } from "./adapter.ts";
import { claudeApiUsage } from "./api-usage.ts";
import { claudeHistory } from "./history.ts";
import { claudeIdentity } from "./identity.ts";
import { claudeInstaller } from "./installer.ts";
import { claudeLauncher } from "./launch.ts";
import { claudeMcpExtra } from "./mcp-installer.ts";
import { claudeMirror } from "./mirror/part.ts";
import { claudePromptfooTurn } from "./promptfoo-turn.ts";
import { claudeReplay } from "./replay.ts";
import { claudeStatusLine } from "./status-line.ts";
import { claudeUsageFacts } from "./usage-facts.ts";

export const claudeProvider: ProviderEntry = {
  identity: claudeIdentity,
  adapter: claudeAdapter,
  installer: { ...claudeInstaller, extras: [claudeMcpExtra] },
  apiUsage: claudeApiUsage,
  replay: claudeReplay,
  promptfooTurn: claudePromptfooTurn,
  // Its config root, what it sets in the hooks and commands it runs, and the native-memory switches a
  // replay's arm sets itself (replay.ts).
  sessionEnv: [
    /^CLAUDE_CONFIG_DIR$/,
    /^CLAUDECODE$/,
    /^CLAUDE_PROJECT_DIR$/,
    /^CLAUDE_PID$/,
    /^CLAUDE_CODE_(SESSION_ID|ENTRYPOINT|MESSAGING_SOCKET|DISABLE_CLAUDE_MDS|DISABLE_AUTO_MEMORY)$/,
  ],
  mirror: claudeMirror,
  launcher: claudeLauncher,
  usage: claudeUsageFacts,
  history: claudeHistory,
  // Agent since 2.1; Task before it, in sessions recorded then.
  subagentTools: ["Agent", "Task"],
  statusLine: claudeStatusLine,
  // Restore's code: loaded only by `inspect` and `doctor --transcripts`.
  transcripts: async () => (await import("./transcript-check.ts")).claudeTranscripts,
};
