import type { ExtraCommand, InstallExtra } from "../installer.ts";
import { codexConfigFile, defaultCodexHome } from "./home.ts";
import {
  blockBody,
  blockValue,
  hasBlock,
  readConfigText,
  removeBlock,
  setBlock,
  setsOutsideBlock,
  tomlStringArray,
  writeConfigText,
} from "./toml-blocks.ts";

const BLOCK = "notify";

export function codexUserConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return codexConfigFile(defaultCodexHome(env));
}

/** The TOML array `["node", "<hook.cjs>", "codex", "--notify"]` (JSON strings are TOML basic strings). */
export function notifyLine(command: ExtraCommand): string {
  return `notify = ${tomlStringArray([command.node, command.hook, "codex", "--notify"])}`;
}

/** The lines of the notify block that are tapedeck's; anything else found in it is kept on removal. */
const OWNED = ["notify = "];

export const codexNotifyExtra: InstallExtra = {
  flag: "notify",
  fallback: true,
  userLevel: true,
  describe: () => `notify program in ${codexUserConfigPath()} (user-level; records turns the hooks miss)`,
  path: () => codexUserConfigPath(),
  add(_project, command) {
    const path = codexUserConfigPath();
    const text = readConfigText(path);
    if (setsOutsideBlock(text, BLOCK, [], "notify")) {
      throw new Error(
        `${path} already sets a notify program; Codex runs only one, and tapedeck will not replace yours`,
      );
    }
    writeConfigText(path, setBlock(text, BLOCK, [notifyLine(command)], "top", OWNED));
  },
  remove() {
    const path = codexUserConfigPath();
    const text = readConfigText(path);
    if (!hasBlock(text, BLOCK)) return false;
    writeConfigText(path, removeBlock(text, BLOCK, OWNED));
    return true;
  },
  present: () => hasBlock(readConfigText(codexUserConfigPath()), BLOCK),
  runs() {
    const argv = blockValue(blockBody(readConfigText(codexUserConfigPath()), BLOCK), "notify");
    return Array.isArray(argv) ? argv.filter((a): a is string => typeof a === "string") : undefined;
  },
};
