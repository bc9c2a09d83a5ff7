// `tapedeck completion bash|zsh|fish`: a completion script for the shell, made from the program itself (its
// commands, their options, the providers) so it never lags behind a new command. Session ids come from the
// archive when the user presses TAB: the script runs `tapedeck completion <shell> --sessions`, which loads
// this one command and reads manifests only. Only a directory name tapedeck itself could have made is offered
// (sessionDirName: [A-Za-z0-9._-]): a cloned repository's planted .tapedeck/ can name a directory
// `$(touch${IFS}x)`, and bash's `compgen -W` expands the words it is given, so such a name ran on TAB.
import { basename } from "node:path";
import { type Command, Option } from "commander";
import { listSessions } from "../../core/archive.ts";
import { sessionDirName } from "../../core/paths.ts";
import { CliError, EXIT, projectFromOption, say } from "../common.ts";
import { PROJECT_HELP } from "../options.ts";
import { PROVIDERS } from "../providers.ts";

interface CompletionOpts {
  sessions?: boolean;
  project?: string;
}

export const SHELLS = ["bash", "zsh", "fish"] as const;

interface Spec {
  name: string;
  options: string[];
  /** Its own subcommands (memory list, experiment run), offered as its first argument. */
  subs: string[];
  /** What the first argument is: a session, a provider, a shell, one of fixed choices, or anything. */
  arg: "session" | "provider" | "shell" | "choices" | "other";
  /** The first argument's allowed values (`import`'s claude, codex, gemini, all). */
  choices: string[];
  description: string;
}

function argKind(cmd: Command): Spec["arg"] {
  const first = cmd.registeredArguments[0]?.name() ?? "";
  if ((cmd.registeredArguments[0]?.argChoices?.length ?? 0) > 0) return "choices";
  if (/^session/.test(first)) return "session";
  if (first === "provider") return "provider";
  if (first === "shell") return "shell";
  return "other";
}

async function specs(root: Command | null): Promise<Spec[]> {
  // Every command's module, for its options: loaded only to write the script (once, at shell set-up), through
  // the program's own builder (src/cli/program.ts hands it over on the root command).
  const full = (root as unknown as Record<symbol, unknown> | null)?.[Symbol.for("tapedeck.fullProgram")];
  if (typeof full !== "function") throw new CliError("completion runs only as a command of tapedeck");
  const program = (await full()) as Command;
  return program.commands
    .filter((c) => !c.name().startsWith("_"))
    .map((c) => ({
      name: c.name(),
      options: [...c.options.filter((o) => !o.hidden && o.long).map((o) => o.long!), "--help"],
      subs: c.commands.map((s) => s.name()).filter((n) => n !== "help"),
      arg: argKind(c),
      choices: [...(c.registeredArguments[0]?.argChoices ?? [])],
      description: c
        .description()
        .split(/[.:;(]/)[0]!
        .trim(),
    }));
}

const words = (xs: readonly string[]) => xs.join(" ");

/** One case line per command whose first argument has fixed choices. */
function choiceCases(all: Spec[], line: (s: Spec) => string): string {
  return all
    .filter((s) => s.arg === "choices")
    .map(line)
    .join("\n");
}

function bash(all: Spec[]): string {
  const cases = all
    .map((s) => `    ${s.name}) opts="${words(s.options)}" subs="${words(s.subs)}" ;;`)
    .join("\n");
  const kind = (k: Spec["arg"]) =>
    all
      .filter((s) => s.arg === k)
      .map((s) => s.name)
      .join("|") || "__none__";
  return `# tapedeck bash completion: eval "$(tapedeck completion bash)" in ~/.bashrc
_tapedeck_sessions() {
  local i project=()
  for ((i = 1; i < \${#COMP_WORDS[@]} - 1; i++)); do
    [[ \${COMP_WORDS[i]} == --project ]] && project=(--project "\${COMP_WORDS[i + 1]}")
  done
  tapedeck completion bash --sessions "\${project[@]}" 2>/dev/null
}
# Matched as text, never through compgen -W, which would expand each word it is given.
_tapedeck_offer_sessions() {
  local w
  COMPREPLY=()
  while IFS= read -r w; do
    [[ $w == "$1"* ]] && COMPREPLY+=("$w")
  done < <(printf '%s\n' last; _tapedeck_sessions)
}
_tapedeck() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD - 1]}" cmd="\${COMP_WORDS[1]}" opts="" subs=""
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "${words(all.map((s) => s.name))} --help --version" -- "$cur"))
    return
  fi
  case "$prev" in
    --provider) COMPREPLY=($(compgen -W "${words(PROVIDERS)}" -- "$cur")); return ;;
    --project|--dir|--settings|--mirror-dir|--claude-home|--codex-home|--out|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$cmd" in
${cases}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  if [[ -n $subs ]] && ((COMP_CWORD == 2)); then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    return
  fi
  case "$cmd" in
    ${kind("session")}) _tapedeck_offer_sessions "$cur" ;;
    ${kind("provider")}) COMPREPLY=($(compgen -W "${words(PROVIDERS)}" -- "$cur")) ;;
    ${kind("shell")}) COMPREPLY=($(compgen -W "${words(SHELLS)}" -- "$cur")) ;;
${choiceCases(all, (s) => `    ${s.name}) COMPREPLY=($(compgen -W "${words(s.choices)}" -- "$cur")) ;;`)}
    *) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
  esac
}
complete -o default -F _tapedeck tapedeck
`;
}

