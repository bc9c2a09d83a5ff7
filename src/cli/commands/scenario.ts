// `tapedeck scenario from-session|check|run|export`: a recorded session as a repeatable evaluation
// (docs/scenarios.md). Exit 0 when every check passes, 1 when one fails, 2 on a bad file or usage.
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { ensureDir, writeFileAtomicSync } from "../../core/base/fsutil.ts";
import { fields, printable } from "../../core/base/printable.ts";
import { SessionNotFound, sessionRoots } from "../../core/read/sessions.ts";
import { IsolationError } from "../../experiment/isolation.ts";
import { ARM_NAME } from "../../experiment/orchestrator.ts";
import { DeriveError, deriveScenario, parseRange } from "../../scenario/derive.ts";
import { type ExportTarget, exportScenario } from "../../scenario/export.ts";
import { prepareWorkspace, WorkspaceExists } from "../../scenario/export-workspace.ts";
import { type LoadedScenario, loadScenarioFile, ScenarioFileError } from "../../scenario/load.ts";
import { makeReplayRunner, ReplayUnavailable } from "../../scenario/replay.ts";
import { type Against, type ArmOption, runScenario } from "../../scenario/run.ts";
import type { Sample, ScenarioResult } from "../../scenario/schema.ts";
import { CliError, EXIT, note, printJson, projectFromOption, say } from "../common.ts";
import { setExitCode } from "../io.ts";
import { PROJECT_HELP } from "../options.ts";
import { isMissingForRun } from "../replay-options.ts";
import { resolveSessionArg } from "../session-arg.ts";

