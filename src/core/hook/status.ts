// The compact recording state shown in status lines and by the MCP status tool.
import { findProjectRoot, readConfig } from "../archive/config.ts";

export interface RecordingState {
  project: string | null;
  provider: string;
  /** tapedeck is installed for this provider in this project */
  installed: boolean;
  recording: boolean;
  mode: string | null;
  session_root: string | null;
  /** Memory handed to the agent with each prompt (memory/store/inject.ts); independent of recording. */
  retrieval: "on" | "off";
  /** The configured budget per prompt; null: the default (4096 bytes). */
  retrieval_budget_bytes: number | null;
  display: string;
}

export function recordingState(startDir: string | null, provider: string): RecordingState {
  const project = startDir ? (findProjectRoot(startDir) ?? null) : null;
  const config = project ? readConfig(project) : undefined;
  const p = config?.providers[provider];
  const recording = p?.recording === "on";
  const mode = p?.mode ?? null;
  const retrieval = p?.retrieval?.state === "on" ? "on" : "off";
  const display = recording ? `tapedeck ● REC ${mode ?? "capture-only"}` : "tapedeck ○ off";
  return {
    project,
    provider,
    installed: p !== undefined,
    recording,
    mode,
    session_root: p ? (p.session_root ?? `.tapedeck/${provider}-sessions`) : null,
    retrieval,
    retrieval_budget_bytes: typeof p?.retrieval?.budget_bytes === "number" ? p.retrieval.budget_bytes : null,
    // Retrieval changes what the agent is told: the status line says so whenever it is on.
    display: retrieval === "on" ? `${display} · memory` : display,
  };
}

/** The project a status-line payload is about: Claude sends workspace.project_dir, others a cwd. */
export function projectFromStatusPayload(payload: unknown): string | null {
  if (!payload || typeof payload !== "object") return null;
  const p = payload as { workspace?: { project_dir?: unknown; current_dir?: unknown }; cwd?: unknown };
  for (const candidate of [p.workspace?.project_dir, p.workspace?.current_dir, p.cwd]) {
    if (typeof candidate === "string" && candidate.length > 0 && candidate.length < 4096) return candidate;
  }
  return null;
}
