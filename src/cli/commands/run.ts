// `tapedeck run <agent> [args...]`: the agent through a temporary proxy; tapedeck's options first, the
// agent's passed on exactly, the agent's exit code kept.
import { spawn } from "node:child_process";
import type { Command } from "commander";
import { CATALOG } from "../../providers/catalog.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { io, setExitCode } from "../io.ts";
import { type ProxyOpts, startProxyFor, stderrLog, withProxyOptions } from "../proxy-start.ts";

async function runCommand(agent: string, args: string[], opts: ProxyOpts): Promise<void> {
  const runnable = Object.keys(CATALOG).filter((name) => CATALOG[name]?.launcher);
  const launcher = runnable.includes(agent) ? CATALOG[agent]?.launcher : undefined;
  if (!launcher) throw new CliError(`cannot run "${agent}" (available: ${runnable.join(", ")})`, EXIT.usage);
  const launch = launcher.launch(args, {
    ...(opts.upstream ? { upstream: opts.upstream } : {}),
    env: process.env,
  });
  // The agent owns the terminal: the proxy speaks only when asked to (--verbose).
  const log = opts.verbose ? stderrLog({ verbose: true, warnUpstream: true }) : undefined;
  const { proxy } = await startProxyFor(opts, launch.upstream, log);
  const spec = launch.through(proxy);
  const child = spawn(launch.binary, spec.args, { stdio: "inherit", env: spec.env });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const handlers = signals.map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  const code = await new Promise<number>((resolve) => {
    child.on("error", (error) => {
      io().stderr.write(
        `tapedeck: cannot run ${agent}: ${(error as NodeJS.ErrnoException).code ?? "error"}\n`,
      );
      resolve(127);
    });
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 128 + (signalNumber(signal) ?? 1) : 1)));
  });
  for (const [s, h] of handlers) process.off(s, h);
  await proxy.close();
  setExitCode(code);
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  return ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15, SIGKILL: 9 } as Record<string, number>)[signal];
}

/**
 * `run`'s arguments after the agent's name: tapedeck's own options at the front (up to the first token that is
 * not one, or `--`), then the agent's arguments, passed on exactly.
 */
export function splitRunArgs(cmd: Command, args: readonly string[]): { ours: string[]; agent: string[] } {
  const ours: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return { ours, agent: args.slice(i + 1) };
    const flag = a.split("=", 1)[0]!;
    const opt = cmd.options.find((o) => o.long === flag || o.short === flag);
    if (!opt) return { ours, agent: args.slice(i) };
    ours.push(a);
    if ((opt.required || opt.optional) && !a.includes("=") && i + 1 < args.length) ours.push(args[++i]!);
  }
  return { ours, agent: [] };
}

export function register(program: Command): void {
  withProxyOptions(
    program
      .command("run <agent> [args...]")
      .description(
        "run claude or codex through a temporary proxy: tapedeck run claude -p 'hello', tapedeck run codex exec 'hello'. " +
          "tapedeck's own options go before the agent's first option; everything from there (or after --) is the agent's",
      )
      // `run claude -p hi`: -p is claude's. Everything after the agent's name reaches the action, which takes
      // tapedeck's options from its front only (splitRunArgs): `run claude -p x --verbose` is claude's --verbose.
      .passThroughOptions()
      .option(
        "--upstream <url>",
        "the API to forward to (default: claude: $ANTHROPIC_BASE_URL or the Anthropic API; codex: its provider's base_url)",
      ),
  ).action((agent: string, args: string[], _opts: ProxyOpts, cmd: Command) => {
    const split = splitRunArgs(cmd, args);
    cmd.parseOptions(split.ours);
    return runCommand(agent, split.agent, cmd.opts<ProxyOpts>());
  });
}