function load(file: string): LoadedScenario {
  try {
    return loadScenarioFile(resolve(file));
  } catch (error) {
    if (error instanceof ScenarioFileError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
function realish(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  const parent = dirname(path);
  return parent === path ? path : join(realish(parent), basename(path));
}

function refuseInsideArchive(path: string, project: string, out: string): void {
  const at = realish(path);
  for (const root of sessionRoots(project)) {
    const r = realish(root);
    if (at === r || at.startsWith(`${r}/`))
      throw new CliError(`--out ${out} is inside a session archive: choose another place`, EXIT.usage);
  }
}

/** The path a file is written to: never the scenario itself, never inside a session root of the project. */
function outputPath(out: string, project: string, protect: string[]): string {
  const path = resolve(out);
  if (protect.some((p) => realish(p) === realish(path)))
    throw new CliError(`--out ${out} is the scenario file: a result never overwrites it`, EXIT.usage);
  if (!existsSync(dirname(path)))
    throw new CliError(`--out ${out}: ${dirname(path)} does not exist`, EXIT.usage);
  refuseInsideArchive(path, project, out);
  return path;
}

// --- from-session --------------------------------------------------------

interface FromOpts {
  allProjects?: boolean;
  project?: string;
  provider?: string;
  events?: string;
  id?: string;
  out: string;
  force?: boolean;
  json?: boolean;
}

function fromSessionCommand(session: string, opts: FromOpts): void {
  const ref = resolveSessionArg(session, opts);
  const project = ref.project;
  let scenario: ReturnType<typeof deriveScenario>;
  try {
    const range = opts.events ? parseRange(opts.events) : undefined;
    scenario = deriveScenario(project, ref, {
      ...(range ? { range } : {}),
      ...(opts.id ? { id: opts.id } : {}),
    });
  } catch (error) {
    if (error instanceof DeriveError)
      throw new CliError(error.message, error.message.startsWith("--events") ? EXIT.usage : EXIT.failed);
    throw error;
  }
  const path = outputPath(opts.out, project, []);
  if (existsSync(path) && !opts.force)
    throw new CliError(`${opts.out} exists: give --force to replace it`, EXIT.usage);
  writeFileAtomicSync(path, `${JSON.stringify(scenario, null, 2)}\n`);
  if (opts.json) printJson({ path, id: scenario.id, prompts: scenario.setup_messages.length + 1 });
  else
    say(
      `Scenario ${scenario.id} from ${scenario.source_session.session_id}: ${scenario.setup_messages.length} setup message(s) and the continuation prompt\n` +
        `Written to ${path}: add expected_facts, forbidden_facts, validators and limits, then tapedeck scenario check ${opts.out}\n`,
    );
}

// --- check ---------------------------------------------------------------

function checkCommand(file: string, opts: { json?: boolean }): void {
  try {
    const loaded = loadScenarioFile(resolve(file));
    const s = loaded.scenario;
    if (opts.json) printJson({ ok: true, id: s.id, sha256: loaded.sha256, problems: [] });
    else
      say(
        `${file}: a valid scenario (${s.id}: ${s.expected_facts.length} expected fact(s), ${s.forbidden_facts.length} forbidden, ${s.validators.length} validator(s))\n`,
      );
  } catch (error) {
    if (!(error instanceof ScenarioFileError)) throw error;
    if (opts.json) {
      printJson({ ok: false, problems: error.problems });
      setExitCode(EXIT.usage);
      return;
    }
    throw new CliError(error.message, EXIT.usage);
  }
}

// --- run -----------------------------------------------------------------

interface RunOpts {
  project?: string;
  against: string;
  arm?: string[];
  repeat?: string;
  out?: string;
  keep?: boolean;
  experimentRoot?: string;
  json?: boolean;
}

/** `NAME:native-memory=on|off,retrieval=on|off` (either setting may be left out: on, off). */
export function parseArm(text: string): ArmOption {
  const [name, settings = ""] = text.split(/:(.*)/s);
  if (!name || !ARM_NAME.test(name))
    throw new CliError(`--arm ${text}: a name of letters, digits, . _ - first`, EXIT.usage);
  const arm: ArmOption = { name, native_memory: true, retrieval: false };
  for (const part of settings.split(",").filter(Boolean)) {
    const m = /^(native-memory|retrieval)=(on|off)$/.exec(part.trim());
    if (!m)
      throw new CliError(
        `--arm ${text}: "${part}" is not native-memory=on|off or retrieval=on|off`,
        EXIT.usage,
      );
    if (m[1] === "native-memory") arm.native_memory = m[2] === "on";
    else arm.retrieval = m[2] === "on";
  }
  if (arm.retrieval)
    throw new CliError("--arm …retrieval=on: this build's replays cannot turn retrieval on yet", EXIT.usage);
  return arm;
}

function sampleLine(s: Sample): string {
  const head = `${s.against === "recorded" ? "recorded" : `replay ${s.arm} #${s.repetition}`}: ${s.passed ? "PASS" : "FAIL"}${s.run_session_id ? ` · ${s.run_session_id}` : ""}`;
  const checks = s.checks.map((c) => {
    const evidence = (c.evidence ?? "").split("\n")[0]!.slice(0, 160);
    return `  ${c.outcome.padEnd(12)} ${c.kind} ${c.id}: ${evidence}`;
  });
  const tail = [...(s.error ? [`  error: ${s.error}`] : []), ...s.notes.map((n) => `  note: ${n}`)];
  // Ids, evidence, errors and notes are the scenario's and the run's: each line one line.
  return [head, ...checks, ...tail].map(printable).join("\n");
}

function report(result: ScenarioResult, outPath: string | undefined): string {
  return `${fields`Scenario ${result.scenario.id} (${result.against})`}\n${result.samples.map(sampleLine).join("\n")}\n${result.passed ? "All checks pass" : "Some checks fail"}${outPath ? fields` · result written to ${outPath}` : ""}\n`;
}

async function runCommand(file: string, opts: RunOpts): Promise<void> {
  const project = projectFromOption(opts.project);
  if (!["recorded", "replay", "both"].includes(opts.against))
    throw new CliError(`--against takes recorded, replay or both, not "${opts.against}"`, EXIT.usage);
  const against = opts.against as Against;
  const repeat = opts.repeat === undefined ? 1 : Number(opts.repeat);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 100)
    throw new CliError("--repeat takes a whole number from 1 to 100", EXIT.usage);
  const arms = (opts.arm ?? ["replay"]).map(parseArm);
  if (new Set(arms.map((a) => a.name)).size !== arms.length)
    throw new CliError("--arm names must differ", EXIT.usage);
  const loaded = load(file);
  const outPath = opts.out ? outputPath(opts.out, project, [loaded.path]) : undefined;
  const progress = (line: string) => note(`${printable(line)}\n`);
  let result: ScenarioResult;
  let interrupted = false;
  try {
    ({ result, interrupted } = await runScenario(loaded, {
      project,
      against,
      arms,
      repeat,
      keep: opts.keep ?? false,
      ...(opts.experimentRoot ? { experimentRoot: resolve(opts.experimentRoot) } : {}),
      env: process.env,
      progress,
      replay: makeReplayRunner({
        project,
        keep: opts.keep ?? false,
        ...(opts.experimentRoot ? { experimentRoot: resolve(opts.experimentRoot) } : {}),
        env: process.env,
        progress,
      }),
    }));
  } catch (error) {
    if (error instanceof SessionNotFound || error instanceof ReplayUnavailable || isMissingForRun(error))
      throw new CliError(error.message, EXIT.failed);
    throw error;
  }
  if (outPath) writeFileAtomicSync(outPath, `${JSON.stringify(result, null, 2)}\n`);
  if (opts.json) printJson(result);
  else say(report(result, outPath));
  setExitCode(interrupted ? 130 : result.passed ? EXIT.ok : EXIT.failed);
}

// --- export --------------------------------------------------------------

interface ExportOpts {
  to: string;
  out: string;
  project?: string;
  withWorkspace?: boolean;
  json?: boolean;
}

function exportCommand(file: string, opts: ExportOpts): void {
  if (opts.to !== "promptfoo" && opts.to !== "inspect")
    throw new CliError(`--to takes promptfoo or inspect, not "${opts.to}"`, EXIT.usage);
  if (opts.withWorkspace && opts.to !== "promptfoo")
    throw new CliError("--with-workspace is for --to promptfoo (Inspect's sandbox has its own)", EXIT.usage);
  const loaded = load(file);
  const project = projectFromOption(opts.project);
  const dir = resolve(opts.out);
  refuseInsideArchive(dir, project, opts.out);
  ensureDir(dir);
  const files = exportScenario(loaded.scenario, opts.to as ExportTarget);
  const scenarioReal = realpathSync(loaded.path);
  for (const f of files) {
    const path = join(dir, f.name);
    if (existsSync(path) && realpathSync(path) === scenarioReal)
      throw new CliError(`--out ${opts.out} would overwrite the scenario file with ${f.name}`, EXIT.usage);
  }
  const workspace = join(dir, "workspace");
  if (opts.withWorkspace && existsSync(workspace))
    throw new CliError(`${workspace} exists: remove it, or leave out --with-workspace`, EXIT.usage);
  for (const f of files) {
    const path = join(dir, f.name);
    writeFileAtomicSync(path, f.text);
  }
  const notes = opts.withWorkspace ? makeWorkspace(project, loaded, workspace) : [];
  const names = [...files.map((f) => f.name), ...(opts.withWorkspace ? ["workspace/"] : [])];
  if (opts.json) printJson({ dir, files: names, workspace: opts.withWorkspace ? workspace : null, notes });
  else {
    for (const n of notes) note(fields`note: ${n}\n`);
    say(
      fields`${opts.to} export of ${loaded.scenario.id}: ${names.join(", ")} in ${dir} (see its README.md)\n`,
    );
  }
}

function makeWorkspace(project: string, loaded: LoadedScenario, workspace: string): string[] {
  try {
    return prepareWorkspace(project, loaded.scenario, workspace);
  } catch (error) {
    if (error instanceof IsolationError || error instanceof WorkspaceExists)
      throw new CliError(`--with-workspace: ${error.message}`, EXIT.failed);
    throw error;
  }
}

export function register(program: Command): void {
  const scenario = program
    .command("scenario")
    .description("a recorded session as a repeatable evaluation: from-session, check, run, export");
  scenario
    .command("from-session <session>")
    .description("derive a scenario from a recorded session's user prompts (the archive only)")
    .requiredOption("--out <file>", "where the scenario goes")
    .option("--events <A..B>", "only the events in this sequence range")
    .option("--id <id>", "the scenario's id (default: review-<session>)")
    .option("--force", "replace --out if it exists")
    .option("--project <dir>", PROJECT_HELP)
    .option("--provider <name>", "the provider the session must be")
    .option("--all-projects", "look for the session in every project the registry knows, too")
    .option("--json", "machine-readable output")
    .action(fromSessionCommand);
  scenario
    .command("check <file>")
    .description("validate a scenario file; every problem named by field and line (exit 2 when bad)")
    .option("--json", "machine-readable output")
    .action(checkCommand);
  scenario
    .command("run <file>")
    .description(
      "grade the recorded session, replays of it, or both (exit 0 all pass, 1 a check fails, 2 bad file)",
    )
    .option("--against <recorded|replay|both>", "recorded, replay or both", "recorded")
    .option(
      "--arm <spec>",
      "a replay arm NAME[:native-memory=on|off] (repeatable)",
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option("--repeat <n>", "replays per arm (default 1)")
    .option("--out <file>", "write the result artifact (scenario-result.v1) here")
    .option("--keep", "keep the replays' work trees")
    .option("--experiment-root <dir>", "where replays go (default: .tapedeck/experiments/)")
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "print the result artifact")
    .action(runCommand);
  scenario
    .command("export <file>")
    .description("write a runnable promptfoo config or Inspect task for the scenario")
    .requiredOption("--to <promptfoo|inspect>", "promptfoo or inspect")
    .requiredOption("--out <dir>", "the directory to write into")
    .option(
      "--with-workspace",
      "promptfoo: also make <dir>/workspace, a clone of the project at the scenario's revision with its workspace.files",
    )
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(exportCommand);
}
