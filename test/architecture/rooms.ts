// The rooms of src/ and the arrows between them: which rooms each room may import. Arrows only go down (the
// table has no cycle, and imports.test.ts holds every import of src/ to it); docs/architecture.md shows the
// same table, and the test holds the two equal.
//
// A file is in the room of the longest path that holds it. A room's `may` lists the rooms its files may import
// directly; a room always imports itself, except that the members of an `isolated` room (each file or folder
// directly under it: one command each) import none of their siblings.

export interface Room {
  name: string;
  /** Folders (ending in "/") and single files under src/, relative to it. */
  paths: string[];
  may: string[];
  isolated?: boolean;
}

export const ROOMS: Room[] = [
  { name: "core", paths: ["core/"], may: [] },
  { name: "providers", paths: ["providers/"], may: ["core"] },
  { name: "usage", paths: ["usage/"], may: ["core", "providers"] },
  { name: "memory/index", paths: ["memory/index/"], may: ["core"] },
  { name: "memory/store", paths: ["memory/store/"], may: ["core", "memory/index"] },
  { name: "proxy", paths: ["proxy/"], may: ["core", "providers"] },
  { name: "experiment", paths: ["experiment/"], may: ["core", "providers"] },
  { name: "import", paths: ["import/"], may: ["core", "providers"] },
  { name: "scenario", paths: ["scenario/"], may: ["core", "providers", "experiment"] },
  { name: "otel", paths: ["otel/"], may: ["core", "providers", "scenario"] },
  { name: "mcp", paths: ["mcp/"], may: ["core", "providers", "memory/index", "memory/store"] },
  { name: "demo", paths: ["demo/"], may: ["core", "providers"] },
  { name: "serve", paths: ["serve/"], may: ["core", "providers", "memory/index", "otel"] },
  {
    name: "viewer",
    paths: ["viewer/"],
    may: ["core", "providers", "usage", "memory/index", "experiment", "scenario"],
  },
  {
    name: "cli",
    paths: ["cli/"],
    may: [
      "core",
      "providers",
      "usage",
      "memory/index",
      "memory/store",
      "proxy",
      "experiment",
      "scenario",
      "otel",
      "serve",
      "viewer",
    ],
  },
  {
    name: "cli/commands",
    paths: ["cli/commands/"],
    isolated: true,
    may: [
      "cli",
      "core",
      "providers",
      "usage",
      "memory/index",
      "memory/store",
      "proxy",
      "experiment",
      "import",
      "scenario",
      "otel",
      "mcp",
      "demo",
      "serve",
      "viewer",
    ],
  },
  {
    name: "cli/program",
    paths: ["cli/main.ts", "cli/program.ts", "cli/catalog.ts", "cli/manual.ts"],
    may: ["core", "cli", "cli/commands"],
  },
  {
    name: "entries",
    paths: ["hook-entry.ts", "serve-entry.ts"],
    may: ["core", "providers", "memory/store", "serve"],
  },
];
