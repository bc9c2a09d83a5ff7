// `tapedeck doctor`: the checks of ../doctor/run.ts for every installed provider (or one), or with
// --transcripts the state of the agents' transcripts of recorded sessions (./transcripts.ts).
import type { Command } from "commander";
import { otelStatus, renderOtelStatus } from "../../../otel/status.ts";
import { CliError, EXIT, printJson, projectFromOption, say } from "../../common.ts";
import { renderDoctor } from "./render.ts";
import { type DoctorOpts, runDoctor } from "./run.ts";
import type { TranscriptDoctorOpts } from "./transcripts.ts";

export function register(program: Command): void {
  program
    .command("doctor")
    .description(
      "check that recording works here: config, hooks, session root, hook trust (Codex), hook server",
    )
    .option("--project <dir>", "project directory (default: the enabled project at or above the cwd)")
    .option("--provider <name>", "check only this provider (default: every installed one)")
    .option(
      "--settings <path>",
      "the settings file install was given (default: the provider's project-local one)",
    )
    .option("--codex-home <dir>", "Codex's home, for hook trust (default: $CODEX_HOME or ~/.codex)")
    .option("--json", "machine-readable output")
    .option(
      "--transcripts",
      "check Claude Code's transcripts of recorded sessions instead (lost, stubbed, shrunk)",
    )
    .option("--all-projects", "with --transcripts: every project this user recorded Claude sessions in")
    .option("--claude-home <dir>", "with --transcripts: Claude's config directory (default: ~/.claude)")
    .option("--mirror-dir <dir>", "with --transcripts: the proxy mirror root (default: the configured one)")
    .action(async (opts: DoctorOpts & TranscriptDoctorOpts & { transcripts?: boolean }) => {
      // The transcript check is restore's code: loaded only when asked for.
      if (opts.transcripts) return (await import("./transcripts.ts")).transcriptDoctor(opts);
      const report = await runDoctor(opts);
      const otel = otelStatus(projectFromOption(opts.project));
      if (opts.json) printJson(otel ? { ...report, otel } : report);
      else say(`${renderDoctor(report)}\n${otel ? `${renderOtelStatus(otel)}\n` : ""}`);
      if (!report.ok) {
        throw new CliError(
          `${report.problems} problem${report.problems === 1 ? "" : "s"} found`,
          EXIT.failed,
        );
      }
    });
}
