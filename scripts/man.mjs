// Writes dist/tapedeck.1 from the program's own help (src/cli/manual.ts): bundled once and run in this
// process, rather than one `tapedeck X --help` process per command (40 of them, seconds of build time).
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { workspacePackages } from "./workspace-packages.mjs";

export async function writeManPage(version) {
  mkdirSync("dist", { recursive: true });
  const bundle = resolve(`dist/.manual-${process.pid}.mjs`);
  try {
    await build({
      entryPoints: ["src/cli/manual.ts"],
      outfile: bundle,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      plugins: [workspacePackages],
      logLevel: "warning",
      define: { __TAPEDECK_VERSION__: JSON.stringify(version) },
    });
    const { manualPage } = await import(pathToFileURL(bundle).href);
    const temp = `dist/tapedeck.1.${process.pid}.tmp`;
    writeFileSync(temp, await manualPage(version));
    renameSync(temp, "dist/tapedeck.1");
  } finally {
    rmSync(bundle, { force: true });
  }
}
