// The shell completion scripts of `tapedeck completion bash|zsh|fish`, made from the program itself (its
// commands, their options and the values of both, the providers, the time zones) so they never lag behind a new
// command. Made at build time (scripts/man.mjs writes dist/completion/), because making them loads every
// command's module: 1.0 s of `tapedeck completion bash`, which the suggested `eval` line cost every new shell.
// Session ids come from the archive when the user presses TAB: the script runs
// `tapedeck completion <shell> --sessions`, which loads that one command and reads manifests only.
import type { Command, Option } from "commander";
import { VALUE_WORDS, type ValueWords } from "./options.ts";
import { PROVIDERS } from "./providers.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** What TAB offers after an option that takes a value. */
interface ValueSpec {
  flag: string;
  offer: "words" | "files" | "sessions" | "none";
  words: readonly string[];
  /** a comma-separated list of the words */
  list: boolean;
}

interface Spec {
  name: string;
  options: string[];
  values: ValueSpec[];
  /** Its own subcommands (memory list, experiment run) or its first argument's values, offered first. */
  subs: string[];
  /** What the first argument is: a session, a provider, a shell, or anything. */
  arg: "session" | "provider" | "shell" | "other";
  description: string;
}

/** Only words that no shell expands or splits: they come from tapedeck's own option declarations. */
const PLAIN_WORD = /^[A-Za-z0-9_./:+-]+$/;

/**
 * An option's value completion: the words it declares (options.ts offerWords), or those of a placeholder such
 * as `<jsonl|md|html>`; providers for --provider; session ids for a session; files for a file, directory or
 * path; and nothing for the rest (`--limit <n>`): never the session ids a bare TAB would have offered.
 */
function valueSpec(o: Option): ValueSpec | undefined {
  if (!o.long || !(o.required || o.optional)) return undefined;
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1] ?? "";
  const declared = (o as unknown as Record<symbol, ValueWords | undefined>)[VALUE_WORDS];
  const spec = (offer: ValueSpec["offer"], words: readonly string[] = [], list = false): ValueSpec => ({
    flag: o.long!,
    offer,
    words: words.filter((w) => PLAIN_WORD.test(w)),
    list,
  });
  if (declared) return spec("words", declared.words, declared.list === true);
  if (placeholder.includes("|")) return spec("words", placeholder.split("|"));
  if (o.long === "--provider") return spec("words", PROVIDERS);
  if (/session/.test(o.long) || /^session/.test(placeholder)) return spec("sessions");
  if (/^(dir|file|path)$/.test(placeholder)) return spec("files");
  return spec("none");
}

function uniqueFlags(values: ValueSpec[]): ValueSpec[] {
  const seen = new Set<string>();
  return values.filter((v) => !seen.has(v.flag) && seen.add(v.flag));
}

function argKind(cmd: Command): Spec["arg"] {
  const first = cmd.registeredArguments[0]?.name() ?? "";
  if (/^session/.test(first)) return "session";
  if (first === "provider") return "provider";
  if (first === "shell") return "shell";
  return "other";
}

