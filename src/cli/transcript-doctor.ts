// `tapedeck doctor --transcripts`: every recorded Claude session whose transcript is lost or damaged, with the
// command that restores each (cli/transcript-check.ts finds them).
import { registeredProjects } from "../core/read/registry-projects.ts";
import { loadMirrorSettings } from "../providers/claude/mirror/settings.ts";
import { CliError, EXIT, printJson, projectFromOption, say } from "./common.ts";
import { lostTranscripts, renderLost } from "./transcript-check.ts";

function mirrorDirOf(explicit: string | undefined): string {
  return explicit ?? loadMirrorSettings().settings.dir;
}

export interface TranscriptDoctorOpts {
  project?: string;
  allProjects?: boolean;
  claudeHome?: string;
  mirrorDir?: string;
  json?: boolean;
}

/** `doctor --transcripts`: every recorded session whose transcript is lost or damaged; exit 1 when any is. */
export function transcriptDoctor(opts: TranscriptDoctorOpts): void {
  const projects = opts.allProjects
    ? registeredProjects({ provider: "claude" }).present
    : [projectFromOption(opts.project)];
  const result = lostTranscripts(projects, {
    claudeHome: opts.claudeHome,
    mirrorDir: mirrorDirOf(opts.mirrorDir),
  });
  if (opts.json) {
    printJson({
      ok: result.lost.length === 0,
      checked: result.checked,
      projects,
      lost: result.lost.map(({ comparison: _c, ...s }) => ({ ...s, expected: _c.expected, found: _c.found })),
    });
  } else say(renderLost(result));
  if (result.lost.length > 0) {
    throw new CliError(`${result.lost.length} transcript(s) lost or damaged`, EXIT.failed);
  }
}
