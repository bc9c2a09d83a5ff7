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

/** The core's floors, bottom up; a room above the core may import any of them. */
const CORE = ["core/base", "core/archive", "core/ports", "core/hook", "core/read"];

export const ROOMS: Room[] = [
  { name: "core/base", paths: ["core/base/"], may: [] },
  { name: "core/archive", paths: ["core/archive/"], may: ["core/base"] },
  { name: "core/ports", paths: ["core/ports/"], may: ["core/base", "core/archive"] },
  { name: "core/hook", paths: ["core/hook/"], may: ["core/base", "core/archive", "core/ports"] },
  { name: "core/read", paths: ["core/read/"], may: ["core/base", "core/archive", "core/ports"] },
  { name: "providers", paths: ["providers/"], may: CORE },
  { name: "usage", paths: ["usage/"], may: [...CORE, "providers"] },
  { name: "memory/index", paths: ["memory/index/"], may: CORE },
  { name: "memory/store", paths: ["memory/store/"], may: [...CORE, "memory/index"] },
  { name: "proxy", paths: ["proxy/"], may: [...CORE, "providers"] },
  { name: "experiment", paths: ["experiment/"], may: [...CORE, "providers"] },
  { name: "import", paths: ["import/"], may: [...CORE, "providers", "memory/index"] },
  { name: "scenario", paths: ["scenario/"], may: [...CORE, "providers", "experiment"] },
  { name: "otel", paths: ["otel/"], may: [...CORE, "providers", "scenario"] },
  { name: "mcp", paths: ["mcp/"], may: [...CORE, "providers", "memory/index", "memory/store"] },
  { name: "demo", paths: ["demo/"], may: [...CORE, "providers"] },
  { name: "serve", paths: ["serve/"], may: [...CORE, "providers", "memory/index", "otel"] },
  {
    name: "viewer",
    paths: ["viewer/"],
    may: [...CORE, "providers", "usage", "memory/index", "experiment", "scenario"],
  },
  {
    name: "cli",
    paths: ["cli/"],
    may: [
      ...CORE,
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
      ...CORE,
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
    may: [...CORE, "cli", "cli/commands"],
  },
  {
    name: "entries",
    paths: ["hook-entry.ts", "serve-entry.ts"],
    may: [...CORE, "providers", "memory/store", "serve"],
  },
];
