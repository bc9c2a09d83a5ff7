// Writes dist/tapedeck.1 from the program's own help (src/cli/manual.ts): bundled once and run in this
// process, rather than one `tapedeck X --help` process per command (40 of them, seconds of build time); and
// from the same program the shell completion scripts, dist/completion/tapedeck.{bash,zsh,fish}.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { workspacePackages } from "./workspace-packages.mjs";

/** Through a temporary file and a rename: a CLI running meanwhile reads a whole old file or a whole new one. */
function writeAtomically(path, text) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

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
    const { manualPage, completionFiles } = await import(pathToFileURL(bundle).href);
    writeAtomically("dist/tapedeck.1", await manualPage(version));
    // The completion scripts: made here once, so that `tapedeck completion bash` only prints a file.
    mkdirSync("dist/completion", { recursive: true });
    for (const [shell, script] of Object.entries(await completionFiles())) {
      writeAtomically(`dist/completion/tapedeck.${shell}`, script);
    }
  } finally {
    rmSync(bundle, { force: true });
  }
}
