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

/**
 * Codex runs the notify program with the turn's JSON (prompt and reply) as its last argument, and a process's
 * arguments are readable by every local user (/proc/<pid>/cmdline on Linux, `ps` on macOS) while it runs. Measured
 * on Linux: the program runs about 80 ms per turn, of which about 60 ms is Node's own start-up.
 */
export const NOTIFY_ARGV_WARNING =
  "Warning: Codex passes each turn's prompt and reply to it on its command line, which other users of this machine can read (ps, /proc) while it runs, about 0.1 s per turn.";

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
  // Said before the user confirms: Codex's design puts the turn in argv, and no setting of ours can change that.
  describe: () =>
    `notify program in ${codexUserConfigPath()} (user-level; records turns the hooks miss). ${NOTIFY_ARGV_WARNING}`,
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
