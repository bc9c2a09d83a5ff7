// The one word every command shows for a session's state: its manifest's status (active, complete,
// incomplete), except that a session with a failed turn (Claude's StopFailure: the API call failed) is
// `failed`, which outranks `complete`: the session ended, badly. list said `failed` where prune and delete said
// `complete` for the same session; they all ask here now.

/** `failed` for a session whose manifest records a failed turn, else its status. */
export function statusWord(m: { status?: unknown; failure?: unknown }): string {
  if (typeof m.failure === "string" && m.failure !== "") return "failed";
  return typeof m.status === "string" ? m.status : "unknown";
}
