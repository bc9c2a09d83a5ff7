// Bundles the entry points. The hook entry is bundled alone so that a hook
// process loads one small file and none of the CLI's dependencies.
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { build } from "esbuild";
import { lazyCrypto, writeHook } from "./hook-loader.mjs";

const { version } = JSON.parse(readFileSync("package.json", "utf8"));

const CHUNKS = "dist/cli-chunks";
/** A chunk of an earlier build stays this long: a CLI started from it, or a build running beside this one, may need it. */
const STALE_CHUNK_MS = 10 * 60 * 1000;

/**
 * Chunk names carry a hash, so earlier builds' chunks pile up beside the new ones: those this build did not
 * write go once they are old. Not at once, and not by emptying the directory first: that left dist/cli.js
 * pointing at missing chunks while a second build ran (seen with two builds of one checkout).
 */
function pruneChunks(written) {
  for (const name of readdirSync(CHUNKS)) {
    const path = resolve(join(CHUNKS, name));
    if (written.has(path)) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_CHUNK_MS) rmSync(path, { force: true });
    } catch {
      // removed by another build meanwhile
    }
  }
}

/**
 * Writes the CLI's files, each through a temporary file and a rename, the entry last: a CLI started meanwhile
 * (a test, another engineer's build of the same checkout) reads a whole old file or a whole new one, and a new
 * entry only once its chunks are there. The shebang goes on the entry only (the banner is in every chunk).
 */
function writeCli(outputFiles) {
  const entry = resolve("dist/cli.js");
  const ordered = [
    ...outputFiles.filter((f) => f.path !== entry),
    ...outputFiles.filter((f) => f.path === entry),
  ];
  for (const file of ordered) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.path === entry ? `#!/usr/bin/env node\n${file.text}` : file.contents);
    if (file.path === entry) chmodSync(temp, 0o755);
    renameSync(temp, file.path);
  }
  return new Set(ordered.map((f) => f.path));
}

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  // Native (a .node binary found through its package): never bundled, loaded from node_modules when used.
  external: ["better-sqlite3"],
  sourcemap: false,
  logLevel: "warning",
  // The one version constant (src/cli/version.ts), from package.json.
  define: { __TAPEDECK_VERSION__: JSON.stringify(version) },
};

// The CLI: a small entry (dist/cli.js) and one chunk per command in dist/cli-chunks/, loaded only when that
// command runs (src/cli/catalog.ts). Commander is bundled into the entry: loaded from node_modules it cost
// `tapedeck --version` 0.25x `node -e 0` in module resolution and CommonJS loading alone, bundled 0.03x
// (bench/cli.bench.ts). Its `require`s of Node's modules need a real `require` in an ES module: the banner
// defines one in every file of the build (esbuild puts its require helper in whichever chunk it likes).
const cli = await build({
  ...common,
  write: false,
  entryPoints: { cli: "src/cli/main.ts" },
  outdir: "dist",
  splitting: true,
  chunkNames: "cli-chunks/[name]-[hash]",
  packages: "external",
  alias: { commander: "./node_modules/commander/index.js" },
  banner: {
    js: 'import { createRequire as __tapedeckRequire } from "node:module";\nconst require = __tapedeckRequire(import.meta.url);',
  },
});
// The hook: dist/hook.cjs is a loader that runs the bundle with a V8 code cache (scripts/hook-loader.mjs).
const hook = await build({
  ...common,
  entryPoints: ["src/hook-entry.ts"],
  outfile: "dist/hook.cjs",
  format: "cjs",
  minify: true,
  write: false,
  plugins: [lazyCrypto],
});
writeHook("dist", hook.outputFiles[0].text);
// Loaded by the hook only under the http transport.
await build({
  ...common,
  entryPoints: ["src/serve/launch.ts"],
  outfile: "dist/launch.js",
  minify: true,
});
await build({
  ...common,
  entryPoints: ["src/serve-entry.ts"],
  outfile: "dist/serve.js",
  minify: true,
});
// Retrieval (a prompt's best memory, SQLite): required by dist/hook.cjs and dist/serve.js only on a prompt hook
// with retrieval on, so that no other hook loads it. better-sqlite3 (native) is loaded from node_modules.
await build({
  ...common,
  entryPoints: ["src/memory/retrieval.ts"],
  outfile: "dist/retrieval.cjs",
  format: "cjs",
  packages: "external",
});
// The MCP server, loaded by `tapedeck mcp` only: the SDK stays out of every other command's start-up.
// Its memory tools load better-sqlite3 with `require`, which an ES module has only through this banner.
await build({
  ...common,
  entryPoints: ["src/mcp/server.ts"],
  outfile: "dist/mcp.js",
  packages: "external",
  banner: {
    js: 'import { createRequire as __tapedeckRequire } from "node:module";\nconst require = __tapedeckRequire(import.meta.url);',
  },
});
// The viewer's page (tapedeck view, export --format html): one browser script and its style, nothing
// fetched from a CDN or the network.
await build({
  entryPoints: ["src/viewer/page/main.ts"],
  outfile: "dist/viewer/page.js",
  bundle: true,
  platform: "browser",
  format: "iife",
  target: "es2022",
  minify: true,
  logLevel: "warning",
});
mkdirSync("dist/viewer", { recursive: true });
copyFileSync("src/viewer/page/page.css", "dist/viewer/page.css");
pruneChunks(writeCli(cli.outputFiles));
// The http transport's hook client: a bash script, shipped as it is.
copyFileSync("src/serve/hook-client.sh", "dist/hook-client.sh");
chmodSync("dist/hook-client.sh", 0o755);
// The manual page, from the commands' own help (scripts/man.mjs), shipped as package.json's "man".
await (await import("./man.mjs")).writeManPage(version);
