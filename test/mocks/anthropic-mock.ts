// The mock Anthropic Messages API, runnable on its own:
//   npx tsx test/mocks/anthropic-mock.ts --port 18081 --log requests.jsonl
// It lives in src/demo/ because `tapedeck demo` ships it as the built-in mock model.
export * from "../../src/demo/anthropic-mock.ts";

import { pathToFileURL } from "node:url";
import { startAnthropicMock } from "../../src/demo/anthropic-mock.ts";

function argValue(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const mock = await startAnthropicMock({
    port: Number(argValue(argv, "--port") ?? 18081),
    logFile: argValue(argv, "--log"),
  });
  process.stdout.write(`anthropic mock listening on ${mock.url}\n`);
  const stop = () => {
    mock.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
