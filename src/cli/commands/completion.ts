// `tapedeck completion bash|zsh|fish`: prints the completion script the build made (../completion-scripts.ts
// says what is in it and why it is made at build time), or with --sessions this project's session ids, which
// the scripts ask for at TAB. Only a directory name tapedeck itself could have made is offered
// (sessionDirName: [A-Za-z0-9._-]): a cloned repository's planted .tapedeck/ can name a directory
// `$(touch${IFS}x)`, and bash's `compgen -W` expands the words it is given, so such a name ran on TAB.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { type Command, Option } from "commander";
import { sessionDirName } from "../../core/archive/paths.ts";
import { builtFile } from "../../core/base/built-file.ts";
import { sessionsInScope } from "../../core/read/session-scope.ts";
import { CliError, EXIT, projectFromOption, say } from "../common.ts";
import { SHELLS } from "../completion-scripts.ts";
import { PROJECT_HELP } from "../options.ts";

interface CompletionOpts {
  sessions?: boolean;
  project?: string;
}

/** The script of `shell` as the build wrote it. */
function builtScript(shell: string): string {
  try {
    return readFileSync(builtFile(`completion/tapedeck.${shell}`), "utf8");
  } catch {
    throw new CliError(`the ${shell} completion script is not built (npm run build makes it)`);
  }
}

function completionCommand(shell: string, opts: CompletionOpts): void {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new CliError(`unknown shell "${shell}" (use ${SHELLS.join(", ")})`, EXIT.usage);
  }
  if (opts.sessions) {
    // TAB must never print an error into the command line: a project without sessions lists nothing.
    let names: string[] = [];
    try {
      // The directory's own name, never the manifest's session_dir (a manifest can say anything).
      names = sessionsInScope({ project: projectFromOption(opts.project) })
        .map((s) => basename(s.dir))
        .filter((name) => sessionDirName(name) === name);
    } catch {
      names = [];
    }
    if (names.length > 0) say(`${names.join("\n")}\n`);
    return;
  }
  say(builtScript(shell));
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