function specs(program: Command): Spec[] {
  return program.commands
    .filter((c) => !c.name().startsWith("_"))
    .map((c) => ({
      name: c.name(),
      options: [...c.options.filter((o) => !o.hidden && o.long).map((o) => o.long!), "--help"],
      // A subcommand's options (otel export --protocol) complete under the command's name: the first wins.
      values: uniqueFlags(
        [c, ...c.commands].flatMap((x) =>
          x.options.filter((o) => !o.hidden).flatMap((o) => valueSpec(o) ?? []),
        ),
      ),
      // Its subcommands, else the values its first argument takes (usage daily|weekly|…).
      subs: c.commands.length
        ? c.commands.map((s) => s.name()).filter((n) => n !== "help")
        : [...(c.registeredArguments[0]?.argChoices ?? [])],
      arg: argKind(c),
      description: c
        .description()
        .split(/[.:;(]/)[0]!
        .trim(),
    }));
}

const words = (xs: readonly string[]) => xs.join(" ");

/** The commands whose argument is of kind `k`, as a case pattern (`a|b`); one that matches none when none. */
function takingArg(all: Spec[], k: Spec["arg"]): string {
  return (
    all
      .filter((s) => s.arg === k)
      .map((s) => s.name)
      .join("|") || "__none__"
  );
}

/** bash: the case arms that complete an option's value, keyed "command option". */
function bashValueCases(all: Spec[]): string {
  const arm = (v: ValueSpec): string => {
    if (v.offer === "words")
      return v.list
        ? `_tapedeck_list "${words(v.words)}" "$cur"`
        : `COMPREPLY=($(compgen -W "${words(v.words)}" -- "$cur"))`;
    if (v.offer === "sessions") return `_tapedeck_offer_sessions "$cur"`;
    if (v.offer === "files") return `COMPREPLY=($(compgen -f -- "$cur"))`;
    return "COMPREPLY=()";
  };
  return all
    .flatMap((s) => s.values.map((v) => `    "${s.name} ${v.flag}") ${arm(v)}; return ;;`))
    .join("\n");
}

function bash(all: Spec[]): string {
  const cases = all
    .map((s) => `    ${s.name}) opts="${words(s.options)}" subs="${words(s.subs)}" ;;`)
    .join("\n");
  const kind = (k: Spec["arg"]) => takingArg(all, k);
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
  done < <(printf '%s\\n' last; _tapedeck_sessions)
}
# A comma-separated list (--kinds a,b): the word after the last comma, with what comes before it kept.
_tapedeck_list() {
  local pre="" last="$2"
  [[ $last == *,* ]] && pre="\${last%,*}," && last="\${last##*,}"
  COMPREPLY=($(compgen -P "$pre" -W "$1" -- "$last"))
}
_tapedeck() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD - 1]}" cmd="\${COMP_WORDS[1]}" opts="" subs=""
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "${words(all.map((s) => s.name))} --help --version" -- "$cur"))
    return
  fi
  case "$cmd $prev" in
${bashValueCases(all)}
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
    *) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
  esac
}
complete -o default -F _tapedeck tapedeck
`;
}

/** zsh: the case arms that complete an option's value, keyed "command option". */
function zshValueCases(all: Spec[]): string {
  const arm = (v: ValueSpec): string => {
    if (v.offer === "words")
      return v.list ? `_values -s , 'value' ${words(v.words)}` : `compadd -- ${words(v.words)}`;
    if (v.offer === "sessions")
      return `compadd -- last \${(f)"$(tapedeck completion zsh --sessions \${project[@]} 2>/dev/null)"}`;
    if (v.offer === "files") return "_files";
    return ":";
  };
  return all
    .flatMap((s) => s.values.map((v) => `    "${s.name} ${v.flag}") ${arm(v)}; return ;;`))
    .join("\n");
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
  const kind = (k: Spec["arg"]) => takingArg(all, k);
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
  case "$cmd \${words[CURRENT-1]}" in
${zshValueCases(all)}
  esac
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
    *) _files ;;
  esac
}
compdef _tapedeck tapedeck
`;
}

/** fish: what follows an option that takes a value (-x: a value, never a file unless it is one). */
function fishValue(v: ValueSpec | undefined): string {
  if (!v) return "";
  if (v.offer === "words") return ` -x -a '${words(v.words)}'`;
  if (v.offer === "sessions") return ` -x -a '(tapedeck completion fish --sessions 2>/dev/null)'`;
  if (v.offer === "files") return " -r -F";
  return " -x";
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
    const values = new Map(s.values.map((v) => [v.flag, v]));
    for (const o of s.options.filter((x) => x.startsWith("--"))) {
      lines.push(
        `complete -c tapedeck -n '__fish_seen_subcommand_from ${s.name}' -l ${o.slice(2)}${fishValue(values.get(o))}`,
      );
    }
    const cond = `-n '__fish_seen_subcommand_from ${s.name}'`;
    if (s.arg === "session")
      lines.push(`complete -c tapedeck ${cond} -a 'last (tapedeck completion fish --sessions 2>/dev/null)'`);
    if (s.arg === "provider") lines.push(`complete -c tapedeck ${cond} -a '${words(PROVIDERS)}'`);
    if (s.arg === "shell") lines.push(`complete -c tapedeck ${cond} -a '${words(SHELLS)}'`);
  }
  return `${lines.join("\n")}\n`;
}

/** The three scripts of the program with every command loaded. */
export function completionScripts(program: Command): Record<Shell, string> {
  const all = specs(program);
  return { bash: bash(all), zsh: zsh(all), fish: fish(all) };
}
