// Opening the viewer in the user's browser without its token on a command line. `xdg-open URL` (and the
// browser it starts, which keeps its arguments for as long as it runs) shows the URL, token included, to
// every local user in `ps`. Instead the opener gets the path of a 0600 page in the user's run directory
// (0700) that sends the browser on to the URL: the path says nothing, and only the user can read the file.
import { spawn as nodeSpawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tapedeckHome } from "../core/archive/session-registry.ts";
import { unlinkQuietly, writeFileAtomicSync } from "../core/base/fsutil.ts";
import { ensureRunDir } from "../core/ports/run-dir.ts";

export interface Launcher {
  /** The page to hand to the opener. */
  file: string;
  remove(): void;
}

const escapeAttr = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Writes the forwarding page; throws when the run directory is a symlink or another user's. */
export function writeLauncher(url: string, env: Record<string, string | undefined> = process.env): Launcher {
  const file = join(tapedeckHome(env), "run", `view-${randomBytes(8).toString("hex")}.html`);
  ensureRunDir(file);
  const href = escapeAttr(url);
  writeFileAtomicSync(
    file,
    [
      "<!doctype html>",
      '<meta charset="utf-8"><meta name="referrer" content="no-referrer">',
      `<meta http-equiv="refresh" content="0;url=${href}">`,
      `<title>tapedeck</title><p><a href="${href}">Open the tapedeck viewer</a></p>`,
      "",
    ].join("\n"),
  );
  return { file, remove: () => unlinkQuietly(file) };
}

type Spawner = (
  command: string,
  args: string[],
) => { on(event: "error", f: () => void): void; unref(): void };

const detached: Spawner = (command, args) => nodeSpawn(command, args, { stdio: "ignore", detached: true });

/**
 * Hands the launcher page to the desktop's opener; answers the launcher (to remove when the viewer stops) or
 * undefined when nothing could be opened (`failed` is told why, without the URL).
 */
export function openInBrowser(
  url: string,
  failed: (why: string) => void,
  options: { env?: Record<string, string | undefined>; spawn?: Spawner; platform?: string } = {},
): Launcher | undefined {
  let launcher: Launcher;
  try {
    launcher = writeLauncher(url, options.env);
  } catch (error) {
    failed((error as Error).message);
    return undefined;
  }
  const opener = (options.platform ?? process.platform) === "darwin" ? "open" : "xdg-open";
  try {
    const child = (options.spawn ?? detached)(opener, [pathToFileURL(launcher.file).href]);
    child.on("error", () => failed(`${opener} is not available`));
    child.unref();
  } catch {
    failed(`${opener} is not available`);
  }
  return launcher;
}
