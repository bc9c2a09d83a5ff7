// Every import of every file in src/ against the rooms table (rooms.ts): no arrow up or sideways to a room not
// listed, no command importing another command, no import cycle between files (type-only imports count: a
// reader follows them all the same). test/core/imports.test.ts holds the core to Node's built-ins besides.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOMS, type Room } from "./rooms.ts";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const DOC = fileURLToPath(new URL("../../docs/architecture.md", import.meta.url));

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The relative module specifiers of a file: static, type-only, re-exports, dynamic imports and requires. */
function relativeSpecifiers(src: string): string[] {
  const found = src.matchAll(
    /^\s*(?:import|export)\s+(?:type\s)?[^;]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']|\brequire\(\s*["']([^"']+)["']/gm,
  );
  return [...found].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4]) as string).filter((s) => s.startsWith("."));
}

/** Every file of src/ (relative to it) with the files it imports; an import of no file is kept as written. */
function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(SRC)) {
    const targets = relativeSpecifiers(readFileSync(file, "utf8")).map((spec) => {
      const target = resolve(file, "..", spec);
      return existsSync(target) ? relative(SRC, target) : `${relative(SRC, file)} -> ${spec} (no such file)`;
    });
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** The room of a file: the one with the longest path that holds it. */
function roomOf(file: string, rooms: Room[]): { room: Room; member: string } | undefined {
  let best: { room: Room; path: string } | undefined;
  for (const room of rooms) {
    for (const path of room.paths) {
      const holds = path.endsWith("/") ? file.startsWith(path) : file === path;
      if (holds && (!best || path.length > best.path.length)) best = { room, path };
    }
  }
  if (!best) return undefined;
  return { room: best.room, member: file.slice(best.path.length).split("/")[0] ?? "" };
}

function arrowViolations(graph: Graph, rooms: Room[] = ROOMS): string[] {
  const bad: string[] = [];
  for (const [file, targets] of graph) {
    const from = roomOf(file, rooms);
    if (!from) {
      bad.push(`${file} is in no room`);
      continue;
    }
    for (const target of targets) {
      const to = roomOf(target, rooms);
      if (!graph.has(target) || !to) bad.push(`${file} imports ${target}, in no room`);
      else if (to.room === from.room) {
        if (from.room.isolated && to.member !== from.member) {
          bad.push(`${file} imports ${target}: one of ${from.room.name} imports another`);
        }
      } else if (!from.room.may.includes(to.room.name)) {
        bad.push(`${file} imports ${target}: ${from.room.name} may not import ${to.room.name}`);
      }
    }
  }
  return bad;
}

/** Each cycle of imports between files, as the files around it (Tarjan's strongly connected components). */
function importCycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Arrows to a room not listed before: the table lists rooms bottom up, so none means its arrows make no cycle. */
function arrowsNotDown(rooms: Room[]): string[] {
  return rooms.flatMap((room, i) => {
    const below = rooms.slice(0, i).map((r) => r.name);
    return room.may.filter((m) => !below.includes(m)).map((m) => `${room.name} -> ${m}`);
  });
}

/** The allowed-arrows table of docs/architecture.md: each row's room and the rooms it may import. */
function documentedArrows(doc: string): Record<string, string[]> {
  const section = doc.split(/^## The arrows$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows = section.split("\n").filter((l) => /^\| `/.test(l));
  // A room above the core writes `core` for all its floors.
  const floors = ROOMS.filter((r) => r.name.startsWith("core/")).map((r) => r.name);
  const names = (cell: string) =>
    [...cell.matchAll(/`([^`]+)`/g)].flatMap((m) => (m[1] === "core" ? floors : [m[1]!]));
  return Object.fromEntries(
    rows.map((row) => row.split("|").slice(1, -1)).map((c) => [names(c[0]!)[0]!, names(c[2]!)]),
  );
}

describe("src/ imports", () => {
  const graph = importGraph();

  it("go only down the rooms table: every file in a room, no room importing one it may not, no command another", () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(arrowViolations(graph)).toEqual([]);
  });

  it("make no cycle between files", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("the table lists rooms bottom up, each arrow to a room before it, and every room holds a file", () => {
    expect(arrowsNotDown(ROOMS)).toEqual([]);
    const names = ROOMS.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const room of ROOMS) {
      for (const path of room.paths) {
        const held = [...graph.keys()].some((f) => (path.endsWith("/") ? f.startsWith(path) : f === path));
        expect(held, `${room.name}: ${path}`).toBe(true);
      }
    }
  });

  it("docs/architecture.md shows the same arrows", () => {
    const documented = documentedArrows(readFileSync(DOC, "utf8"));
    expect(documented).toEqual(Object.fromEntries(ROOMS.map((r) => [r.name, r.may])));
  });

  it("catches an arrow up, a room off the table, a command importing a command, a cycle", () => {
    const g: Graph = new Map([
      ["memory/index/search.ts", ["memory/store/items.ts"]],
      ["memory/store/items.ts", ["core/base/json.ts"]],
      ["core/base/json.ts", []],
      ["viewer/api.ts", ["serve/runfile.ts"]],
      ["serve/runfile.ts", []],
      ["cli/commands/search.ts", ["cli/commands/index/index.ts", "cli/common.ts"]],
      ["cli/commands/index/index.ts", ["cli/commands/index/progress.ts"]],
      ["cli/commands/index/progress.ts", []],
      ["cli/common.ts", []],
      ["attic/old.ts", ["core/base/json.ts"]],
      ["core/base/a.ts", ["core/base/b.ts"]],
      ["core/base/b.ts", ["core/base/c.ts"]],
      ["core/base/c.ts", ["core/base/a.ts"]],
      ["core/archive/store.ts", ["core/hook/recorder.ts"]],
      ["core/hook/recorder.ts", []],
    ]);
    expect(arrowViolations(g)).toEqual([
      "memory/index/search.ts imports memory/store/items.ts: memory/index may not import memory/store",
      "viewer/api.ts imports serve/runfile.ts: viewer may not import serve",
      "cli/commands/search.ts imports cli/commands/index/index.ts: one of cli/commands imports another",
      "attic/old.ts is in no room",
      "core/archive/store.ts imports core/hook/recorder.ts: core/archive may not import core/hook",
    ]);
    expect(importCycles(g)).toEqual([["core/base/a.ts", "core/base/b.ts", "core/base/c.ts"]]);
    expect(arrowsNotDown([...ROOMS, { name: "top", paths: [], may: ["cli/program"] }])).toEqual([]);
    const loop = ROOMS.map((r) => (r.name === "core/base" ? { ...r, may: ["cli"] } : r));
    expect(arrowsNotDown(loop)).toEqual(["core/base -> cli"]);
    expect(arrowsNotDown([{ name: "a", paths: [], may: ["nowhere"] }])).toEqual(["a -> nowhere"]);
  });
});
