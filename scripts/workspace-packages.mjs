// The workspace's own packages (packages/*, such as @tapedeck/redact) are source of every bundle, inlined like
// tapedeck's own modules: `packages: "external"` would leave them to node_modules, where an installed tapedeck
// has none (they are not published), and Node cannot run their TypeScript. Each subpath is its package.json's
// export. Used by the build, the manual page's bundle and the tests' bundled child scripts.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGES = resolve(dirname(fileURLToPath(import.meta.url)), "..", "packages");

export const workspacePackages = {
  name: "workspace-packages",
  setup(b) {
    b.onResolve({ filter: /^@tapedeck\// }, (args) => {
      const [scope, name, ...sub] = args.path.split("/");
      const dir = join(PACKAGES, name);
      const { exports } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const target = exports[sub.length > 0 ? `./${sub.join("/")}` : "."];
      if (!target) throw new Error(`${args.importer}: ${scope}/${name} exports no ${args.path}`);
      return { path: resolve(dir, target) };
    });
  },
};
