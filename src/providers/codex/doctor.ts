// Codex's part of `tapedeck doctor`. Codex runs a project's hooks only when the project and each hook are
// trusted, and skips the others silently: untrusted hooks record nothing and say nothing.
import { check, type DoctorCheck, type ProviderCheckScope } from "../doctor.ts";
import { defaultCodexHome } from "./home.ts";
import { codexHookTrust, codexTrustFixes } from "./installer.ts";

/** Checked only where there are hooks to trust. */
export function codexTrustCheck({ project, hooksFound, codexHome }: ProviderCheckScope): DoctorCheck[] {
  return hooksFound === 0 ? [] : checkCodexTrust(project, codexHome ?? defaultCodexHome());
}

export function checkCodexTrust(project: string, codexHome: string): DoctorCheck[] {
  const trust = codexHookTrust(project, codexHome);
  const checks: DoctorCheck[] = [];
  const details = {
    codex_home: codexHome,
    state: trust.state,
    installed: trust.installed,
    trusted: trust.trusted,
    modified: trust.modified,
    untrusted: trust.untrusted,
    disabled: trust.disabled,
    not_running: trust.not_running,
    project_trusted: trust.project_trusted,
  };
  if (!trust.project_trusted) {
    checks.push(
      check(
        "project trust",
        "fail",
        `Codex does not list ${project} as trusted in ${trust.config_path}: it ignores the project's .codex/hooks.json`,
        [
          `Run \`codex\` in ${project} once and trust the folder (or set [projects."${project}"] trust_level = "trusted")`,
        ],
        { config: trust.config_path },
      ),
    );
  }
  if (trust.state === "trusted") {
    checks.push(
      check(
        "hook trust",
        "ok",
        `all ${trust.installed} tapedeck hooks trusted in ${trust.config_path}`,
        undefined,
        details,
      ),
    );
  } else if (trust.state === "untrusted") {
    checks.push(
      check(
        "hook trust",
        "fail",
        `installed but NOT trusted: Codex silently skips all ${trust.installed} tapedeck hooks, nothing is recorded (no trust entry in ${trust.config_path})`,
        codexTrustFixes(project),
        details,
      ),
    );
  } else if (trust.state === "partial") {
    const parts = [
      trust.modified > 0 ? `${trust.modified} trusted for a different version of the hook (modified)` : "",
      trust.untrusted > 0 ? `${trust.untrusted} not trusted` : "",
      trust.disabled > 0 ? `${trust.disabled} disabled` : "",
    ].filter(Boolean);
    checks.push(
      check(
        "hook trust",
        "fail",
        `${trust.trusted} of ${trust.installed} tapedeck hooks trusted; ${parts.join(", ")}: Codex skips ${[...new Set(trust.not_running)].join(", ")}`,
        codexTrustFixes(project),
        details,
      ),
    );
  }
  for (const warning of trust.warnings) checks.push(check("codex config", "warn", warning));
  return checks;
}
