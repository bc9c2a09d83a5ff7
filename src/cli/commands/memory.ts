// `tapedeck memory list|show|search|edit|forget|export|verify`: the promoted memory (.tapedeck/memory.sqlite).
// Everything but `edit` and `forget` only reads, and opens the file read-only: a project with nothing promoted
// has none.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { fields, printable, printableText } from "../../core/base/printable.ts";
import {
  type EditChange,
  editItem,
  editorText,
  parseEditorText,
  previewEdit,
} from "../../memory/store/edit.ts";
import { exportMemory } from "../../memory/store/export.ts";
import { ITEM_KINDS, type MemoryItem, type MemoryKind } from "../../memory/store/items.ts";
import { type MemoryHit, type MemoryStore, openMemory } from "../../memory/store/store.ts";
import { type VerifyFinding, verifyMemory } from "../../memory/store/verify.ts";
import { CliError, confirm, EXIT, formatBytes, note, printJson, projectFromOption, say } from "../common.ts";
import { io, setExitCode } from "../io.ts";
import { PROJECT_HELP } from "../options.ts";
import { readInputText } from "../stdin.ts";

interface MemoryOpts {
  project?: string;
  json?: boolean;
}

/** Read-only; undefined when nothing was ever promoted here. */
function readStore(opts: MemoryOpts): MemoryStore | undefined {
  return openMemory(projectFromOption(opts.project), { readonly: true });
}

function withStore<T>(opts: MemoryOpts, empty: () => T, fn: (s: MemoryStore) => T): T {
  const store = readStore(opts);
  if (!store) return empty();
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** The item `id` names; not found is the same error for show, edit and forget. */
function itemById(opts: MemoryOpts, id: string): MemoryItem {
  const item = withStore(
    opts,
    () => undefined,
    (s) => s.get([id])[0],
  );
  if (!item) throw new CliError(`no memory item ${printable(id)}`, EXIT.notFound);
  return item;
}

function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new CliError(`${name} must be a positive whole number`, EXIT.usage);
  }
  return Number(value);
}

function sourceText(item: Pick<MemoryItem, "source">): string {
  const s = item.source;
  const seq = s.seq_from === s.seq_to ? `${s.seq_from}` : `${s.seq_from}-${s.seq_to}`;
  return `${printable(s.session_id)} #${seq}`;
}

// --- list ----------------------------------------------------------------

interface ListOpts extends MemoryOpts {
  session?: string;
  kind?: string;
  limit?: string;
}

function listCommand(opts: ListOpts): void {
  if (opts.kind !== undefined && !(ITEM_KINDS as readonly string[]).includes(opts.kind)) {
    throw new CliError(`unknown item kind "${opts.kind}" (kinds: ${ITEM_KINDS.join(", ")})`, EXIT.usage);
  }
  const limit = intOption(opts.limit, "--limit", 100);
  const items = withStore(
    opts,
    () => [],
    (s) => s.list({ limit, session: opts.session, kind: opts.kind as MemoryKind | undefined }),
  );
  if (opts.json) {
    printJson(items.map(({ body, ...rest }) => ({ ...rest, bytes: Buffer.byteLength(body) })));
    return;
  }
  if (items.length === 0) {
    say("No promoted memory here yet (tapedeck promote SESSION)\n");
    return;
  }
  for (const i of items) {
    const label = i.label ? `  [${printable(i.label)}]` : "";
    say(
      `${printable(i.id)}  ${printable(i.kind).padEnd(18)} ${sourceText(i).padEnd(30)} ${printable(i.title)}${label}\n`,
    );
  }
}

// --- show ----------------------------------------------------------------

function showCommand(id: string, opts: MemoryOpts): void {
  const item = itemById(opts, id);
  if (opts.json) {
    printJson(item);
    return;
  }
  say(itemText(item));
}

function itemText(item: MemoryItem): string {
  const s = item.source;
  const label = item.label ? `Set: ${printable(item.label)}\n` : "";
  const edited = item.edited_at ? fields` · edited ${item.edited_at}` : "";
  return (
    `${printable(item.title)}\n` +
    fields`${item.id} · ${item.kind} · ${formatBytes(Buffer.byteLength(item.body))}` +
    `${item.truncated ? " (cut to 4 KiB)" : ""}${fields` · promoted ${item.created_at}`}${edited}\n` +
    label +
    `Source: ${printable(s.provider)} ${sourceText(item)}${s.agent_id ? ` agent ${printable(s.agent_id)}` : ""}, ` +
    `events ${s.event_ids.map(printable).join(", ")}\n` +
    fields`Archive: sha256 ${s.archive_sha256} of its first ${s.archive_bytes} bytes (envelope v${s.envelope_schema_version})` +
    "\n\n" +
    `${printableText(item.body)}\n`
  );
}

