// `tapedeck promote <session>`: selected events of a recorded session → durable memory items, after a redacted
// preview of exactly what will be stored and a confirmation (`--yes` for scripts), or a checklist of the
// candidate items to tick (`--pick`).
import { relative } from "node:path";
import type { Command } from "commander";
import { EVENT_KINDS } from "../../../core/archive/kinds.ts";
import { printable, printableJson } from "../../../core/base/printable.ts";
import type { MemoryItem } from "../../../memory/store/items.ts";
import {
  currentRules,
  forEachItem,
  forEachStored,
  type PassOptions,
  type PromotionPlan,
  parseFieldList,
  parseKinds,
  parseSeqList,
  planPromotion,
  type Selection,
  writePromotion,
} from "../../../memory/store/promote.ts";
import type { ScanProgress } from "../../../memory/store/source.ts";
import { memoryPath, openMemory } from "../../../memory/store/store.ts";
import { CliError, confirm, EXIT, formatBytes, note, say } from "../../common.ts";
import { io } from "../../io.ts";
import { offerWords, withSessionOptions } from "../../options.ts";
import { resolveSessionArg, type SessionOpts, withAllProjects } from "../../session-arg.ts";
import { checklist } from "./checklist.ts";

interface PromoteOpts extends SessionOpts {
  events?: string;
  kinds?: string;
  excludeEvents?: string;
  excludeFields?: string;
  title?: string;
  keepAll?: boolean;
  pick?: boolean;
  dryRun?: boolean;
  yes?: boolean;
}

/** Candidates a checklist holds at most: past that, --events or --kinds narrow the session first. */
const MAX_PICK = 2000;

const BODY_PREVIEW_LINES = 6;
const IDS_SHOWN = 20;
const PREVIEW_LINE_CHARS = 160;

