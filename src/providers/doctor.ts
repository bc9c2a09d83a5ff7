// What a provider adds to `tapedeck doctor`: checks of the agent's own rules
// that decide whether the installed hooks run at all (Codex's trust), which
// only the provider knows. Each answers like every doctor check: a status, a
// message, and for a warning or a problem the fix. The CLI's doctor
// (cli/commands/doctor/) runs them after its own checks of the hooks.

export type CheckStatus = "ok" | "warn" | "fail";

export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about it, for warn and fail. */
  fix?: string[];
  details?: Record<string, unknown>;
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

/** What a provider's checks look at. */
export interface ProviderCheckScope {
  project: string;
  /** How many tapedeck hook entries the hooks check found installed. */
  hooksFound: number;
  /** `doctor --codex-home`: where Codex keeps its user config, when not the default. */
  codexHome?: string;
}

export type ProviderDoctorCheck = (scope: ProviderCheckScope) => DoctorCheck[];
