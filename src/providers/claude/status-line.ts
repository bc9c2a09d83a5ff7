// What Claude Code's status line adds to tapedeck's (registry.ts STATUS_LINES): a transcript lost at a resume
// is said while the session runs (transcript-alert.ts). Claude runs status-line commands with the session's
// id in the environment as well as in the payload.
import type { StatusLinePart } from "../types.ts";
import { alertText, transcriptAlertFor } from "./transcript-alert.ts";

export const claudeStatusLine: StatusLinePart = {
  sessionIdEnv: "CLAUDE_CODE_SESSION_ID",
  alert(project, sessionId) {
    const alert = transcriptAlertFor(project, sessionId);
    return alert ? alertText(alert) : "";
  },
};
