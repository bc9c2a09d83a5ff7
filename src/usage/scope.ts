// What a usage report covers, said in its title, its --json and the viewer's usage page: a report scoped to the
// current project without saying so read as a user's whole usage (135,227 input tokens against ccusage's 223,070).
import { printable } from "../core/base/printable.ts";

export type UsageScope =
  | { kind: "project"; projects: string[] }
  | { kind: "all_projects"; projects: string[] }
  | { kind: "machines"; dir: string; machines: number };

/** `all`: every registered project (--all-projects; the viewer over more than one). */
export function projectScope(projects: readonly string[], all: boolean): UsageScope {
  return all
    ? { kind: "all_projects", projects: [...projects] }
    : { kind: "project", projects: [...projects] };
}

/** The scope in a title's words: "in project /a/b", "in all 3 registered projects", "on 2 machines published in DIR". */
export function scopeText(scope: UsageScope): string {
  if (scope.kind === "machines") {
    const n = scope.machines === 1 ? "1 machine" : `${scope.machines} machines`;
    return `on ${n} published in ${printable(scope.dir)}`;
  }
  if (scope.kind === "project") return `in project ${printable(scope.projects[0] ?? "")}`;
  const n = scope.projects.length;
  return n === 1 ? "in the 1 registered project" : `in all ${n} registered projects`;
}
