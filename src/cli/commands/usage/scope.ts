// What a usage report covers, said in its title and its --json: a report scoped to the current project without
// saying so read as a user's whole usage (135,227 input tokens against ccusage's 223,070 for the same user).
import { printable } from "../../../core/base/printable.ts";

export type UsageScope =
  | { kind: "project"; projects: string[] }
  | { kind: "all_projects"; projects: string[] }
  | { kind: "machines"; dir: string; machines: number };

export function projectScope(projects: string[], all: boolean): UsageScope {
  return all ? { kind: "all_projects", projects } : { kind: "project", projects };
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
