// `tapedeck promote <session>`: selected events of a recorded session → durable memory items, after a redacted
// preview of exactly what will be stored and a confirmation (`--yes` for scripts).
import { relative } from "node:path";
import type { Command } from "commander";
import { EVENT_KINDS } from "../../core/kinds.ts";
import { printable, printableJson } from "../../core/printable.ts";
import type { MemoryItem } from "../../memory/items.ts";
import {
  currentRules,
  forEachItem,
  forEachStored,
  type PassOptions,
  type PromotionPlan,
  parseFieldList,
  parseKinds,
  parseRange,
  parseSeqList,
  planPromotion,
  type Selection,
  writePromotion,
} from "../../memory/promote.ts";
import type { ScanProgress } from "../../memory/source.ts";
import { memoryPath, openMemory } from "../../memory/store.ts";
import { CliError, confirm, EXIT, formatBytes, note, say } from "../common.ts";
import { offerWords, withSessionOptions } from "../options.ts";
import { resolveSessionArg, type SessionOpts, withAllProjects } from "../session-arg.ts";

interface PromoteOpts extends SessionOpts {
  events?: string;
  kinds?: string;
  excludeEvents?: string;
  excludeFields?: string;
  title?: string;
  dryRun?: boolean;
  yes?: boolean;
}

const BODY_PREVIEW_LINES = 6;
const IDS_SHOWN = 20;
const PREVIEW_LINE_CHARS = 160;

function selection(opts: PromoteOpts): Selection {
  const sel: Selection = {
    kinds: parseKinds(opts.kinds),
    excludeEvents: opts.excludeEvents ? parseSeqList(opts.excludeEvents) : [],
    excludeFields: parseFieldList(opts.excludeFields),
  };
  if (opts.events !== undefined) sel.range = parseRange(opts.events);
  if (opts.title !== undefined) sel.title = opts.title;
  return sel;
}

/** Progress on stderr, every 10,000 lines (a small session prints none). */
function progress(phase: string): (p: ScanProgress) => void {
  return (p) =>
    note(
      `tapedeck: ${phase}: ${p.lines.toLocaleString("en-US")} events, ${formatBytes(p.bytes)} of ${formatBytes(p.total)}\n`,
    );
}

async function promoteCommand(query: string, opts: PromoteOpts): Promise<void> {
  const ref = resolveSessionArg(query, opts);
  const project = ref.project;
  const sel = selection(opts);
  const rules = currentRules(project);
  const plan = planPromotion(ref, sel, { rules, onProgress: progress("reading") });
  const show = opts.json ? note : say;
  if (plan.spooled > 0) {
    note(
      `tapedeck: ${plan.spooled} event(s) wait in the spool and are not promoted; run tapedeck repair first\n`,
    );
  }
  if (plan.items === 0) {
    throw new CliError(
      `nothing to promote in ${printable(plan.session_id)} with this selection`,
      EXIT.notFound,
    );
  }
  const pass: PassOptions = { rules, onProgress: progress("storing") };
  if (opts.dryRun) return dryRun(ref, sel, plan, pass, opts.json === true);
  show(previewText(plan));
  if (!opts.yes) {
    const where = relative(project, memoryPath(project));
    const ok = await confirm(`Store ${plan.items} item(s) (${formatBytes(plan.body_bytes)}) in ${where}?`);
    if (!ok) {
      throw new CliError(
        process.stdin.isTTY ? "not promoted" : "not promoted: pass --yes to promote without a terminal",
        EXIT.usage,
      );
    }
  }
  const store = openMemory(project);
  if (!store) throw new CliError("the memory store could not be opened");
  try {
    const result = writePromotion(store, ref, sel, plan, pass);
    if (opts.json) {
      const stream = new JsonItems({ created: result.created, existing: result.existing });
      forEachStored(store, ref, sel, plan, { rules, onProgress: progress("listing") }, stream.item);
      stream.end();
    } else say(resultText(plan, result, relative(project, store.path)));
  } finally {
    store.close();
  }
}

function dryRun(
  ref: Parameters<typeof forEachItem>[0],
  sel: Selection,
  plan: PromotionPlan,
  pass: PassOptions,
  json: boolean,
): void {
  if (json) {
    const stream = new JsonItems({ dry_run: true, created: [], existing: [] });
    forEachItem(ref, sel, plan, pass, stream.item);
    stream.end();
    return;
  }
  say(summaryText(plan));
  forEachItem(ref, sel, plan, pass, (item) => say(itemText(item, Number.POSITIVE_INFINITY)));
  say("Nothing stored (--dry-run).\n");
}

