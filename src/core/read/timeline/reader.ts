// What a reader of the turn model (the viewer's turns, the OTLP spans) does with each event is a step per role
// the model placed it in. The roles are walked here once: a reader implements the steps and hands every
// event to `readPlaced`, and a role the model gains is a step the compiler asks each reader for.
import type { Placement } from "./nodes.ts";

export type Role = Placement["role"];

export type Placed<R extends Role> = Extract<Placement, { role: R }>;

export interface PlacementReader<E, T> {
  prompt(e: E, placed: Placed<"prompt">): T;
  call(e: E, placed: Placed<"call">): T;
  result(e: E, placed: Placed<"result">): T;
  agentStart(e: E, placed: Placed<"agent_start">): T;
  agentStop(e: E, placed: Placed<"agent_stop">): T;
  usage(e: E, placed: Placed<"usage">): T;
  answer(e: E, placed: Placed<"answer">): T;
  /** Everything else: session starts and ends, compactions, failures, a provider's own events. */
  other(e: E, placed: Placement): T;
}

type Step = keyof PlacementReader<unknown, unknown>;

/** The steps that take an event of role R: a role can only be handed to a step made for it. */
type StepFor<R extends Role> = {
  [K in Step]: Placed<R> extends Parameters<PlacementReader<unknown, unknown>[K]>[1] ? K : never;
}[Step];

const STEP: { [R in Role]: StepFor<R> } = {
  prompt: "prompt",
  call: "call",
  result: "result",
  agent_start: "agentStart",
  agent_stop: "agentStop",
  usage: "usage",
  answer: "answer",
  other: "other",
};

/** Hands an event to the reader's step for the role the turn model placed it in. */
export function readPlaced<E, T>(reader: PlacementReader<E, T>, e: E, placed: Placement): T {
  const step = reader[STEP[placed.role]] as (e: E, placed: Placement) => T;
  return step.call(reader, e, placed);
}