function zsh(all: Spec[]): string {
  const quote = (t: string) => t.replace(/'/g, "'\\''").replace(/:/g, "\\:");
  const commands = all.map((s) => `    '${s.name}:${quote(s.description)}'`).join("\n");
  const cases = all
    .map(
      (s) =>
        `      ${s.name}) opts=(${s.options.map((o) => `'${o}'`).join(" ")}) subs=(${s.subs.join(" ")}) ;;`,
    )
    .join("\n");
  const kind = (k: Spec["arg"]) =>
    all
      .filter((s) => s.arg === k)
      .map((s) => s.name)
      .join("|") || "__none__";
  return `#compdef tapedeck
# tapedeck zsh completion: eval "$(tapedeck completion zsh)" in ~/.zshrc (after compinit)
_tapedeck() {
  local -a commands opts subs
  commands=(
${commands}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd=\${words[2]} i
  local -a project
  for (( i = 2; i < CURRENT - 1; i++ )); do
    [[ \${words[i]} == --project ]] && project=(--project "\${words[i+1]}")
  done
  if [[ \${words[CURRENT-1]} == --provider ]]; then
    compadd -- ${words(PROVIDERS)}
    return
  fi
  case $cmd in
${cases}
  esac
  if [[ $PREFIX == -* ]]; then
    compadd -- $opts
    return
  fi
  if (( \${#subs} > 0 && CURRENT == 3 )); then
    compadd -- $subs
    return
  fi
  case $cmd in
    ${kind("session")}) compadd -- last \${(f)"$(tapedeck completion zsh --sessions \${project[@]} 2>/dev/null)"} ;;
    ${kind("provider")}) compadd -- ${words(PROVIDERS)} ;;
    ${kind("shell")}) compadd -- ${words(SHELLS)} ;;
${choiceCases(all, (s) => `    ${s.name}) compadd -- ${words(s.choices)} ;;`)}
    *) _files ;;
  esac
}
compdef _tapedeck tapedeck
`;
}

function fish(all: Spec[]): string {
  const esc = (t: string) => t.replace(/\\/g, "\\\\").replace(/'/g, "\\'");
  const lines = [
    "# tapedeck fish completion: tapedeck completion fish > ~/.config/fish/completions/tapedeck.fish",
    "complete -c tapedeck -f",
  ];
  for (const s of all) {
    lines.push(`complete -c tapedeck -n __fish_use_subcommand -a ${s.name} -d '${esc(s.description)}'`);
    if (s.subs.length > 0)
      lines.push(`complete -c tapedeck -n '__fish_seen_subcommand_from ${s.name}' -a '${words(s.subs)}'`);
    for (const o of s.options.filter((x) => x.startsWith("--"))) {
      lines.push(`complete -c tapedeck -n '__fish_seen_subcommand_from ${s.name}' -l ${o.slice(2)}`);
    }
    const cond = `-n '__fish_seen_subcommand_from ${s.name}'`;
    if (s.arg === "session")
      lines.push(`complete -c tapedeck ${cond} -a 'last (tapedeck completion fish --sessions 2>/dev/null)'`);
    if (s.arg === "provider") lines.push(`complete -c tapedeck ${cond} -a '${words(PROVIDERS)}'`);
    if (s.arg === "shell") lines.push(`complete -c tapedeck ${cond} -a '${words(SHELLS)}'`);
    if (s.arg === "choices") lines.push(`complete -c tapedeck ${cond} -a '${words(s.choices)}'`);
  }
  lines.push(`complete -c tapedeck -l provider -x -a '${words(PROVIDERS)}'`);
  return `${lines.join("\n")}\n`;
}

async function completionCommand(shell: string, opts: CompletionOpts, cmd: Command): Promise<void> {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new CliError(`unknown shell "${shell}" (use ${SHELLS.join(", ")})`, EXIT.usage);
  }
  if (opts.sessions) {
    // TAB must never print an error into the command line: a project without sessions lists nothing.
    let names: string[] = [];
    try {
      // The directory's own name, never the manifest's session_dir (a manifest can say anything).
      names = listSessions(projectFromOption(opts.project))
        .map((s) => basename(s.dir))
        .filter((name) => sessionDirName(name) === name);
    } catch {
      names = [];
    }
    if (names.length > 0) say(`${names.join("\n")}\n`);
    return;
  }
  const all = await specs(cmd.parent);
  say(shell === "bash" ? bash(all) : shell === "zsh" ? zsh(all) : fish(all));
}

export function register(program: Command): void {
  program
    .command("completion <shell>")
    .description(
      "print a shell completion script (bash, zsh, fish): commands, options, providers, session ids",
    )
    .option("--project <dir>", PROJECT_HELP)
    .addOption(new Option("--sessions", "list this project's session ids (the scripts call this)").hideHelp())
    .action(completionCommand);
}
