// What a provider adds to `inspect` and `doctor --transcripts`: whether the agent's own transcript of a
// recorded session is still whole, and the command that restores a lost one. Claude Code's is the one there
// is (claude/transcript-check.ts): some of its versions rewrite a transcript in place to a stub or write none.
// Loaded only when asked for, so that no other command and no hook carries its code.
import type { SessionRef } from "../core/read/sessions.ts";

export interface TranscriptReport {
  /** inspect's line, already made printable */
  line: string;
  /** inspect's --json fields */
  json: Record<string, unknown>;
}

export interface TranscriptDoctorResult {
  checked: number;
  /** the sessions whose transcript is lost or damaged, as --json prints them */
  lost: unknown[];
  /** the human report, already made printable */
  text: string;
}

export interface TranscriptCheck {
  /** One session's transcript state for `inspect`; undefined when there is nothing to say (never throws). */
  inspect(ref: SessionRef, project: string): TranscriptReport | undefined;
  /** Every recorded session of these projects whose transcript is lost or damaged. */
  doctor(
    projects: readonly string[],
    opts: { agentHome?: string; mirrorDir?: string },
  ): TranscriptDoctorResult;
}
