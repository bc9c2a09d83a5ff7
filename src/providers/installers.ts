import { claudeInstaller } from "./claude/installer.ts";
import { codexInstaller } from "./codex/installer.ts";
import { geminiInstaller } from "./gemini/installer.ts";
import type { ProviderInstaller } from "./installer.ts";

export const INSTALLERS: Record<string, ProviderInstaller> = {
  claude: claudeInstaller,
  codex: codexInstaller,
  gemini: geminiInstaller,
};
