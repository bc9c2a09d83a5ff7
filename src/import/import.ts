// `tapedeck import` as one call, its phases in order: plan (plan.ts), the decision a writing into other
// projects needs (asked by the caller, from the data here), run (run.ts: each session, registered for the
// registry), and the search index brought up to date where the project has one. The command (cli/commands/
// import.ts) parses, asks, shows progress and formats; it orchestrates nothing.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { foundNothing, type ImportPlan, type PlanOptions, planImport } from "./plan.ts";
import { type ImportProgress, type ImportResult, runImport } from "./run.ts";

/** Writing into projects other than the current one: what the user is asked, before anything is written. */
export interface OtherProjects {
  /** sessions that would go elsewhere */
  sessions: number;
  /** those projects, sorted */
  projects: string[];
}

export interface ImportRequest extends PlanOptions {
  /** the project the command runs in (the one that needs no confirmation) */
  here: string;
  dryRun?: boolean;
}

export interface ImportHooks {
  /** Asked when the plan writes into other projects; false: nothing is imported. */
  confirm(others: OtherProjects): Promise<boolean>;
  onProgress?: (p: ImportProgress) => void;
  /** The index of `project` could not be updated (search says it is stale until `tapedeck index`). */
  onIndexError?: (project: string, error: Error) => void;
}

export type ImportOutcome =
  /** the project is tapedeck's own folder: nothing planned (the plan's skipped say where each session is) */
  | { status: "refused"; plan: ImportPlan; reason: string }
  /** no session of the agent was found for the project */
  | { status: "nothing"; plan: ImportPlan }
  | { status: "planned"; plan: ImportPlan }
  /** confirmation refused: nothing written */
  | { status: "declined"; plan: ImportPlan; others: OtherProjects }
  | { status: "imported"; plan: ImportPlan; result: ImportResult };

export function otherProjects(plan: ImportPlan, here: string): OtherProjects {
  const elsewhere = plan.sessions.filter((s) => s.project !== here);
  return { sessions: elsewhere.length, projects: [...new Set(elsewhere.map((s) => s.project))].sort() };
}

export async function importHistory(request: ImportRequest, hooks: ImportHooks): Promise<ImportOutcome> {
  const plan = planImport(request);
  if (plan.refused !== undefined) return { status: "refused", plan, reason: plan.refused };
  if (foundNothing(plan)) return { status: "nothing", plan };
  if (request.dryRun) return { status: "planned", plan };
  const others = otherProjects(plan, request.here);
  if (others.projects.length > 0 && !(await hooks.confirm(others)))
    return { status: "declined", plan, others };
  const result = runImport(plan, {
    env: request.env,
    ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
  });
  await updateIndexes(result.projects, hooks.onIndexError);
  return { status: "imported", plan, result };
}

/** The search index sees the new sessions at once where there is one (a project that never searched has none). */
async function updateIndexes(
  projects: string[],
  onError: ((project: string, error: Error) => void) | undefined,
): Promise<void> {
  const indexed = projects.filter((p) => existsSync(join(p, ".tapedeck", "index.sqlite")));
  if (indexed.length === 0) return;
  // Loaded only when an index exists: better-sqlite3 is native and heavy.
  const { updateIndex } = await import("../memory/index/index.ts");
  for (const project of indexed) {
    try {
      updateIndex(project);
    } catch (error) {
      onError?.(project, error as Error);
    }
  }
}
