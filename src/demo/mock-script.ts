// The scripted turn the mock model servers share, whatever their wire protocol: the `SCENARIO_*` keyword the
// turn's prompt carries, the replies that read the same on every wire, and the hook through which a test's own
// script answers first. Each mock turns a reply into its protocol's bytes.
import { promptWithoutMemory, recallAnswer } from "./recall-mock.ts";

export interface Scenario {
  /** The keyword without `SCENARIO_` (`BASH`, `AGENT_BG`, ...); `TEXT` when the prompt has none. */
  name: string;
  arg: string;
  /** The arg as a shell command: `please run <cmd>` is `<cmd>`; "" when there is none. */
  command: string;
}

/**
 * The last `SCENARIO_<NAME> <arg>` of a prompt. The last wins: after /compact Claude Code precedes the prompt
 * with `<local-command-stdout>` blocks that echo earlier output, and the prompt the user just typed comes last.
 */
export function parseScenario(promptText: string): Scenario {
  const matches = [...promptText.matchAll(/SCENARIO_([A-Z][A-Z_]*)[ \t]*([^\n]*)/g)];
  const m = matches.at(-1);
  if (!m) return { name: "TEXT", arg: "", command: "" };
  const arg = m[2]!.trim();
  return { name: m[1]!, arg, command: arg.replace(/^(please\s+)?run\s+/i, "") };
}

/** The scenario of a turn's prompt, read without tapedeck's marker (recall-mock.ts says why). */
export function turnScenario(promptText: string): Scenario {
  return parseScenario(promptWithoutMemory(promptText));
}

/** What the scenarios that fail on purpose run: output on stderr, exit code 3. */
export const FAIL_COMMAND = "echo oops >&2; exit 3";

/** `SCENARIO_SAY` and `SCENARIO_RECALL`: the scenario and text they answer with, undefined for other keywords. */
export function factReply(s: Scenario, body: unknown): { scenario: string; text: string } | undefined {
  if (s.name === "SAY") return { scenario: "say", text: s.arg || "Nothing to say." };
  if (s.name === "RECALL") return { scenario: "recall", text: recallAnswer(body, s.arg) };
  return undefined;
}

/** A reply that is an HTTP error, sent in the API's own error shape. */
export interface MockErrorReply {
  kind: "error";
  scenario: string;
  status: number;
  errorType: string;
  message: string;
}

/** `SCENARIO_APIERROR`: a request the API rejects, which the client must report. */
export function apiErrorReply(): MockErrorReply {
  return {
    kind: "error",
    scenario: "apierror",
    status: 400,
    errorType: "invalid_request_error",
    message: "mock: deliberately rejected request",
  };
}

/** `SCENARIO_MCP <tool> <json input>`: the tool's server-side name and its input, or why the input is unusable. */
export function parseMcpScenario(
  arg: string,
): { tool: string; input: Record<string, unknown> } | { error: string } {
  const m = /^(\S+)\s*(.*)$/.exec(arg);
  const tool = m?.[1] ?? "";
  if (!m?.[2]) return { tool, input: {} };
  try {
    const input = JSON.parse(m[2]) as unknown;
    if (input && typeof input === "object" && !Array.isArray(input))
      return { tool, input: input as Record<string, unknown> };
  } catch {
    // below
  }
  return { error: "The MCP scenario input is not a JSON object." };
}

/** A token-counting call's answer: about four bytes a token, never zero. */
export function tokensOfLength(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 4));
}

/** A test's script for one request: its own reply, or undefined to keep the built-in one. */
export type Script<C, R> = (ctx: C & { defaultReply(): R }) => R | undefined;

/** The script's reply when it gives one, else the built-in reply (which the script may also ask for). */
export function scriptedReply<C, R>(script: Script<C, R> | undefined, ctx: C, builtIn: () => R): R {
  return script?.({ ...ctx, defaultReply: builtIn }) ?? builtIn();
}
