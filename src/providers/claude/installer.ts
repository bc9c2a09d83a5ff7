import { join } from "node:path";
import type { ProviderInstaller } from "../installer.ts";
import {
  addStatusLine,
  addTapedeck,
  CLAUDE_HOOK_EVENTS,
  countTapedeckHooks,
  findTapedeckHooks,
  hasForeignStatusLine,
  removeTapedeck,
} from "./settings.ts";

export const claudeInstaller: ProviderInstaller = {
  provider: "claude",
  // Personal and git-ignored by Claude Code's own convention.
  settingsPath: (project) => join(project, ".claude", "settings.local.json"),
  transports: ["http", "command"],
  hookEvents: CLAUDE_HOOK_EVENTS.length,
  add: addTapedeck,
  remove: removeTapedeck,
  count: countTapedeckHooks,
  find: findTapedeckHooks,
  statusLine: { hasForeign: hasForeignStatusLine, add: addStatusLine },
};
