// `tapedeck doctor --transcripts`: every recorded session whose agent transcript is lost or damaged, with the
// command that restores each: the check of each provider that has one (its catalog entry's `transcripts`).
import { registeredProjects } from "../../../core/read/registry-projects.ts";
import { CATALOG } from "../../../providers/catalog.ts";
import { CliError, EXIT, printJson, projectFromOption, say } from "../../common.ts";

export interface TranscriptDoctorOpts {
  project?: string;
  allProjects?: boolean;
  claudeHome?: string;
  mirrorDir?: string;
  json?: boolean;
}

/** `doctor --transcripts`: exit 1 when any transcript is lost or damaged. */
export async function transcriptDoctor(opts: TranscriptDoctorOpts): Promise<void> {
  const projects = new Set<string>();
  const lost: unknown[] = [];
  let checked = 0;
  const texts: string[] = [];
  for (const [provider, entry] of Object.entries(CATALOG)) {
    if (!entry.transcripts) continue;
    const scope = opts.allProjects
      ? registeredProjects({ provider }).present
      : [projectFromOption(opts.project)];
    for (const p of scope) projects.add(p);
    const check = await entry.transcripts();
    const result = check.doctor(scope, { agentHome: opts.claudeHome, mirrorDir: opts.mirrorDir });
    checked += result.checked;
    lost.push(...result.lost);
    texts.push(result.text);
  }
  if (opts.json) printJson({ ok: lost.length === 0, checked, projects: [...projects], lost });
  else say(texts.join(""));
  if (lost.length > 0) throw new CliError(`${lost.length} transcript(s) lost or damaged`, EXIT.failed);
}