// --- search --------------------------------------------------------------

interface SearchOpts extends MemoryOpts {
  limit?: string;
}

function searchCommand(query: string, opts: SearchOpts): void {
  const limit = intOption(opts.limit, "--limit", 10);
  const hits: MemoryHit[] = withStore(
    opts,
    () => [],
    (s) => s.search(query, { limit }),
  );
  if (opts.json) printJson({ hits });
  else if (hits.length === 0) say("No matches in promoted memory\n");
  else {
    for (const h of hits) {
      say(
        `${fields`${h.id}  ${h.kind}`}  ${sourceText(h)}  ${printable(h.title)}\n    ${printable(h.snippet)}\n`,
      );
    }
  }
  // As `tapedeck search`: exit 1 when nothing matched, for scripts.
  if (hits.length === 0) setExitCode(EXIT.failed);
}

// --- edit ----------------------------------------------------------------

interface EditOpts extends MemoryOpts {
  title?: string;
  text?: string;
  textFile?: string;
  dryRun?: boolean;
}

async function changeOf(opts: EditOpts): Promise<EditChange | undefined> {
  if (opts.text !== undefined && opts.textFile !== undefined) {
    throw new CliError("--text and --text-file are one or the other", EXIT.usage);
  }
  const change: EditChange = {};
  if (opts.title !== undefined) change.title = opts.title;
  if (opts.text !== undefined) change.text = opts.text;
  if (opts.textFile !== undefined) {
    change.text = opts.textFile === "-" ? await readInputText() : readFileSync(opts.textFile, "utf8");
  }
  return change.title === undefined && change.text === undefined ? undefined : change;
}

/**
 * The item in the user's editor ($VISUAL, $EDITOR, else vi): the title on the first line, a blank line, the
 * text. The file is the user's own words, in a 0700 directory of their own, 0600, and removed afterwards.
 */
