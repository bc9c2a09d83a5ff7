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
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { lazyCrypto, writeHook } from "./hook-loader.mjs";
import { workspacePackages } from "./workspace-packages.mjs";

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
    writeFileSync(temp, file.path === entry ? `#!/usr/bin/env node\n${file.text}` : file.text);
    if (file.path === entry) chmodSync(temp, 0o755);
    renameSync(temp, file.path);
  }
  return new Set(ordered.map((f) => f.path));
}

/** The files `from` loads before it runs (static imports, followed), as absolute paths. */
function staticClosure(metafile, from, seen = new Set()) {
  const path = resolve(from);
  if (seen.has(path)) return seen;
  seen.add(path);
  for (const i of metafile.outputs[from]?.imports ?? []) {
    if (i.kind === "import-statement" && !i.external) staticClosure(metafile, i.path, seen);
  }
  return seen;
}

// Defines a real `require` in every file of the CLI (see the build of the CLI below).
const REQUIRE_BANNER =
  'import { createRequire as __tapedeckRequire } from "node:module";\nconst require = __tapedeckRequire(import.meta.url);';
/** The line esbuild heads each bundled module with (test/cli/catalog.test.ts reads them to see what loads what). */
const SOURCE_LINE = /^\/\/ ((?:src|node_modules)\/\S+)$/gm;

/**
 * A module that is only types or re-exports becomes a chunk with nothing but the banner, which its importers still
 * load for its (absent) side effects: two such files for `tapedeck --version`. Their imports go.
 */
function dropEmptyChunks(texts) {
  const empty = [...texts.keys()].filter((p) => texts.get(p).replace(REQUIRE_BANNER, "").trim() === "");
  for (const [path, text] of texts) {
    let kept = text;
    for (const e of empty) {
      const spec = relative(dirname(path), e).replace(/^(?!\.)/, "./");
      kept = kept.replaceAll(`import "${spec}";\n`, "");
    }
    texts.set(path, kept);
  }
}

/**
 * Splitting leaves every command importing its code from a dozen small shared chunks (`list` loaded 13 files),
 * and the ES module loader pays per file: joined into one file, `status` started in 1.34x `node -e 0` instead of
 * 1.46x and `list` in 1.40x instead of 1.56x (bench/cli.bench.ts). So each command's chunk is bundled again,
 * with everything it loads inlined except the chunks the entry loads anyway (kept as imports: one copy of
 * commander and of the entry's modules per process). Its dynamic imports are inlined too, so that every
 * module still has one instance in a process. The joined file keeps its chunk's name, which the entry imports.
 * Answers the files to write: the entry, what it loads, and the joined commands.
 */
async function joinCommandChunks(result) {
  const { metafile, outputFiles } = result;
  const texts = new Map(outputFiles.map((f) => [f.path, f.text]));
  const shared = staticClosure(metafile, "dist/cli.js");
  const fromBuild = {
    name: "cli-chunks",
    setup(b) {
      b.onResolve({ filter: /^[./]/ }, (args) => {
        const path = resolve(args.resolveDir, args.path);
        // Its own directory: the joined file takes the place of the chunk, so the specifier stays right.
        if (args.kind !== "entry-point" && shared.has(path)) return { path: args.path, external: true };
        if (!texts.has(path)) throw new Error(`${args.importer}: ${args.path} is not in the build`);
        // Named from dist/ (esbuild heads each inlined chunk with its name).
        return { path: relative("dist", path), namespace: "cli-chunks" };
      });
      // The source lines kept as legal comments (esbuild drops others), made plain again below.
      b.onLoad({ filter: /.*/, namespace: "cli-chunks" }, (args) => {
        const path = resolve("dist", args.path);
        const text = texts.get(path).replace(REQUIRE_BANNER, "").replace(SOURCE_LINE, "//! $1");
        return { contents: text, resolveDir: dirname(path), loader: "js" };
      });
    },
  };
  const commands = Object.entries(metafile.outputs).filter(([, o]) =>
    o.entryPoint?.startsWith("src/cli/commands/"),
  );
  await Promise.all(
    commands.map(async ([out]) => {
      const path = resolve(out);
      // esbuild resolves packages from its working directory, which must exist: a fresh checkout has no dist/.
      mkdirSync(dirname(path), { recursive: true });
      const joined = await build({
        entryPoints: [path],
        absWorkingDir: dirname(path),
        bundle: true,
        platform: "node",
        target: "node20",
        format: "esm",
        write: false,
        outdir: dirname(path),
        logLevel: "warning",
        packages: "external",
        legalComments: "inline",
        banner: { js: REQUIRE_BANNER },
        plugins: [fromBuild],
      });
      texts.set(path, joined.outputFiles[0].text.replace(/^\/\/! ((?:src|node_modules)\/\S+)$/gm, "// $1"));
    }),
  );
  dropEmptyChunks(texts);
  const wanted = new Set(commands.map(([out]) => resolve(out)));
  // The entry's dynamic imports (not commands) load chunks of their own.
  for (const [out, o] of Object.entries(metafile.outputs)) {
    if (!o.entryPoint || o.entryPoint.startsWith("src/cli/commands/")) continue;
    for (const p of staticClosure(metafile, out)) wanted.add(p);
  }
  return outputFiles
    .filter((f) => wanted.has(f.path))
    .map((f) => ({ path: f.path, text: texts.get(f.path) }));
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
  plugins: [workspacePackages],
};

// The CLI: a small entry (dist/cli.js) and one file per command in dist/cli-chunks/, loaded only when that
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
  banner: { js: REQUIRE_BANNER },
  metafile: true,
});
const cliFiles = await joinCommandChunks(cli);
// The hook: dist/hook.cjs is a loader that runs the bundle with a V8 code cache (scripts/hook-loader.mjs).
const hook = await build({
  ...common,
  entryPoints: ["src/hook-entry.ts"],
  outfile: "dist/hook.cjs",
  format: "cjs",
  minify: true,
  write: false,
  plugins: [workspacePackages, lazyCrypto],
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
  entryPoints: ["src/memory/store/retrieval.ts"],
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
pruneChunks(writeCli(cliFiles));
// The http transport's hook client: a bash script, shipped as it is.
copyFileSync("src/serve/hook-client.sh", "dist/hook-client.sh");
chmodSync("dist/hook-client.sh", 0o755);
// The manual page, from the commands' own help (scripts/man.mjs), shipped as package.json's "man".
await (await import("./man.mjs")).writeManPage(version);