/** `{"created":[…],"existing":[…],"items":[…]}`, items written as they come: no list of them is held. */
class JsonItems {
  private first = true;

  constructor(head: Record<string, unknown>) {
    const fields = Object.entries(head).map(([k, v]) => `${JSON.stringify(k)}: ${printableJson(v)},\n`);
    process.stdout.write(`{\n${fields.join("")}"items": [\n`);
  }

  readonly item = (item: MemoryItem): void => {
    process.stdout.write(`${this.first ? "" : ",\n"}${printableJson(item)}`);
    this.first = false;
  };

  end(): void {
    process.stdout.write("\n]\n}\n");
  }
}

function summaryText(plan: PromotionPlan): string {
  const kinds = Object.entries(plan.by_kind)
    .map(([k, n]) => `${k} ${n}`)
    .join(" · ");
  const cut = plan.truncated > 0 ? ` · ${plan.truncated} cut to 4 KiB` : "";
  const skipped = plan.lines_skipped > 0 ? ` · ${plan.lines_skipped} unreadable line(s) skipped` : "";
  return (
    `Promote from ${printable(plan.session_id)}: ${plan.events_selected} of ${plan.events_scanned} events → ` +
    `${plan.items} item(s), ${formatBytes(plan.body_bytes)} (redacted with the current policy)\n` +
    `  ${kinds}${cut}${skipped}\n\n`
  );
}

function previewText(plan: PromotionPlan): string {
  const items = plan.preview.map((i) => itemText(i, BODY_PREVIEW_LINES)).join("");
  const more =
    plan.items > plan.preview.length
      ? `  … and ${plan.items - plan.preview.length} more item(s): --dry-run shows every one\n\n`
      : "";
  return summaryText(plan) + items + more;
}

function itemText(item: MemoryItem, maxLines: number): string {
  const s = item.source;
  const seq = s.seq_from === s.seq_to ? `seq ${s.seq_from}` : `seq ${s.seq_from}-${s.seq_to}`;
  const head = `  [${item.kind}] ${printable(item.title)}  (${formatBytes(Buffer.byteLength(item.body))}, ${seq}, ${item.id})\n`;
  const lines = item.body.split("\n");
  const shown = lines.slice(0, maxLines).map((l) => `      ${printable(clip(l, maxLines))}\n`);
  const rest = lines.length > maxLines ? `      … ${lines.length - maxLines} more line(s)\n` : "";
  return `${head}${shown.join("")}${rest}\n`;
}

/** The preview shows the start of long lines; --dry-run shows them whole. */
function clip(line: string, maxLines: number): string {
  if (maxLines === Number.POSITIVE_INFINITY || line.length <= PREVIEW_LINE_CHARS) return line;
  return `${line.slice(0, PREVIEW_LINE_CHARS - 1)}…`;
}

function resultText(
  plan: PromotionPlan,
  r: { created: string[]; existing: string[] },
  where: string,
): string {
  const ids = r.created.slice(0, IDS_SHOWN).map((id) => `  ${id}\n`);
  const more =
    r.created.length > IDS_SHOWN
      ? `  … and ${r.created.length - IDS_SHOWN} more (tapedeck memory list)\n`
      : "";
  const existing = r.existing.length > 0 ? `, ${r.existing.length} already in memory` : "";
  return (
    `Promoted ${r.created.length} new item(s)${existing} from ${printable(plan.session_id)} to ${printable(where)}\n` +
    ids.join("") +
    more
  );
}

export function register(program: Command): void {
  const command = withSessionOptions(
    program
      .command("promote <session>")
      .description(
        "store selected events of a session as durable memory items (redacted preview, asks first)",
      )
      .option("--events <A..B>", "only events with these sequence numbers (A..B, A.., ..B or N)")
      .option(
        "--kinds <list>",
        "only these event kinds (default: user_prompt,assistant_message,tool_call,tool_result,tool_error,compaction)",
      )
      .option("--exclude-events <list>", "leave out these sequence numbers (N,M or A..B)")
      .option("--exclude-fields <list>", "leave out these payload fields (payload.tool_response,…)")
      .option("--title <text>", "put this before every item's title")
      .option("--dry-run", "show every item that would be stored, store nothing")
      .option("-y, --yes", "do not ask for confirmation"),
  );
  offerWords(command, "--kinds", EVENT_KINDS, true);
  withAllProjects(command).action(promoteCommand);
}
