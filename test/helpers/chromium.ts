// Debian's Chromium for the viewer's browser tests, driven through playwright-core (no browser is downloaded);
// elsewhere (macOS) TAPEDECK_CHROMIUM names one (scripts/test-prereqs.sh says how). Screenshots go to a temp
// directory unless TAPEDECK_VIEWER_SHOTS keeps them, so a person can look at the page.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = process.env.TAPEDECK_CHROMIUM || "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Fails at once, saying what to install, where there is no Chromium to drive. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the viewer's browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  }
}

export interface Chromium {
  browser: BrowserContext;
  /** Where the screenshots go. */
  shots: string;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile (playwright passes it as --user-data-dir); screenshots under `root`. */
export async function launchChromium(
  root: string,
  options: { args?: string[]; timezoneId?: string } = {},
): Promise<Chromium> {
  const userDataDir = mkdtempSync(join(tmpdir(), "tapedeck-chromium-"));
  const removeProfile = () => rmSync(userDataDir, { recursive: true, force: true });
  try {
    const shots = process.env.TAPEDECK_VIEWER_SHOTS ?? join(root, "shots");
    mkdirSync(shots, { recursive: true });
    const browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: options.args ?? CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
      ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    });
    return {
      browser,
      shots,
      close: async () => {
        await browser.close();
        removeProfile();
      },
    };
  } catch (error) {
    removeProfile();
    throw error;
  }
}
