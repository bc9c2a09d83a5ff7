// `tapedeck redact`: the recording's redaction as a filter, stdin to stdout.
import { readFileSync } from "node:fs";
import { explainText, type RedactionRules, redactText } from "@tapedeck/redact";
import { loadRedactionRules, RULES_FILE } from "@tapedeck/redact/rules-file";
import type { Command } from "commander";
import { CliError, EXIT, printJson } from "../common.ts";
import { io } from "../io.ts";
import { projectRoot } from "../project.ts";

interface RedactOpts {
  jsonl?: boolean;
  summary?: boolean;
  explain?: boolean;
  json?: boolean;
  project?: string;
  rules?: boolean;
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io().stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A file to explain: a regular file, read whole. Errors name the file, never its content. */
function readInput(file: string | undefined): Promise<string> | string {
  if (file === undefined || file === "-") return readAll();
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(
      `cannot read ${file}${code ? ` (${code})` : ""}`,
      code === "ENOENT" ? EXIT.notFound : EXIT.failed,
    );
  }
}

/** The project's rule file, if any. An invalid one is an error here: the user asked to see the policy. */
function projectRules(opts: RedactOpts): RedactionRules | undefined {
  if (opts.rules === false) return undefined;
  const loaded = loadRedactionRules(projectRoot(opts.project));
  if (loaded.error) throw new CliError(loaded.error, EXIT.failed);
  return loaded.rules;
}

/** Streams `{"id","text"}` lines, redacting only `text`; other fields pass through. */
async function redactJsonl(rules: RedactionRules | undefined): Promise<number> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: io().stdin, crlfDelay: Number.POSITIVE_INFINITY });
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
    const out = redactText(record.text, rules);
    total += out.kinds.length;
    io().stdout.write(`${JSON.stringify({ ...record, text: out.text })}\n`);
  }
  return total;
}

/** Which rule fired where: kinds and byte ranges only, so the report itself leaks nothing. */
async function explain(
  file: string | undefined,
  opts: RedactOpts,
  rules: RedactionRules | undefined,
): Promise<void> {
  const text = await readInput(file);
  const report = explainText(text, rules);
  const source = file === undefined || file === "-" ? "stdin" : file;
  if (opts.json) {
    printJson({ file: source, project_rules: rules !== undefined, ...report });
    return;
  }
  const lines: string[] = [];
  if (report.omitted !== undefined) {
    lines.push(`${source}: the whole text would be omitted as ${report.omitted} (${report.bytes} bytes)`);
  } else if (report.hits.length === 0) {
    lines.push(`${source}: nothing to redact (${report.bytes} bytes)`);
  } else {
    lines.push(`${source}: ${report.hits.length} redaction(s) in ${report.bytes} bytes`);
    for (const h of report.hits)
      lines.push(`  ${h.kind.padEnd(24)} bytes ${h.offset}..${h.offset + h.length} (${h.length})`);
  }
  if (rules !== undefined) {
    lines.push(
      `project rules: ${rules.patterns.length} pattern(s), ${rules.allow.size} allowed literal(s) from ${RULES_FILE}`,
    );
  }
  io().stdout.write(`${lines.join("\n")}\n`);
}

export function register(program: Command): void {
  program
    .command("redact [file]")
    .description("redact credentials from stdin to stdout, with the same policy as recording")
    .option("--jsonl", 'read lines of {"id","text"} and write them back with "text" redacted')
    .option("--summary", "print the number of redactions to stderr")
    .option(
      "--explain",
      "show which rule fired where in FILE (or stdin): kinds and byte ranges, never the secret",
    )
    .option("--json", "with --explain: the report as JSON")
    .option("--project <dir>", `project whose ${RULES_FILE} applies (default: the current project)`)
    .option("--no-rules", `ignore the project's ${RULES_FILE}`)
    .addHelpText(
      "after",
      `\nProject rules: ${RULES_FILE} adds patterns and allow-listed literals (see packages/redact/README.md).\n` +
        "Exit codes: 0 ok, 1 failure (e.g. an invalid rule file), 2 usage, 3 file not found.",
    )
    .action(async (file: string | undefined, opts: RedactOpts) => {
      if (opts.json && !opts.explain) throw new CliError("--json needs --explain", EXIT.usage);
      if (file !== undefined && !opts.explain)
        throw new CliError("a FILE argument needs --explain", EXIT.usage);
      const rules = projectRules(opts);
      if (opts.explain) return explain(file, opts, rules);
      let count: number;
      if (opts.jsonl) {
        count = await redactJsonl(rules);
      } else {
        const out = redactText(await readAll(), rules);
        io().stdout.write(out.text);
        count = out.kinds.length;
      }
      if (opts.summary) io().stderr.write(`${count} redaction(s)\n`);
    });
}