function selection(opts: PromoteOpts): Selection {
  const sel: Selection = {
    kinds: parseKinds(opts.kinds),
    excludeEvents: opts.excludeEvents ? parseSeqList(opts.excludeEvents) : [],
    excludeFields: parseFieldList(opts.excludeFields),
  };
  if (opts.events !== undefined) sel.ranges = parseSeqList(opts.events, "--events");
  if (opts.title !== undefined) sel.title = opts.title;
  if (opts.keepAll) sel.keepAll = true;
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
  if (opts.pick) {
    const picked = await pick(ref, sel, plan, pass);
    sel.ids = new Set(picked.map((i) => i.id));
    if (picked.length === 0) throw new CliError("nothing ticked: nothing promoted", EXIT.usage);
    show(pickedText(plan, picked));
  }
  if (opts.dryRun) return dryRun(ref, sel, plan, pass, opts.json === true);
  if (!opts.pick) show(previewText(plan));
  if (!opts.yes && !opts.pick) {
    const where = relative(project, memoryPath(project));
    const ok = await confirm(`Store ${plan.items} item(s) (${formatBytes(plan.body_bytes)}) in ${where}?`);
    if (!ok) {
      throw new CliError(
        io().stdin.isTTY ? "not promoted" : "not promoted: pass --yes to promote without a terminal",
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

/** The plan's items as a checklist on the terminal; the ones the user ticked, in the stored order. */
async function pick(
  ref: Parameters<typeof forEachItem>[0],
  sel: Selection,
  plan: PromotionPlan,
  pass: PassOptions,
): Promise<MemoryItem[]> {
  const output = io().stderr.isTTY ? io().stderr : io().stdout.isTTY ? io().stdout : undefined;
  if (!io().stdin.isTTY || !output) {
    throw new CliError(
      "--pick needs a terminal; in a script, choose events with --events 3-9,14",
      EXIT.usage,
    );
  }
  if (plan.items > MAX_PICK) {
    throw new CliError(
      `${plan.items} items are too many to pick from (at most ${MAX_PICK}); narrow them with --events or --kinds`,
      EXIT.usage,
    );
  }
  const items: MemoryItem[] = [];
  forEachItem(ref, sel, plan, pass, (item) => items.push(item));
  const entries = items.map((item) => ({
    label: `${item.kind.padEnd(9)} ${item.title}  (${formatBytes(Buffer.byteLength(item.body))}, ${seqText(item)})`,
    detail: item.body,
    checked: true,
  }));
  const chosen = await checklist(entries, {
    heading: `Promote from ${plan.session_id}: tick the items to store in memory`,
    summary: (ticked) => {
      const bytes = ticked.reduce((n, i) => n + Buffer.byteLength(items[i]!.body), 0);
      return `${ticked.length} of ${items.length} ticked, ${formatBytes(bytes)}${skippedText(plan)}`;
    },
    // Both are terminals here (checked above): the checklist needs their raw mode and size.
    input: io().stdin as NodeJS.ReadStream,
    output: output as NodeJS.WriteStream,
  });
  if (chosen === undefined) throw new CliError("not promoted", EXIT.usage);
  return chosen.map((i) => items[i]!);
}

function pickedText(plan: PromotionPlan, picked: readonly MemoryItem[]): string {
  const bytes = picked.reduce((n, i) => n + Buffer.byteLength(i.body), 0);
  return `Picked ${picked.length} of ${plan.items} item(s) from ${printable(plan.session_id)}, ${formatBytes(bytes)}\n`;
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
    io().stdout.write(`{\n${fields.join("")}"items": [\n`);
  }

  readonly item = (item: MemoryItem): void => {
    io().stdout.write(`${this.first ? "" : ",\n"}${printableJson(item)}`);
    this.first = false;
  };

  end(): void {
    io().stdout.write("\n]\n}\n");
  }
}

/** What cleaning left out, as a tail of a summary line ("" when nothing). */
function skippedText(plan: PromotionPlan): string {
  const s = plan.skipped;
  const parts = [
    s.trivial > 0 ? `${s.trivial} trivial` : "",
    s.unanswered > 0 ? `${s.unanswered} unanswered prompt(s)` : "",
    s.duplicate > 0 ? `${s.duplicate} duplicate(s)` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? "" : ` · left out: ${parts.join(", ")} (--keep-all keeps them)`;
}

function summaryText(plan: PromotionPlan): string {
  const kinds = Object.entries(plan.by_kind)
    .map(([k, n]) => `${k} ${n}`)
    .join(" · ");
  const cut = plan.truncated > 0 ? ` · ${plan.truncated} cut to 4 KiB` : "";
  const unreadable = plan.lines_skipped > 0 ? ` · ${plan.lines_skipped} unreadable line(s) skipped` : "";
  const label = plan.label ? `, labelled "${printable(plan.label)}"` : "";
  return (
    `Promote from ${printable(plan.session_id)}${label}: ${plan.events_selected} of ${plan.events_scanned} events → ` +
    `${plan.items} item(s), ${formatBytes(plan.body_bytes)} (redacted with the current policy)\n` +
    `  ${kinds}${cut}${unreadable}${skippedText(plan)}\n\n`
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

function seqText(item: MemoryItem): string {
  const s = item.source;
  return s.seq_from === s.seq_to ? `seq ${s.seq_from}` : `seq ${s.seq_from}-${s.seq_to}`;
}

function itemText(item: MemoryItem, maxLines: number): string {
  const head = `  [${item.kind}] ${printable(item.title)}  (${formatBytes(Buffer.byteLength(item.body))}, ${seqText(item)}, ${item.id})\n`;
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
      .option("--events <list>", "only events with these sequence numbers (3-9,14; A..B, A.., ..B)")
      .option(
        "--kinds <list>",
        "only these event kinds (default: user_prompt,assistant_message,tool_call,tool_result,tool_error,compaction)",
      )
      .option("--exclude-events <list>", "leave out these sequence numbers (N,M or A..B)")
      .option("--exclude-fields <list>", "leave out these payload fields (payload.tool_response,…)")
      .option("--title <text>", "label the set of items stored (shown by memory list and show)")
      .option("--pick", "tick the items to store on a checklist (space toggles, enter stores)")
      .option("--keep-all", "keep trivial, unanswered and repeated items too")
      .option("--dry-run", "show every item that would be stored, store nothing")
      .option("-y, --yes", "do not ask for confirmation"),
  );
  offerWords(command, "--kinds", EVENT_KINDS, true);
  withAllProjects(command).action(promoteCommand);
}