function changeInEditor(item: MemoryItem): EditChange {
  if (!io().stdin.isTTY || !io().stdout.isTTY) {
    throw new CliError("memory edit needs --title, --text or --text-file without a terminal", EXIT.usage);
  }
  const editor = process.env.VISUAL || process.env.EDITOR || "vi";
  const dir = mkdtempSync(join(tmpdir(), "tapedeck-edit-"));
  try {
    const file = join(dir, `${item.id}.txt`);
    writeFileSync(file, editorText(item), { mode: 0o600, flag: "wx" });
    note("tapedeck: the first line is the title, then a blank line, then the text\n");
    // Through the shell, as git does: EDITOR may carry arguments ("code --wait").
    const run = spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
    if (run.status !== 0) throw new CliError(`the editor (${printable(editor)}) failed: nothing changed`);
    return parseEditorText(readFileSync(file, "utf8"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function editCommand(id: string, opts: EditOpts): Promise<void> {
  const project = projectFromOption(opts.project);
  const found = itemById(opts, id);
  const change = (await changeOf(opts)) ?? changeInEditor(found);
  if (opts.dryRun) {
    const next = previewEdit(project, found, change);
    if (opts.json) printJson({ dry_run: true, item: next });
    else say(`${itemText(next)}\nNothing stored (--dry-run).\n`);
    return;
  }
  const store = openMemory(project);
  if (!store) throw new CliError("the memory store could not be opened");
  try {
    const r = editItem(store, project, found.id, change);
    if (opts.json) printJson({ edited: r.changed ? r.after.id : null, item: r.after });
    else if (!r.changed) say(fields`${r.after.id} is unchanged (the same title and text once redacted)\n`);
    else say(`${fields`Edited ${r.after.id}`}\n\n${itemText(r.after)}`);
  } finally {
    store.close();
  }
}

// --- forget --------------------------------------------------------------

interface ForgetOpts extends MemoryOpts {
  yes?: boolean;
}

async function forgetCommand(id: string, opts: ForgetOpts): Promise<void> {
  const project = projectFromOption(opts.project);
  const found = itemById(opts, id);
  if (!opts.yes) {
    const ok = await confirm(fields`Forget ${found.id} (${found.kind}: ${found.title})?`);
    if (!ok) {
      throw new CliError(
        io().stdin.isTTY ? "not forgotten" : "not forgotten: pass --yes to forget without a terminal",
        EXIT.usage,
      );
    }
  }
  const store = openMemory(project);
  let removed = false;
  try {
    removed = store?.forget(found.id) ?? false;
  } finally {
    store?.close();
  }
  // Forgotten by someone else between the look-up and now: the outcome the user asked for, said as it is.
  if (opts.json) printJson({ forgotten: removed ? found.id : null });
  else say(removed ? fields`Forgot ${found.id}\n` : fields`${found.id} was already gone\n`);
}

// --- export --------------------------------------------------------------

interface ExportOpts extends MemoryOpts {
  format: string;
}

function exportCommand(opts: ExportOpts): void {
  if (opts.format !== "jsonl" && opts.format !== "md") {
    throw new CliError(`unknown format "${opts.format}" (use jsonl or md)`, EXIT.usage);
  }
  const format = opts.format;
  const n = withStore(
    opts,
    () => exportMemory(emptyStore, format, (t) => io().stdout.write(t)),
    (s) => exportMemory(s, format, (t) => io().stdout.write(t)),
  );
  note(`Exported ${n} memory item(s)\n`);
}

const emptyStore = {
  iterate: function* () {},
} as unknown as MemoryStore;

// --- verify --------------------------------------------------------------

function verifyCommand(opts: MemoryOpts): void {
  const project = projectFromOption(opts.project);
  const report = withStore(
    opts,
    () => ({ checked: 0, ok: 0, findings: [] }),
    (s) => verifyMemory(project, s, (n) => note(`tapedeck: verified ${n.toLocaleString("en-US")} items\n`)),
  );
  if (opts.json) printJson(report);
  else {
    for (const f of report.findings) {
      say(
        `${f.id}  ${f.problem.padEnd(8)} ${printable(f.session_id)}: ${f.reason}  (${printable(f.title)})\n`,
      );
    }
    say(`${report.checked} item(s) checked: ${verdict(report.findings)}\n`);
  }
  if (report.findings.length > 0) setExitCode(EXIT.failed);
}

/** The summary line's verdict: what was found, by kind. */
function verdict(findings: readonly VerifyFinding[]): string {
  if (findings.length === 0) return "every item is as tapedeck wrote it, every source intact";
  const count = (ps: string[]) =>
    new Set(findings.filter((f) => ps.includes(f.problem)).map((f) => f.id)).size;
  const parts: string[] = [];
  const tampered = count(["tampered"]);
  const unproven = count(["unproven"]);
  const sources = count(["gone", "changed"]);
  if (tampered > 0) parts.push(`${tampered} changed outside tapedeck (never given to the agent)`);
  if (unproven > 0) parts.push(`${unproven} without a proof of their own`);
  if (sources > 0) parts.push(`${sources} with a source gone or changed`);
  return `${parts.join(", ")}; the items are kept`;
}

export function register(program: Command): void {
  const memory = program
    .command("memory")
    .description(
      "the promoted memory (.tapedeck/memory.sqlite): list, show, search, edit, forget, export, verify",
    );
  memory
    .command("list")
    .description("promoted items, newest first")
    .option("--session <id>", "only items from this session (id, archive id or prefix)")
    .option(`--kind <${ITEM_KINDS.join("|")}>`, "only this kind")
    .option("--limit <n>", "at most this many (default 100)")
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(listCommand);
  memory
    .command("show <id>")
    .description("one item in full, with its source")
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(showCommand);
  memory
    .command("search <query>")
    .description('ranked matches: words, "phrases", prefix*, OR, -word, kind:K, provider:P, session:S')
    .option("--limit <n>", "at most this many hits (default 10, at most 100)")
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(searchCommand);
  memory
    .command("edit <id>")
    .description(
      "change an item's title or text (redacted again; its source stays); opens $EDITOR without options",
    )
    .option("--title <text>", "the new title")
    .option("--text <text>", "the new text")
    .option("--text-file <path>", "the new text from a file (- for stdin)")
    .option("--dry-run", "show the item as it would be stored, change nothing")
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(editCommand);
  memory
    .command("forget <id>")
    .description("delete one item from memory (asks first; the recording is not touched)")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(forgetCommand);
  memory
    .command("export")
    .description("every item, oldest first, to stdout as JSONL or Markdown")
    .requiredOption("--format <jsonl|md>", "jsonl or md")
    .option("--project <dir>", PROJECT_HELP)
    .action(exportCommand);
  memory
    .command("verify")
    .description(
      "check each item's proof and re-read its source: report items changed outside tapedeck, unproven, or whose session is gone or changed (exit 1)",
    )
    .option("--project <dir>", PROJECT_HELP)
    .option("--json", "machine-readable output")
    .action(verifyCommand);
}
