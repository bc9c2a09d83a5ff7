// Experiment links (`.tapedeck/experiments/<id>.link.json`) that lead into another user's directory, or one
// others can write: list, show and the viewer ignore them (core/read/experiment-links.ts), and this says so.
import { ignoredExperimentLinks } from "../../../core/read/experiment-links.ts";
import { check, type DoctorCheck, shown } from "./check.ts";

/** A warning naming each ignored link, else nothing (the report stays as short as before for most projects). */
export function checkExperimentLinks(project: string): DoctorCheck | undefined {
  const ignored = ignoredExperimentLinks(project);
  if (ignored.length === 0) return undefined;
  const first = ignored[0]!;
  const more = ignored.length > 1 ? ` (and ${ignored.length - 1} more)` : "";
  return check(
    "experiment links",
    "warn",
    `${shown(project, first.file)} is ignored: ${first.reason}${more}`,
    ignored.map((i) => `rm ${i.file}   (or move the experiment into a directory of your own)`),
    { ignored },
  );
}
