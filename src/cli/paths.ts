import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A file of the built package. The CLI runs from dist/ when installed, and
 * from src/cli/ under the test runner; both resolve to the same dist/ file.
 */
export function builtFile(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, name);
  if (existsSync(sibling)) return sibling;
  return resolve(here, "..", "..", "dist", name);
}
