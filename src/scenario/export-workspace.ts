// `scenario export --to promptfoo --with-workspace`: the export's ./workspace, where the agent works and
// the validators run: a clone of the project at the scenario's revision (the replays' work tree: a shared
// clone writes nothing into the user's .git, unlike a git worktree), or a copy of its files when there is
// no revision or no repository, plus the scenario's workspace.files a clone lacks.
import { existsSync } from "node:fs";
import { createWorkTree } from "../experiment/isolation.ts";
import type { Scenario } from "./schema.ts";
import { copyWorkspaceFiles } from "./workspace.ts";

export class WorkspaceExists extends Error {
  override name = "WorkspaceExists";
}

/** Makes `dest` (which must not exist); answers what a reader must know (a copy, files not copied). */
export function prepareWorkspace(project: string, s: Scenario, dest: string): string[] {
  if (existsSync(dest)) throw new WorkspaceExists(`${dest} exists: remove it, or leave out --with-workspace`);
  const revision = s.workspace?.revision ?? s.source_session.repository_revision ?? null;
  const tree = createWorkTree(project, revision, dest);
  const notes = tree.notes.map((n) =>
    n
      .replace("the replay runs on a copy", "the workspace is a copy")
      .replace("the replay runs", "the workspace is"),
  );
  return [...notes, ...copyWorkspaceFiles(project, dest, s.workspace?.files ?? [])];
}
