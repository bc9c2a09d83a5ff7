// Bundles the two entry points. The hook entry is bundled alone so that a hook
// process loads one small file and none of the CLI's dependencies.
import { chmodSync, copyFileSync } from "node:fs";
import { build } from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: false,
  logLevel: "warning",
};

await build({
  ...common,
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/cli.js",
  packages: "external",
  banner: { js: "#!/usr/bin/env node" },
});
await build({
  ...common,
  entryPoints: ["src/hook-entry.ts"],
  outfile: "dist/hook.cjs",
  format: "cjs",
  minify: true,
});
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
// The MCP server, loaded by `tapedeck mcp` only: the SDK stays out of every other command's start-up.
await build({
  ...common,
  entryPoints: ["src/mcp/server.ts"],
  outfile: "dist/mcp.js",
  packages: "external",
});
chmodSync("dist/cli.js", 0o755);
// The http transport's hook client: a bash script, shipped as it is.
copyFileSync("src/serve/hook-client.sh", "dist/hook-client.sh");
chmodSync("dist/hook-client.sh", 0o755);
