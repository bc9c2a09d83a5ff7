// The shell command an agent runs for each hook under the http transport.
// Every part is guarded so that a moved or removed install, or a machine
// without bash, is a silent no-op rather than an error on the agent's screen:
// the agent runs this through its own shell (bash, zsh or sh), so it is plain
// POSIX, with no variables (fish users too).
import { existsSync } from "node:fs";
import { shellQuote } from "../providers/hooks-table.ts";

export const CLIENT_SHELL = "/bin/bash";

export interface ClientCommandParts {
  provider: string;
  /** dist/hook-client.sh */
  client: string;
  runFile: string;
  node: string;
  /** dist/hook.cjs, the in-process fallback */
  hook: string;
}

export function clientCommand(p: ClientCommandParts): string {
  const client = shellQuote(p.client);
  const args = [p.provider, p.runFile, p.node, p.hook].map(shellQuote).join(" ");
  return `[ -x ${CLIENT_SHELL} ] && [ -f ${client} ] && exec ${CLIENT_SHELL} ${client} ${args}; exit 0`;
}

/**
 * The command transport's hook (and every status line): Node running the hook bundle, guarded the same way,
 * so that a moved install is silent instead of Node's "Cannot find module" on the agent's screen.
 */
export function nodeHookCommand(node: string, hook: string, args: readonly string[]): string {
  return `[ -x ${shellQuote(node)} ] && [ -f ${shellQuote(hook)} ] && exec ${shellQuote(node)} ${shellQuote(hook)} ${args.join(" ")}; exit 0`;
}

/** The client needs bash (for /dev/tcp); where there is none the command transport is the one that works. */
export function clientShellAvailable(): boolean {
  return existsSync(CLIENT_SHELL);
}

/** One argument as shellQuote wrote it: '...' with each ' inside written as '\''. */
const QUOTED = String.raw`'((?:[^']|'\\'')*)'`;
const CLIENT_COMMAND = new RegExp(
  String.raw`^\[ -x ${CLIENT_SHELL} \] && \[ -f ${QUOTED} \] && exec ${CLIENT_SHELL} ${QUOTED} ${QUOTED} ${QUOTED} ${QUOTED} ${QUOTED}; exit 0$`,
);
const unquote = (s: string) => s.replaceAll(String.raw`'\''`, "'");

/** The parts of a command `clientCommand` wrote (marker stripped), for doctor; undefined for anything else. */
export function parseClientCommand(command: string): ClientCommandParts | undefined {
  const m = CLIENT_COMMAND.exec(command.replace(/\s*# tapedeck\s*$/, ""));
  if (!m || m[1] !== m[2]) return undefined;
  const [client, provider, runFile, node, hook] = m.slice(2).map((x) => unquote(x ?? ""));
  return { client: client!, provider: provider!, runFile: runFile!, node: node!, hook: hook! };
}

const NODE_COMMAND = new RegExp(
  String.raw`^\[ -x ${QUOTED} \] && \[ -f ${QUOTED} \] && exec ${QUOTED} ${QUOTED} ([-a-z ]+); exit 0$`,
);

/** What a hook command runs: the Node hook (and its arguments), and the hook client when there is one. */
export interface ParsedHookCommand {
  node: string;
  hook: string;
  args: string[];
  client?: ClientCommandParts;
}

/** Reads back a command `clientCommand` or `nodeHookCommand` wrote; undefined for anything else. */
export function parseHookCommand(command: string): ParsedHookCommand | undefined {
  const client = parseClientCommand(command);
  if (client) return { node: client.node, hook: client.hook, args: [client.provider], client };
  const m = NODE_COMMAND.exec(command.replace(/\s*# tapedeck\s*$/, ""));
  if (!m || m[1] !== m[3] || m[2] !== m[4]) return undefined;
  return { node: unquote(m[1]!), hook: unquote(m[2]!), args: m[5]!.split(" ").filter(Boolean) };
}
