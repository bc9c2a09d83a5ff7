// The bundled hook entry: `node dist/hook.js <provider>`. It loads only the
// hot path (no CLI framework, no schema library), reads the payload, records
// it, and exits 0 with nothing on stdout whatever happens.
import { runHook } from "./core/recorder.ts";
import { readStdinBounded } from "./core/stdin.ts";
import { adapterFor } from "./providers/registry.ts";

async function main(): Promise<void> {
  const provider = process.argv[2] ?? "";
  const adapter = adapterFor(provider);
  if (!adapter) return;
  const input = await readStdinBounded();
  runHook(adapter, input, process.env);
}

main()
  .catch(() => {
    // Recording never hurts the agent: failures were logged without content where possible.
  })
  .finally(() => {
    process.exitCode = 0;
  });
