// The offline claude runner lives in src/demo/ (the demo uses it too).
export * from "../../src/demo/claude-offline.ts";
