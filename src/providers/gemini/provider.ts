// Everything Gemini CLI offers tapedeck, for providers/catalog.ts. No API
// usage reader: the proxy does not read Gemini's wire format; usage comes from
// the chat file (chat-usage.ts) through the adapter.
import type { ProviderEntry } from "../entry.ts";
import { geminiAdapter } from "./adapter.ts";
import { geminiHistory } from "./history.ts";
import { geminiIdentity } from "./identity.ts";
import { geminiInstaller } from "./installer.ts";
import { geminiMcpExtra } from "./mcp-installer.ts";
import { geminiPromptfooTurn } from "./promptfoo-turn.ts";
import { geminiReplay } from "./replay.ts";
import { geminiUsage } from "./usage-facts.ts";

export const geminiProvider: ProviderEntry = {
  identity: geminiIdentity,
  adapter: geminiAdapter,
  installer: { ...geminiInstaller, extras: [geminiMcpExtra] },
  replay: geminiReplay,
  promptfooTurn: geminiPromptfooTurn,
  // Its config root and what it sets in the hooks and commands it runs.
  sessionEnv: [/^GEMINI_CLI_HOME$/, /^GEMINI_(SESSION_ID|PROJECT_DIR|CWD|PLANS_DIR)$/],
  usage: geminiUsage,
  history: geminiHistory,
};
