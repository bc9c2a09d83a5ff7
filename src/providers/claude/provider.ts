// Everything Claude Code offers tapedeck, for providers/catalog.ts.
import type { ProviderEntry } from "../entry.ts";
import { claudeAdapter } from "./adapter.ts";
import { claudeApiUsage } from "./api-usage.ts";
import { claudeHistory } from "./history.ts";
import { claudeInstaller } from "./installer.ts";
import { claudeMcpExtra } from "./mcp-installer.ts";
import { claudeReplay } from "./replay.ts";

export const claudeProvider: ProviderEntry = {
  adapter: claudeAdapter,
  installer: { ...claudeInstaller, extras: [claudeMcpExtra] },
  apiUsage: claudeApiUsage,
  replay: claudeReplay,
  history: claudeHistory,
};
