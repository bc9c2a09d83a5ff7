// Where a file of the built package is, for the code that starts one (the hook, the MCP server, the CLI in a
// replay): from dist/ when installed, from src/ under the test runner.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A file of the built package. The CLI runs from dist/ when installed (dist/cli.js, or a command's chunk in
 * dist/cli-chunks/), and from src/core/base/ under the test runner; all resolve to the same dist/ file.
 */
export function builtFile(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [here, join(here, "..")]) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return resolve(here, "..", "..", "..", "dist", name);
}
