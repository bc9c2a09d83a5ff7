// `tapedeck record start|stop|status`: switches recording (core/hook/recording-control.ts, shared with the MCP
// tool record_session) for one provider or every installed one; the hooks stay installed.
import type { Command } from "commander";
import { fields } from "../../core/base/printable.ts";
import { switchRecording } from "../../core/hook/recording-control.ts";
import { CliError, EXIT, projectFromOption, say } from "../common.ts";
import { PROJECT_HELP } from "../options.ts";
import { providerName } from "../providers.ts";
import {
  notInstalled,
  providerStatus,
  providersOf,
  type RecordOpts,
  showStatus,
} from "../recording-status.ts";

function recordCommand(action: string, opts: RecordOpts): void {
  if (!["start", "stop", "status"].includes(action)) {
    throw new CliError(`unknown action "${action}" (use start, stop or status)`, EXIT.usage);
  }
  const project = projectFromOption(opts.project);
  const providers = providersOf(project, opts.provider);
  if (action !== "status") {
    // Refused before anything changes when one of them is not installed; the mode stays the user's.
    const switched = switchRecording(project, { providers, on: action === "start", via: "cli" });
    if (!switched.installed) throw notInstalled(project, switched.missing ?? opts.provider);
  }
  if (action === "status" || opts.json) {
    showStatus(project, providers, opts);
    return;
  }
  const states = providers.map((p) => providerStatus(project, p));
  say(`${states.map((s) => fields`${s.display}  (${providerName(s.provider)}, ${project})`).join("\n")}\n`);
}

export function register(program: Command): void {
  program
    .command("record <action>")
    .description("start, stop or show recording; hooks stay installed and are a fast no-op while stopped")
    .option("--project <dir>", PROJECT_HELP)
    .option("--provider <name>", "only this provider (default: every installed one)")
    .option("--json", "machine-readable output")
    .action(recordCommand);
}
