// `tapedeck view`: the local viewer (src/viewer/server.ts) on 127.0.0.1 with a per-run token in its URL,
// until interrupted.
import type { Command } from "commander";
import { registeredProjects } from "../../core/read/registry-projects.ts";
import { openInBrowser } from "../../viewer/launcher.ts";
import { readScenarioResult, ScenarioResultError } from "../../viewer/scenario-results.ts";
import { startViewer } from "../../viewer/server.ts";
import { CliError, EXIT, note, printJson, projectFromOption, say } from "../common.ts";
import { PROJECT_HELP } from "../options.ts";
import { resolveSessionArg } from "../session-arg.ts";

interface ViewOpts {
  project?: string;
  provider?: string;
  port?: string;
  open?: boolean;
  allProjects?: boolean;
  json?: boolean;
  scenarioResult?: string[];
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new CliError(`--port: "${value}" is not a port number`, EXIT.usage);
  }
  return Number(value);
}

/** No opener (a server, CI) just leaves the printed URL to the user. */
const cannotOpen = (why: string) => note(`tapedeck: could not open a browser (${why}); open the URL above\n`);

async function viewCommand(session: string | undefined, opts: ViewOpts): Promise<void> {
  const port = parsePort(opts.port);
  let scenarioResults: ReturnType<typeof readScenarioResult>[];
  try {
    scenarioResults = (opts.scenarioResult ?? []).map(readScenarioResult);
  } catch (error) {
    if (error instanceof ScenarioResultError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  // A SESSION opens at once; found in another project (--all-projects), that project is listed too.
  const opened = session === undefined ? undefined : resolveSessionArg(session, opts);
  const here = projectFromOption(opts.project);
  const projects = opts.allProjects
    ? [...new Set([here, ...registeredProjects().present])]
    : [...new Set([here, ...(opened ? [opened.project] : [])])];
  let viewer: Awaited<ReturnType<typeof startViewer>>;
  try {
    viewer = await startViewer({ projects, port, scenarioResults });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new CliError(`port ${port} is in use`, EXIT.failed);
    throw new CliError(`cannot start the viewer: ${(error as Error).message}`, EXIT.failed);
  }
  const url = (opened && viewer.sessionUrl(opened.dir)) || viewer.url;
  if (opts.json) printJson({ url });
  else {
    say(`tapedeck viewer: ${url}\n`);
    note("Read-only, on 127.0.0.1 only; the URL's token is the key: do not share it. Ctrl-C stops.\n");
  }
  // The opener gets a forwarding page's path, never the URL: its command line is anyone's to read.
  const launcher = opts.open !== false ? openInBrowser(url, cannotOpen) : undefined;
  await new Promise<void>((resolve) => {
    const stop = () => {
      launcher?.remove();
      void viewer.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

export function register(program: Command): void {
  program
    .command("view [session]")
    .description(
      "browse recorded sessions in a local, read-only web page (127.0.0.1, per-run token); SESSION opens one",
    )
    .option("--project <dir>", PROJECT_HELP)
    .option("--port <n>", "port on 127.0.0.1 (default: any free port)")
    .option("--no-open", "print the URL without opening a browser")
    .option("--provider <name>", "with SESSION: the provider the session must be")
    .option("--all-projects", "every project the registry knows, not only this one")
    .option(
      "--scenario-result <file>",
      "also show a scenario result artifact (tapedeck scenario run --out; repeatable)",
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option("--json", 'print {"url"} as JSON')
    .action(viewCommand);
}
