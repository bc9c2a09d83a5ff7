// The groups of `tapedeck --help`, a table of its own beside the catalog so that adding a command there
// stays a one-entry edit: a command not named here is listed under "Other" (before the internal ones)
// until it is.
export const HELP_GROUPS: ReadonlyArray<{ heading: string; commands: readonly string[] }> = [
  {
    heading: "Recording:",
    commands: ["install", "uninstall", "import", "record", "status", "run", "proxy", "demo"],
  },
  {
    heading: "Reading:",
    commands: [
      "list",
      "inspect",
      "show",
      "view",
      "usage",
      "last",
      "export",
      "otel",
      "search",
      "index",
      "redact",
    ],
  },
  { heading: "Memory:", commands: ["promote", "memory", "retrieval"] },
  { heading: "Experiments:", commands: ["replay", "experiment", "scenario"] },
  {
    heading: "Maintenance:",
    commands: ["delete", "prune", "du", "repair", "restore", "mirror", "doctor", "config", "completion"],
  },
  { heading: "Other:", commands: [] },
  { heading: "Internal (run by hooks and agents):", commands: ["hook", "serve", "mcp"] },
];

const OTHER = HELP_GROUPS.findIndex((g) => g.heading === "Other:");

/** The index of a command's group in HELP_GROUPS. */
export function groupIndex(name: string): number {
  const i = HELP_GROUPS.findIndex((g) => g.commands.includes(name));
  return i < 0 ? OTHER : i;
}
