// The doctor report for the terminal: one line per check, its fixes below it.
import { printable } from "../../../core/base/printable.ts";
import { providerName } from "../../providers.ts";
import type { CheckStatus, DoctorReport } from "./check.ts";

const MARK: Record<CheckStatus, string> = { ok: "✓", warn: "!", fail: "✗" };

export function renderDoctor(report: DoctorReport): string {
  const lines = [`tapedeck doctor · ${printable(report.project)}`];
  const width = Math.max(12, ...report.providers.flatMap((p) => p.checks.map((c) => c.name.length))) + 2;
  for (const p of report.providers) {
    lines.push("", p.provider === "none" ? "Project" : providerName(p.provider));
    for (const c of p.checks) {
      // Messages name paths and ids from the project: one line each, nothing that steers the terminal.
      lines.push(`  ${MARK[c.status]} ${c.name.padEnd(width)}${printable(c.message)}`);
      for (const fix of c.fix ?? []) lines.push(`    ${" ".repeat(width)}→ ${printable(fix.trim())}`);
    }
  }
  lines.push(
    "",
    report.ok
      ? `No problems found${report.warnings > 0 ? ` (${report.warnings} warning${report.warnings === 1 ? "" : "s"})` : ""}.`
      : `${report.problems} problem${report.problems === 1 ? "" : "s"} found.`,
  );
  return lines.join("\n");
}
