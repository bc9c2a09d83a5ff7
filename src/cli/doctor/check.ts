// What every doctor check answers: a status, a message, and for a warning or a problem the fix.
import { relative } from "node:path";
import { isInside } from "../../core/paths.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about it, for warn and fail. */
  fix?: string[];
  details?: Record<string, unknown>;
}

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

export function check(
  name: string,
  status: CheckStatus,
  message: string,
  fix?: string[],
  details?: Record<string, unknown>,
): DoctorCheck {
  return {
    name,
    status,
    message,
    ...(fix && fix.length > 0 ? { fix } : {}),
    ...(details ? { details } : {}),
  };
}

/** A path as the report shows it: relative inside the project, absolute outside. */
export function shown(project: string, path: string): string {
  return isInside(project, path) ? relative(project, path) || "." : path;
}
