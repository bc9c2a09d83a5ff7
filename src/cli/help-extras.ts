// Examples and exit codes at the end of each command's `--help`. Loaded only when help is asked for (the
// entry checks argv first), so that this text costs nothing to a command that runs, `--version` included.
import type { Command } from "commander";

/** What every command answers unless its entry below says more. */
const EXIT_CODES =
  "0 done, 1 failed, 2 wrong usage (bad option or value, or confirmation refused), 3 no such session";

interface Extra {
  examples: string[];
  /** Added to (or, for `run`, instead of) the common exit codes. */
  exit?: string;
}

export const HELP_EXTRAS: Record<string, Extra> = {
  hook: {
    examples: ["echo '{...}' | tapedeck hook claude   (what the installed hooks run)"],
    exit: "0 always: recording never fails the agent",
  },
  serve: { examples: ["tapedeck serve --project .   (hooks start it on demand)"] },
  install: { examples: ["tapedeck install claude", "tapedeck install codex --transport http --yes"] },
  uninstall: { examples: ["tapedeck uninstall claude"] },
  import: {
    examples: [
      "tapedeck import claude --dry-run   (~/.claude/projects, or CLAUDE_CONFIG_DIR)",
      "tapedeck import codex   ($CODEX_HOME/sessions)",
      "tapedeck import all --all-projects --since 30d --json",
    ],
    exit: "1 also when a session failed to import; 3 when the agent has no session for this project",
  },
  record: { examples: ["tapedeck record stop", "tapedeck record start --provider codex"] },
  status: { examples: ["tapedeck status", "tapedeck status --json"] },
  list: { examples: ["tapedeck list", "tapedeck list --provider codex --json"] },
  inspect: { examples: ["tapedeck inspect", "tapedeck inspect 3f2a --json"] },
  show: { examples: ["tapedeck show last", "tapedeck show 3f2a --json"] },
  usage: {
    examples: [
      "tapedeck usage daily",
      "tapedeck usage weekly --all-projects --breakdown",
      "tapedeck usage session --since 7d --provider codex",
      "tapedeck usage daily --timezone Europe/Paris --since 2026-11-01 --json",
      "tapedeck usage publish --to ~/Sync/tapedeck-usage --device laptop",
      "tapedeck usage monthly --machines ~/Sync/tapedeck-usage",
    ],
    exit: "0 also when nothing was recorded in the range (an empty table; --json has no rows)",
  },
  view: { examples: ["tapedeck view", "tapedeck view --port 0"] },
  last: { examples: ["tapedeck last", "tapedeck last --json"] },
  export: { examples: ["tapedeck export last > session.jsonl", "tapedeck export 3f2a --format md"] },
  otel: { examples: ["tapedeck otel export last --dry-run", "tapedeck otel export --pending"] },
  search: {
    examples: ['tapedeck search "migration failed"', "tapedeck search kind:tool_call provider:codex pytest"],
    exit: "1 also when nothing matches",
  },
  index: { examples: ["tapedeck index update", "tapedeck index status --json"] },
  promote: { examples: ["tapedeck promote last --dry-run", "tapedeck promote 3f2a --yes"] },
  memory: { examples: ["tapedeck memory list", "tapedeck memory search retry"] },
  retrieval: { examples: ["tapedeck retrieval on --provider claude", "tapedeck retrieval status"] },
  delete: {
    examples: ["tapedeck delete 3f2a 9bc1", "tapedeck delete --older-than 30d --provider codex --dry-run"],
  },
  prune: {
    examples: [
      "tapedeck prune --older-than 30d --dry-run",
      "tapedeck prune --keep-last 50 --status incomplete --yes",
    ],
  },
  du: { examples: ["tapedeck du", "tapedeck du --all-projects --json"] },
  repair: { examples: ["tapedeck repair last", "tapedeck repair 3f2a --json"] },
  redact: { examples: ["cat build.log | tapedeck redact", "tapedeck redact notes.txt > notes.redacted.txt"] },
  proxy: { examples: ["tapedeck proxy --port 8787"] },
  run: {
    examples: ["tapedeck run claude -p 'hello'", "tapedeck run codex exec 'hello'"],
    exit: "the agent's own exit code once it ran; 2 for a usage error before",
  },
  mirror: { examples: ["tapedeck mirror restore last"] },
  restore: { examples: ["tapedeck restore last", "tapedeck restore 3f2a --from archive"] },
  replay: { examples: ["tapedeck replay last", "tapedeck replay 3f2a --json"] },
  experiment: { examples: ["tapedeck experiment list", "tapedeck experiment report <id>"] },
  scenario: {
    examples: ["tapedeck scenario from-session last > s.json", "tapedeck scenario check s.json"],
    exit: "1 also when a check fails",
  },
  demo: { examples: ["tapedeck demo"] },
  doctor: {
    examples: ["tapedeck doctor", "tapedeck doctor --provider codex --json"],
    exit: "1 also when a problem is found",
  },
  mcp: { examples: ["tapedeck mcp   (what `tapedeck install claude --mcp` configures)"] },
  config: {
    examples: [
      "tapedeck config list",
      "tapedeck config set retention.older_than 30d",
      "tapedeck config get transport --provider claude",
    ],
  },
  completion: {
    examples: [
      'eval "$(tapedeck completion bash)"   (in ~/.bashrc)',
      "tapedeck completion fish > ~/.config/fish/completions/tapedeck.fish",
    ],
  },
};

/** The text added after a command's help. */
export function extraText(name: string): string | undefined {
  const extra = HELP_EXTRAS[name];
  if (!extra) return undefined;
  const exit =
    name === "run" || name === "hook" ? extra.exit! : `${EXIT_CODES}${extra.exit ? `; ${extra.exit}` : ""}`;
  return `\nExamples:\n${extra.examples.map((e) => `  ${e}`).join("\n")}\n\nExit codes: ${exit}\n`;
}

/** Adds the examples and exit codes to each command of the program, and the common exit codes to the program's. */
export function addHelpExtras(program: Command): void {
  for (const cmd of program.commands) {
    const text = extraText(cmd.name());
    if (text) cmd.addHelpText("after", text);
  }
  program.addHelpText(
    "after",
    `\nExit codes: ${EXIT_CODES}\nEach command's --help has examples: tapedeck prune --help\n`,
  );
}
