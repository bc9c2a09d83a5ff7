// The user's tapedeck home (registry, run files, trust): where it is, and nothing else to load.
import { homedir } from "node:os";
import { join } from "node:path";

export function tapedeckHome(env: Record<string, string | undefined> = process.env): string {
  return (
    env.TAPEDECK_HOME ??
    process.env.TAPEDECK_HOME ??
    join(env.HOME ?? process.env.HOME ?? homedir(), ".tapedeck")
  );
}
