import { readFileSync } from "node:fs";

// Replaced by package.json's version when scripts/build.mjs bundles (esbuild `define`), so the built CLI
// reads no file to print it; run from source (vitest, tsx) nothing replaces it and package.json is read.
declare const __TAPEDECK_VERSION__: string | undefined;

function packageVersion(): string {
  // Bundled elsewhere without the define (a test's child process in a temp directory), no package.json sits
  // three levels up: a version is not worth a crash at import time of everything that names it.
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** tapedeck's version, as `tapedeck --version`, the MCP server and the mirror's records report it. */
export const VERSION: string =
  typeof __TAPEDECK_VERSION__ === "string" ? __TAPEDECK_VERSION__ : packageVersion();
