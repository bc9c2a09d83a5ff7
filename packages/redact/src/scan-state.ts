// What one scan shares between its parts: the scan (./scan.ts) resets both at the start of every text,
// and the handlers that read or move them run inside it. Objects, because another module's `let` cannot
// be assigned through an import.

export const scanState = {
  /** End of the last value redacted by key; key/flag anchors before it are already covered. */
  keyedEnd: 0,
  /** Start of the last line ./printed.ts examined for a command that prints a secret. */
  printedLine: -1,
  /** End of the last output ./printed.ts redacted; a command inside it was part of that output. */
  printedEnd: 0,
  /** The text ./printed.ts last asked whether it has a real line break, and the answer. */
  newlineIn: "",
  hasNewline: false,
  /** Whether a colon of the text followed a path at a line's start and preceded a line number: grep's. */
  grepLine: false,
  /** Where ./printed.ts last found (or failed to find, -2) an output field after a serialized command. */
  outputField: -1,
};

/** Per-scan memo for commandBefore (./command-line.ts). */
export const cmdCache: { re: RegExp | null; at: number; found: boolean } = { re: null, at: 0, found: false };
