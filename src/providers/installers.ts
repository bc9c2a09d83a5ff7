import { claudeInstaller } from "./claude/installer.ts";
import { claudeMcpExtra } from "./claude/mcp-installer.ts";
import { codexInstaller } from "./codex/installer.ts";
import { codexMcpExtra } from "./codex/mcp-installer.ts";
import { codexNotifyExtra } from "./codex/notify-installer.ts";
import { geminiInstaller } from "./gemini/installer.ts";
import { geminiMcpExtra } from "./gemini/mcp-installer.ts";
import type { ProviderInstaller } from "./installer.ts";

export const INSTALLERS: Record<string, ProviderInstaller> = {
  claude: { ...claudeInstaller, extras: [claudeMcpExtra] },
  codex: { ...codexInstaller, extras: [codexNotifyExtra, codexMcpExtra] },
  gemini: { ...geminiInstaller, extras: [geminiMcpExtra] },
};
