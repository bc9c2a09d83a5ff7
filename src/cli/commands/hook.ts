// `tapedeck hook <provider>`: records one hook payload from stdin, as the installed hook does.
import type { Command } from "commander";
import { MAX_HOOK_INPUT_BYTES, runHook } from "../../core/hook/recorder.ts";
import { contextStep } from "../../memory/store/inject.ts";
import * as retrieval from "../../memory/store/retrieval.ts";
import { ADAPTERS, adapterFor, injectorFor } from "../../providers/registry.ts";
import { CliError, EXIT, printJson } from "../common.ts";
import { io } from "../io.ts";
import { readInput } from "../stdin.ts";

export function register(program: Command): void {
  program
    .command("hook <provider>")
    .description(`record one hook payload from stdin (providers: ${Object.keys(ADAPTERS).join(", ")})`)
    .option("--project <dir>", "record into this project instead of finding it from the payload")
    .option("--strict", "report problems on stderr and exit non-zero (for scripts; agents should not use it)")
    .option("--json", "print what was recorded")
    .action(async (provider: string, opts: { project?: string; strict?: boolean; json?: boolean }) => {
      const adapter = adapterFor(provider);
      if (!adapter) {
        if (opts.strict) throw new CliError(`unknown provider "${provider}"`, EXIT.usage);
        return;
      }
      // The installed hook's bound and its deadline for a stdin left open (core/hook/stdin.ts).
      const input = await readInput(MAX_HOOK_INPUT_BYTES, 10_000);
      const result = runHook(adapter, input, process.env, opts.project, {
        addContext: contextStep(injectorFor, () => retrieval),
      });
      if (opts.json) printJson(result);
      // As the installed hook: retrieval's added context is the hook's stdout.
      else if (result.output) io().stdout.write(result.output);
      if (opts.strict && result.status !== "recorded") {
        throw new CliError(
          `not recorded: ${result.status}${result.reason ? ` (${result.reason})` : ""}`,
          EXIT.failed,
        );
      }
    });
}
