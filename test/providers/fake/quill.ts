// A provider as a contributor would add one: its folder's parts (an identity, an adapter over its hook
// payloads, its usage facts) and one ProviderEntry. "Quill" is no real client; its payloads are the smallest
// shape that carries a session, a turn, a tool call and a response's usage. Its counts are OpenAI's kind:
// input includes the cache reads, so a reader that added them again would count them twice. Its log adds
// each response's reasoning count, which its hook leaves out: a record completing the hook's, not another
// response.
import type { HookContext, NormalizedEvent, NormalizeResult } from "../../../src/core/archive/event.ts";
import type { UsageFacts } from "../../../src/core/read/usage-facts.ts";
import type { ProviderEntry } from "../../../src/providers/entry.ts";
import type { ProviderIdentity } from "../../../src/providers/identity.ts";
import type { ProviderAdapter } from "../../../src/providers/types.ts";

export const quillIdentity: ProviderIdentity = {
  name: "quill",
  displayName: "Quill CLI",
  telemetry: { vendor: "quill.ai", agent: "quill-cli" },
  scenario: { inspectSolver: "quill_cli", budgetLimit: false },
};

export const quillUsageFacts: UsageFacts = {
  records_usage: true,
  input_includes_cache_read: true,
  output_excludes_reasoning: false,
  response_needs_message_id: true,
  sources: {
    "quill-hook": "the response's usage in Quill's Stop hook",
    "quill-log": "its log's reasoning count of each response, which no hook carries",
  },
  completes: { "quill-log": "quill-hook" },
  gaps: [],
};

type Payload = Record<string, unknown>;

const KINDS: Record<string, NormalizedEvent["kind"]> = {
  start: "session_start",
  prompt: "user_prompt",
  tool: "tool_call",
  result: "tool_result",
  answer: "assistant_message",
  end: "session_end",
};

/** The payload's event, if it is one of Quill's kinds, and its usage record, if it carries one. */
function event(p: Payload): NormalizedEvent[] {
  const kind = KINDS[String(p.event)];
  const id = `quill-${String(p.seq)}`;
  const turn_id = typeof p.turn === "string" ? p.turn : undefined;
  const events: NormalizedEvent[] = kind
    ? [
        {
          kind,
          event_id: id,
          timestamp: String(p.at),
          turn_id,
          payload: { ...p },
          terminal: kind === "session_end",
        },
      ]
    : [];
  if (p.usage) {
    events.push({
      kind: "turn_usage",
      event_id: `${id}-usage`,
      turn_id,
      payload: {},
      usage: p.usage as never,
    });
  }
  return events;
}

export const quillAdapter: ProviderAdapter = {
  name: quillIdentity.name,
  displayName: quillIdentity.displayName,
  projectDirEnv: "QUILL_PROJECT_DIR",
  normalize(payload): NormalizeResult {
    const p = (payload && typeof payload === "object" ? payload : {}) as Payload;
    const sid = typeof p.session === "string" ? p.session : null;
    const context: HookContext = {
      identity: {
        provider: "quill",
        provider_session_id: sid,
        session_id: `quill:${sid ?? "unknown"}`,
        identity_source: "provider",
      },
      project_dir: typeof p.cwd === "string" ? p.cwd : null,
      agent_pid: null,
      transcript_path: null,
      capabilities: ["session_start", "user_prompt", "tool_call", "tool_result", "assistant_message"],
    };
    return { context, events: event(p) };
  },
};

/** Its turn in a promptfoo export's agent.cjs: `quill run --json`, resumed by the session its answer names. */
export const quillPromptfooTurn = `{
  bin: 'quill',
  args: (session, first) => (first ? ['run', '--json'] : ['run', '--json', '--resume', session]),
  newSession: () => undefined,
  parse(stdout, session) {
    const r = JSON.parse(stdout);
    return { session: r.session || session, output: r.answer || '', prompt: r.input || 0, completion: r.output || 0, cost: 0 };
  },
}`;

export const quillProvider: ProviderEntry = {
  identity: quillIdentity,
  adapter: quillAdapter,
  usage: quillUsageFacts,
  promptfooTurn: quillPromptfooTurn,
  sessionEnv: [/^QUILL_(SESSION_ID|PROJECT_DIR)$/],
};
