import type { Command } from "commander";
import { redactText } from "../core/redact.ts";
import { CliError, EXIT } from "./common.ts";

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Streams `{"id","text"}` lines, redacting only `text`; other fields pass through. */
async function redactJsonl(): Promise<number> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNo = 0;
  let total = 0;
  for await (const line of rl) {
    lineNo += 1;
    if (line.trim() === "") continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new CliError(`line ${lineNo}: not valid JSON`, EXIT.usage);
    }
    if (record === null || typeof record !== "object" || typeof record.text !== "string") {
      throw new CliError(`line ${lineNo}: expected an object with a string "text"`, EXIT.usage);
    }
    const out = redactText(record.text);
    total += out.kinds.length;
    process.stdout.write(`${JSON.stringify({ ...record, text: out.text })}\n`);
  }
  return total;
}

export function registerRedactCommand(program: Command): void {
  program
    .command("redact")
    .description("redact credentials from stdin to stdout, with the same policy as recording")
    .option("--jsonl", 'read lines of {"id","text"} and write them back with "text" redacted')
    .option("--summary", "print the number of redactions to stderr")
    .action(async (opts: { jsonl?: boolean; summary?: boolean }) => {
      let count: number;
      if (opts.jsonl) {
        count = await redactJsonl();
      } else {
        const out = redactText(await readAll());
        process.stdout.write(out.text);
        count = out.kinds.length;
      }
      if (opts.summary) process.stderr.write(`${count} redaction(s)\n`);
    });
}
