// The table of tapedeck's commands: what `tapedeck --help` lists and what the
// entry dispatches on, without loading any command. Each command lives in its
// own file under ./commands/, loaded only when it runs (or when its own help is
// asked for): importing all of them cost `tapedeck --version` 2.46x `node -e 0`
// (bench/cli.bench.ts). A command's file defines its options and action; the
// name, term and description here must be the ones it registers
// (test/cli/catalog.test.ts compares every entry with its module).
import type { Command } from "commander";

/** What a command's file exports: it adds exactly the command of its catalog entry to the program. */
export interface CommandModule {
  register(program: Command): void;
}

export interface CatalogEntry {
  name: string;
  /** The term in the command list of `tapedeck --help`: `[options]` when it has options, then its arguments. */
  term: string;
  description: string;
  load(): Promise<CommandModule>;
}

// `import()` with a literal specifier: the bundler splits each command into its own chunk.
export const CATALOG: readonly CatalogEntry[] = [
  {
    name: "hook",
    term: "hook [options] <provider>",
    description: "record one hook payload from stdin (providers: claude, codex, gemini, antigravity)",
    load: () => import("./commands/hook.ts"),
  },
  {
    name: "serve",
    term: "serve [options]",
    description:
      "run the http hook server in the foreground (hooks start it on demand; this is for debugging)",
    load: () => import("./commands/serve.ts"),
  },
  {
    name: "install",
    term: "install [options] <provider>",
    description: "enable recording for a provider in this project (writes project-local settings only)",
    load: () => import("./commands/install.ts"),
  },
  {
    name: "uninstall",
    term: "uninstall [options] <provider>",
    description: "remove exactly what install added (recorded sessions are kept)",
    load: () => import("./commands/uninstall.ts"),
  },
  {
    name: "import",
    term: "import [options] <source>",
    description:
      "import the sessions Claude Code, Codex or Gemini kept before tapedeck recorded (their own files), redacted, into this project's archive",
    load: () => import("./commands/import.ts"),
  },
  {
    name: "record",
    term: "record [options] <action>",
    description: "start, stop or show recording; hooks stay installed and are a fast no-op while stopped",
    load: () => import("./commands/record.ts"),
  },
  {
    name: "status",
    term: "status [options]",
    description: "show the recording state of this project (every installed provider)",
    load: () => import("./commands/status.ts"),
  },
  {
    name: "list",
    term: "list [options]",
    description: "list recorded sessions (reads manifests only)",
    load: () => import("./commands/list.ts"),
  },
  {
    name: "inspect",
    term: "inspect [options] [session]",
    description:
      "summarize a session: counts, duration, redactions, completion, health (default: the latest)",
    load: () => import("./commands/inspect.ts"),
  },
  {
    name: "show",
    term: "show [options] <session>",
    description: "a session turn by turn: prompts, tool calls and results, subagents, answers, tokens",
    load: () => import("./commands/show.ts"),
  },
  {
    name: "view",
    term: "view [options] [session]",
    description:
      "browse recorded sessions in a local, read-only web page (127.0.0.1, per-run token); SESSION opens one",
    load: () => import("./commands/view.ts"),
  },
  {
    name: "usage",
    term: "usage [options] <report>",
    description:
      "token usage and estimated cost of every provider's sessions: by day, week, month, session, model or project; across machines",
    load: () => import("./commands/usage/index.ts"),
  },
  {
    name: "last",
    term: "last [options]",
    description: "summarize the latest recorded session",
    load: () => import("./commands/last.ts"),
  },
  {
    name: "export",
    term: "export [options] [session]",
    description:
      "export a session's redacted record as JSONL (manifest first), Markdown or HTML; --all: every session into a directory",
    load: () => import("./commands/export/index.ts"),
  },
  {
    name: "otel",
    term: "otel",
    description: "export recorded sessions as OpenTelemetry traces (GenAI conventions) over OTLP/HTTP",
    load: () => import("./commands/otel.ts"),
  },
  {
    name: "search",
    term: "search [options] <query>",
    description:
      'search every recorded session of this project: words, "phrases", prefix*, OR, -word, kind:K, provider:P, session:S (see docs/memory.md)',
    load: () => import("./commands/search.ts"),
  },
  {
    name: "index",
    term: "index [options] <action>",
    description:
      "the derived search index (.tapedeck/index.sqlite): update (new events only), rebuild (from nothing), status",
    load: () => import("./commands/index/index.ts"),
  },
  {
    name: "promote",
    term: "promote [options] <session>",
    description: "store selected events of a session as durable memory items (redacted preview, asks first)",
    load: () => import("./commands/promote/index.ts"),
  },
  {
    name: "memory",
    term: "memory",
    description:
      "the promoted memory (.tapedeck/memory.sqlite): list, show, search, edit, forget, export, verify",
    load: () => import("./commands/memory.ts"),
  },
  {
    name: "retrieval",
    term: "retrieval [options] <action>",
    description:
      "on, off or status: hand the agent the project's promoted memory relevant to each prompt (independent of recording)",
    load: () => import("./commands/retrieval.ts"),
  },
  {
    name: "delete",
    term: "delete [options] [sessions...]",
    description: "delete recorded sessions: by name, or --older-than (preview, then asks)",
    load: () => import("./commands/delete.ts"),
  },
  {
    name: "repair",
    term: "repair [options] <session>",
    description:
      "recover an interrupted session: drop a torn final line, report malformed lines, rebuild counters",
    load: () => import("./commands/repair.ts"),
  },
  {
    name: "redact",
    term: "redact [options] [file]",
    description: "redact credentials from stdin to stdout, with the same policy as recording",
    load: () => import("./commands/redact.ts"),
  },
  {
    name: "proxy",
    term: "proxy [options]",
    description:
      "run the API proxy: forwards to the model API untouched, feeds exact usage into recorded sessions. " +
      "It prints the base URL to give the agent; its last path segment is a secret, and requests without it are refused " +
      "(TAPEDECK_PROXY_SECRET, 32+ characters of A-Za-z0-9_-, keeps it the same across restarts)",
    load: () => import("./commands/proxy.ts"),
  },
  {
    name: "run",
    term: "run [options] <agent> [args...]",
    description:
      "run claude or codex through a temporary proxy: tapedeck run claude -p 'hello', tapedeck run codex exec 'hello'. " +
      "tapedeck's own options go before the agent's first option; everything from there (or after --) is the agent's",
    load: () => import("./commands/run.ts"),
  },
  {
    name: "mirror",
    term: "mirror",
    description: "the proxy's transcript mirror",
    load: () => import("./commands/mirror.ts"),
  },
  {
    name: "restore",
    term: "restore [options] <session>",
    description:
      "put a Claude Code transcript back so `claude --resume` works: from the proxy mirror, the hook archive, or both (auto)",
    load: async () => ({ register: (await import("./commands/restore.ts")).registerRestoreCommand }),
  },
  {
    name: "replay",
    term: "replay [options] <session>",
    description:
      "replay a recorded session's prompts through the agent's own CLI into a new, isolated, recorded session",
    load: () => import("./commands/replay.ts"),
  },
  {
    name: "experiment",
    term: "experiment",
    description: "run, list and compare A/B replays of a recorded session",
    load: () => import("./commands/experiment.ts"),
  },
  {
    name: "scenario",
    term: "scenario",
    description: "a recorded session as a repeatable evaluation: from-session, check, run, export",
    load: () => import("./commands/scenario.ts"),
  },
  {
    name: "demo",
    term: "demo [options]",
    description: "record a real Claude Code session against the built-in mock model (no API key) and show it",
    load: () => import("./commands/demo.ts"),
  },
  {
    name: "doctor",
    term: "doctor [options]",
    description:
      "check that recording works here: config, hooks, session root, hook trust (Codex), hook server",
    load: () => import("./commands/doctor/index.ts"),
  },
  {
    name: "mcp",
    term: "mcp [options]",
    description:
      "run the tapedeck MCP server on stdio (tools record_session and tapedeck_status); `tapedeck install <provider> --mcp` sets it up",
    load: () => import("./commands/mcp.ts"),
  },
  {
    name: "prune",
    term: "prune [options]",
    description:
      "remove old sessions by a retention rule: age, keep-last, provider, status (preview, then asks)",
    load: () => import("./commands/prune.ts"),
  },
  {
    name: "du",
    term: "du [options]",
    description:
      "disk used by tapedeck: per project, provider and session (archive, spool, index, memory, experiments), largest first",
    load: () => import("./commands/du.ts"),
  },
  {
    name: "config",
    term: "config",
    description:
      "read and change settings (limits, transport, retention, retrieval budget, OTLP): value and source",
    load: () => import("./commands/config/index.ts"),
  },
  {
    name: "completion",
    term: "completion [options] <shell>",
    description:
      "print a shell completion script (bash, zsh, fish): commands, options, providers, session ids",
    load: () => import("./commands/completion.ts"),
  },
];

/** The entry of a command name, if tapedeck has that command. */
export function catalogEntry(name: string | undefined): CatalogEntry | undefined {
  return CATALOG.find((e) => e.name === name);
}
