// The test tiers, one vitest project each (vitest.config.ts), and the one rule of which file is in which:
//
// - unit: the code under test runs in the test's own process: no built bundle, no tapedeck child process,
//   no soak. `npm test` runs it with cli, in under a minute on two cores.
// - cli: the command line. Commands run in process through test/helpers/program.ts (runProgram); a file
//   about the built program itself (help, exit codes, the lazy chunks, the hook bundle, the MCP server's
//   stdio, the hook client) runs dist/ and is named `*.cli.test.ts` outside test/cli/.
// - soak: kills, many processes at once, lock holders, full builds, the long generated runs: `*.soak.test.ts`.
// - e2e: the real agent CLIs, Chromium, promptfoo, ccusage and the other real programs a test needs
//   installed (test/e2e/, or `*.e2e.test.ts`); each file tags the agents and peers it runs.
//
// test/architecture/tiers.test.ts holds every file to its tier.
//
// The unit and cli files of a worker share one module graph (vitest's `isolate: false`): each file's own
// imports of src/ took 21 s of a 45 s unit run when every file loaded them afresh; shared, the run takes 25 s
// (the cli tier's CPU time goes from 66 s to 60 s: its time is the programs it starts). A file that replaces
// a module for its test (vi.mock, vi.doMock), or adds to the provider catalog that other modules read at
// load, needs the graph to itself (a module another file loaded first would not see the change, or would
// keep it): it is named `*.isolated.test.ts` and runs isolated.

export interface Tier {
  name: "unit" | "cli" | "soak" | "e2e";
  include: readonly string[];
  exclude: readonly string[];
}

const SOAK = "test/**/*.soak.test.ts";
const E2E = ["test/e2e/**/*.test.ts", "test/**/*.e2e.test.ts"];
const CLI = ["test/cli/**/*.test.ts", "test/**/*.cli.test.ts"];

/** The files that replace a module: vitest projects of their own ("unit-isolated", "cli-isolated"). */
export const ISOLATED = "test/**/*.isolated.test.ts";

export const TIERS: readonly Tier[] = [
  // The workspace packages' own tests (packages/redact/test/) are unit tests of the package.
  {
    name: "unit",
    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    exclude: [...CLI, SOAK, ...E2E],
  },
  { name: "cli", include: CLI, exclude: [SOAK, ...E2E] },
  { name: "soak", include: [SOAK], exclude: E2E },
  { name: "e2e", include: E2E, exclude: [] },
];

/** What an e2e file may tag itself with: the agents, and the other real programs it runs. */
export const AGENT_TAGS = [
  "claude",
  "codex",
  "gemini",
  "chromium",
  "promptfoo",
  "ccusage",
  "zsh",
  "man",
  "phoenix",
  "jaeger",
  "otelcol",
  "inspect",
] as const;

/** `npm run test:e2e claude`: only this agent's rows of a file over several agents (undefined: all). */
export function e2eAgent(): string | undefined {
  return process.env.TAPEDECK_E2E_AGENT || undefined;
}
