// The manual page (dist/tapedeck.1), made at build time from the program itself: each command's own --help
// text, its examples and exit codes (./help-extras.ts), so the page can never say something the help does
// not. scripts/man.mjs bundles this module and writes its result, and the shell completion scripts with it.
import type { Command } from "commander";
import { completionScripts } from "./completion-scripts.ts";
import { addHelpExtras, extraText } from "./help-extras.ts";
import { HELP_GROUPS } from "./help-groups.ts";
import { buildProgram } from "./program.ts";

/** Text safe in roff's no-fill mode: backslashes doubled, no line starting with a control character. */
function roffText(text: string): string {
  return (
    text
      .replace(/\\/g, "\\e")
      // troff reads bytes: a non-ASCII character (an em dash, a middle dot) goes as its Unicode escape.
      .replace(
        /[^\x00-\x7f]/gu,
        (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`,
      )
      .split("\n")
      .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
      .join("\n")
  );
}

function block(text: string): string {
  return `.nf\n${roffText(text.replace(/\s+$/, ""))}\n.fi\n`;
}

function commandSection(cmd: Command, path: string): string {
  let out = `.SS "${path}"\n${block(cmd.helpInformation())}`;
  const extra = path.split(" ").length === 2 ? extraText(cmd.name()) : undefined;
  if (extra) out += block(extra);
  for (const sub of cmd.commands) {
    if (sub.name() === "help") continue;
    out += commandSection(sub, `${path} ${sub.name()}`);
  }
  return out;
}

export async function manualPage(version: string): Promise<string> {
  const program = await buildProgram("all");
  addHelpExtras(program);
  const byName = new Map(program.commands.map((c) => [c.name(), c]));
  const parts = [
    `.TH TAPEDECK 1 "" "tapedeck ${version}" "User Commands"\n`,
    `.SH NAME\ntapedeck \\- ${roffText(program.description())}\n`,
    ".SH SYNOPSIS\n.B tapedeck\n.I command\n[\\fIoptions\\fR] [\\fIarguments\\fR]\n",
    `.SH DESCRIPTION\n${block(program.helpInformation())}`,
  ];
  for (const group of HELP_GROUPS) {
    const cmds = program.commands.filter((c) => c.helpGroup() === group.heading);
    if (cmds.length === 0) continue;
    parts.push(`.SH "${group.heading.replace(/ \(.*|:$/g, "").toUpperCase()} COMMANDS"\n`);
    for (const c of cmds) parts.push(commandSection(byName.get(c.name())!, `tapedeck ${c.name()}`));
  }
  parts.push(
    ".SH EXIT STATUS\n0 done, 1 failed, 2 wrong usage (a bad option or value, or a confirmation refused), 3 no such session; a command's own section says more where it does.\n",
    ".SH FILES\n.TP\n.I .tapedeck/\nthe project's archive, config (config.json), search index and promoted memory\n.TP\n.I ~/.tapedeck/\nthe user's session registry and run files\n",
    ".SH SEE ALSO\nREADME.md and docs/ in the package; \\fBtapedeck <command> \\-\\-help\\fR\n",
  );
  return parts.join("");
}

/** `tapedeck completion`'s scripts (dist/completion/tapedeck.<shell>), from the program with every command. */
export async function completionFiles(): Promise<Record<string, string>> {
  return completionScripts(await buildProgram("all"));
}
