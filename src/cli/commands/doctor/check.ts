// What every doctor check answers: a status, a message, and for a warning or a problem the fix.
import { relative } from "node:path";
import { isInside } from "../../../core/archive/paths.ts";

// The check itself is the providers' contract too (providers/doctor.ts): their checks answer the same way.
import type { DoctorCheck } from "../../../providers/doctor.ts";

export { type CheckStatus, check, type DoctorCheck } from "../../../providers/doctor.ts";

export interface ProviderReport {
  provider: string;
  ok: boolean;
  checks: DoctorCheck[];
}

export interface DoctorReport {
  project: string;
  ok: boolean;
  problems: number;
  warnings: number;
  providers: ProviderReport[];
}

/** A path as the report shows it: relative inside the project, absolute outside. */
export function shown(project: string, path: string): string {
  return isInside(project, path) ? relative(project, path) || "." : path;
}
