// `tapedeck replay SESSION`: the baseline's prompts through the provider's real CLI into a new, isolated,
// recorded session (docs/experiments.md).
import type { Command } from "commander";
import { fields } from "../../core/base/printable.ts";
import { loadBaseline } from "../../experiment/baseline.ts";
import { replayDriver } from "../../experiment/drivers.ts";
import { ARM_NAME } from "../../experiment/orchestrator.ts";
import { prepareExperiment, runWithInterrupt } from "../../experiment/start.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { checkProvider, printJson, say } from "../common.ts";
import { setExitCode } from "../io.ts";
import { costOption, onOff, runOptions, setupError } from "../replay-options.ts";
import { resolveSessionArg, withAllProjects } from "../session-arg.ts";

export interface ReplayOpts {
  project?: string;
  provider?: string;
  arm?: string;
  nativeMemory: string;
  retrieval: string;
  experimentRoot?: string;
  model?: string;
  maxCost?: string;
  keep?: boolean;
  json?: boolean;
  allProjects?: boolean;
}

async function replayCommand(session: string, opts: ReplayOpts): Promise<void> {
  // The baseline may be another project's (--all-projects): the replay runs in the project it belongs to.
  const found = resolveSessionArg(session, { project: opts.project, allProjects: opts.allProjects });
  const project = found.project;
  const provider = checkProvider(opts.provider);
  const nativeMemory = onOff(opts.nativeMemory, "--native-memory");
  const retrieval = onOff(opts.retrieval, "--retrieval");
  const arm = opts.arm ?? "replay";
  if (!ARM_NAME.test(arm)) throw new CliError(`--arm: letters, digits, . _ - (at most 64)`, EXIT.usage);
  const maxCostUsd = costOption(opts.maxCost);
  const controller = new AbortController();
  let x: ReturnType<typeof prepareExperiment>;
  try {
    const baseline = loadBaseline(project, found.manifest.session_id, provider);
    const driver = replayDriver(baseline.provider);
    if (!driver) throw new CliError(`tapedeck cannot replay ${baseline.provider} sessions`, EXIT.failed);
    x = prepareExperiment(
      {
        kind: "replay",
        project,
        baseline,
        driver,
        arms: [{ name: arm, native_memory: nativeMemory, retrieval }],
        repeat: 1,
        ...runOptions(opts, maxCostUsd),
      },
      controller.signal,
    );
  } catch (error) {
    setupError(error);
  }
  const record = await runWithInterrupt(x, controller);
  const run = record.runs[0]!;
  const out = {
    session_id: run.session_id ?? null,
    replay_of_session_id: record.baseline.session_id,
    archive: run.archive ?? null,
    experiment_root: x.root,
    arm: run.arm,
  };
  if (opts.json) printJson({ ...out, status: run.status, ...(run.error ? { error: run.error } : {}) });
  else {
    say(
      fields`Replay of ${out.replay_of_session_id} · arm ${run.arm} · ${run.status}\n` +
        fields`${run.turns.length}/${record.prompt_count} prompts · new session ${out.session_id ?? "(none recorded)"}\n` +
        `${run.notes.map((n) => fields`note: ${n}\n`).join("")}` +
        `${run.error ? fields`error: ${run.error}\n` : ""}` +
        fields`Saved to ${out.archive ?? "(no archive)"}\nExperiment ${x.root}\n`,
    );
  }
  if (run.status === "interrupted") setExitCode(130);
  else if (run.status !== "complete") setExitCode(EXIT.failed);
}

export function register(program: Command): void {
  const command = program
    .command("replay <session>")
    .description(
      "replay a recorded session's prompts through the agent's own CLI into a new, isolated, recorded session",
    )
    .option(
      "--project <dir>",
      "the project the baseline was recorded in (default: found from the current directory)",
    )
    .option("--provider <name>", "the provider the baseline must be (refused when it is another)")
    .option("--arm <name>", "a name for this replay's arm (default: replay)")
    .option("--native-memory <on|off>", "the provider's own memory (CLAUDE.md, AGENTS.md, GEMINI.md)", "on")
    .option("--retrieval <on|off>", "tapedeck's memory retrieval", "off")
    .option(
      "--experiment-root <dir>",
      "where the run's work tree, config root and archive go (default: .tapedeck/experiments/<id>/)",
    )
    .option("--model <model>", "the model to ask for (default: the CLI's default)")
    .option("--max-cost <usd>", "stop spending past this (Claude's --max-budget-usd)")
    .option("--keep", "keep the work tree and config root (credentials are removed all the same)")
    .option("--json", 'print {"session_id","replay_of_session_id","archive","experiment_root","arm"}');
  withAllProjects(command).action(replayCommand);
}
