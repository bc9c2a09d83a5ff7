// A Claude Code transcript of our own making, in the shape Claude writes: per turn a user record, then the
// answer with its usage (one content block). For the import, the hooks and ccusage alike.
export interface Turn {
  at: string;
  model: string;
  input: number;
  output: number;
  read?: number;
  write?: number;
  /** the prompt's text */
  prompt?: string;
  version?: string;
}

const line = (r: Record<string, unknown>) => `${JSON.stringify(r)}\n`;

/** A Claude Code transcript of the given turns: a user record, then the answer with its usage, per turn. */
export function transcript(cwd: string, sid: string, turns: readonly Turn[]): string {
  let parent: string | null = null;
  let out = "";
  turns.forEach((t, i) => {
    const version = t.version ?? "2.1.300";
    const origin = { cwd, sessionId: sid, version, userType: "external", entrypoint: "cli" };
    const u = `${sid.slice(0, 8)}-u${i}`;
    out += line({
      parentUuid: parent,
      isSidechain: false,
      promptId: `${sid}-p${i}`,
      type: "user",
      message: { role: "user", content: t.prompt ?? `turn ${i}` },
      uuid: u,
      timestamp: t.at,
      ...origin,
    });
    const a = `${sid.slice(0, 8)}-a${i}`;
    out += line({
      parentUuid: u,
      isSidechain: false,
      message: {
        id: `msg_${sid.slice(0, 8)}_${i}`,
        type: "message",
        role: "assistant",
        model: t.model,
        content: [{ type: "text", text: `done ${i}` }],
        stop_reason: "end_turn",
        usage: {
          input_tokens: t.input,
          output_tokens: t.output,
          cache_read_input_tokens: t.read ?? 0,
          cache_creation_input_tokens: t.write ?? 0,
        },
      },
      requestId: `req_${sid.slice(0, 8)}_${i}`,
      type: "assistant",
      uuid: a,
      timestamp: new Date(Date.parse(t.at) + 2000).toISOString(),
      ...origin,
    });
    parent = a;
  });
  return out;
}
