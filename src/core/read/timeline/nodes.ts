// The shapes of the one turn model (turns.ts builds them): what a reader (the viewer and show, the OTLP
// export, memory promotion) is told about each archive event, whatever it then makes of it.
import type { Usage } from "./usage.ts";

/** The envelope fields the model reads; a reader passes its own parsed line. */
export interface TurnEvent {
  sequence: number;
  kind: string;
  turn_id?: string;
  agent_id?: string;
  payload: Record<string, unknown>;
  usage?: Record<string, unknown>;
}

/** One tool invocation: its call event and the results and errors reported for it. */
export interface CallNode {
  tool_use_id: string | null;
  name: string;
  agent_id?: string;
  /** false when only a result was recorded: the call is made up from it */
  recorded: boolean;
  /** a result or an error has been reported */
  done: boolean;
  /** any report of it failed */
  failed: boolean;
  /** subagents it started, in order */
  agents: AgentNode[];
}

export interface AgentNode {
  agent_id: string;
  agent_type: string | null;
  /** the call that started it; null when no call of the turn could have */
  parent: CallNode | null;
  stopped: boolean;
  /** its own usage (a subagent it started has its own) */
  usage: Usage;
}

export interface TurnNode {
  /** 1-based over the events the model was fed */
  index: number;
  turn_id: string | null;
  /** a top-level prompt opened it */
  prompted: boolean;
  /** the main agent answered in it */
  answered: boolean;
  /** a tool was called, a subagent started or the turn failed: it is past taking a prompt */
  busy: boolean;
  /** the main agent's usage in the turn; each subagent's is on it (turnUsage sums both) */
  usage: Usage;
  /** every subagent started in the turn, in order, nested ones included */
  agents: AgentNode[];
  tool_calls: number;
  tool_errors: number;
}

interface Placed {
  turn: TurnNode;
  /** the event started `turn` */
  opens: boolean;
  /** the running subagent the event belongs to (by agent_id); undefined: the main agent's */
  agent: AgentNode | undefined;
}

/** Where one event went. */
export type Placement = Placed &
  (
    | {
        role: "prompt" /** the main agent's prompt (else a subagent's own, part of its parent's turn) */;
        main: boolean;
      }
    | { role: "call"; call: CallNode }
    | {
        role: "result";
        call: CallNode;
        /** no call was recorded for it: `call` was made up from the result */
        orphan: boolean;
        /** a second report of an answered call (a client that reports an exit code again after PostToolUse) */
        repeat: boolean;
        failed: boolean;
      }
    | { role: "agent_start"; started: AgentNode }
    | {
        role: "agent_stop" /** undefined when its start was not recorded in this turn */;
        stopped: AgentNode | undefined;
      }
    | {
        role: "usage" /** false: its message id was counted already (the transcript and the proxy report one response) */;
        counted: boolean;
      }
    | { role: "answer" }
    | { role: "other" }
  );
