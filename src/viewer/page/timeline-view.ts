// The timeline of one session: turns, then each event under its turn with absolute and relative times,
// tool calls paired with their results (jump links both ways), kind filters with live counts, folding,
// deep links (#seq=N) and keyboard navigation. Events come a page (500) at a time by byte offset, loaded as
// the reader scrolls; rows off screen are skipped by the renderer (content-visibility), so a 100,000-event
// session neither loads nor lays out whole.
import { injectionLine, injectionOf } from "../../core/ports/injection.ts";
import { formatCost } from "../../usage/pricing.ts";
import type { SessionListItem } from "../api.ts";
import type { Agent, TimelineEvent, ToolCall, Turn, TurnItem, Usage } from "../timeline.ts";
import { lineDiff } from "./diff.ts";
import { clear, clock, compact, duration, h, offsetFrom } from "./dom.ts";
import { PAGE_EVENTS, type PageData, type Source } from "./source.ts";

/** Characters of a payload a row shows; the export or `show --full` has the rest. */
const MAX_BODY_CHARS = 20_000;
/** Kinds whose body is bookkeeping (the hook's envelope fields): folded from the start. */
const FOLDED_KINDS = new Set([
  "session_start",
  "session_end",
  "turn_usage",
  "provider_event",
  "subagent_stop",
]);
/** A body longer than this starts folded. */
const FOLD_LINES = 8;
const FOLD_CHARS = 600;

function firstString(p: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) if (typeof p[k] === "string" && p[k]) return p[k] as string;
  return undefined;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function pretty(v: unknown): string {
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v, null, 2) ?? "";
  } catch {
    return String(v);
  }
}

function capped(text: string): string {
  return text.length > MAX_BODY_CHARS
    ? `${text.slice(0, MAX_BODY_CHARS)}\n… ${text.length - MAX_BODY_CHARS} more characters (tapedeck show --full, or export)`
    : text;
}

function responseText(r: unknown): string {
  if (r && typeof r === "object" && !Array.isArray(r)) {
    const o = r as Record<string, unknown>;
    if (typeof o.stdout === "string" || typeof o.stderr === "string") {
      return [o.stdout, o.stderr ? `[stderr]\n${String(o.stderr)}` : ""].filter(Boolean).join("\n");
    }
  }
  return pretty(r);
}

function usageLine(u: Usage): string {
  return `in ${compact(u.input_tokens)} · out ${compact(u.output_tokens)} · cache read ${compact(u.cache_read_input_tokens)} · cache write ${compact(u.cache_creation_input_tokens)}`;
}

function tokensOf(u: Usage): number {
  return u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
}

/**
 * A subagent's line in the tree: its calls and its tokens, each once: the timeline's counts are in the one
 * meaning already (Codex's and Gemini's cache reads out of their input), as the session list counts them.
 */
export function agentTotals(a: Agent, calls: number): string {
  const tokens = compact(tokensOf(a.usage));
  return ` ${a.agent_id} · ${calls} tool call${calls === 1 ? "" : "s"} · ${tokens} tokens`;
}

function jump(seq: number, text: string): HTMLElement {
  return h("a", { href: `#seq=${seq}`, class: "jump", "data-jump": String(seq) }, text);
}

export class TimelineView {
  readonly el: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly chips: HTMLElement;
  private readonly status: HTMLElement;
  private readonly more: HTMLElement;
  private readonly calls = new Map<number, ToolCall>();
  private readonly results = new Map<number, ToolCall>();
  private readonly counts = new Map<string, number>();
  private readonly hidden = new Set<string>();
  private readonly rowBySeq = new Map<number, HTMLElement>();
  private section: HTMLElement | null = null;
  private nextOffset: number | null = 0;
  private loading: Promise<void> | null = null;
  private loadedEvents = 0;
  private size = 0;
  private current: HTMLElement | null = null;
  private observer: IntersectionObserver | null = null;
  private lastSeq = 0;

  constructor(
    private readonly source: Source,
    private readonly session: SessionListItem,
  ) {
    this.chips = h("div", { class: "chips", role: "toolbar", "aria-label": "event kinds" });
    this.status = h("span", { class: "dim", id: "loaded" });
    const openAll = h("button", { type: "button", id: "open-all", title: "open every fold (])" }, "Open all");
    const closeAll = h(
      "button",
      { type: "button", id: "close-all", title: "close every fold ([)" },
      "Close all",
    );
    openAll.addEventListener("click", () => this.foldAll(true));
    closeAll.addEventListener("click", () => this.foldAll(false));
    this.rows = h("div", { class: "rows", id: "rows" });
    this.more = h("button", { type: "button", class: "more", id: "load-more" }, "Load more");
    this.more.addEventListener("click", () => void this.loadNext());
    this.el = h(
      "section",
      { class: "timeline" },
      h(
        "div",
        { class: "toolbar" },
        this.chips,
        h("span", { class: "spacer" }),
        this.status,
        openAll,
        closeAll,
      ),
      this.rows,
      this.more,
    );
    this.rows.addEventListener("click", (ev) => this.onClick(ev));
  }

  /** Loads the first page and keeps loading as the bottom comes into view. */
  async start(): Promise<void> {
    await this.loadNext();
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void this.loadNext();
    });
    this.observer.observe(this.more);
  }

  stop(): void {
    this.observer?.disconnect();
  }

  loadNext(): Promise<void> {
    if (this.loading) return this.loading;
    if (this.nextOffset === null) return Promise.resolve();
    const offset = this.nextOffset;
    this.loading = this.source
      .page(this.session.key, offset)
      .then((page) => this.addPage(page))
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  private addPage(page: PageData): void {
    this.nextOffset = page.nextOffset;
    this.size = page.size;
    for (const t of page.turns) this.indexItems(t.items);
    const turnAt = new Map(page.turns.map((t) => [t.first_offset, t]));
    for (const e of page.events) {
      const turn = turnAt.get(e.offset);
      if (turn && !(turn.continued && turn === page.turns[0] && this.section))
        this.section = this.turnSection(turn);
      if (!this.section) this.section = this.preamble();
      this.section.append(this.row(e));
      this.counts.set(e.kind, (this.counts.get(e.kind) ?? 0) + 1);
      this.lastSeq = Math.max(this.lastSeq, e.sequence);
      this.loadedEvents += 1;
    }
    for (const b of page.bad_lines) {
      (this.section ?? this.rows).append(
        h("div", { class: "ev bad" }, `line at byte ${b.offset} (${b.bytes} B) is not an event: ${b.reason}`),
      );
    }
    this.renderChips();
    this.more.hidden = this.nextOffset === null;
  }

  private indexItems(items: TurnItem[]): void {
    for (const i of items) {
      if (i.type === "tool") {
        if (i.sequence !== null) this.calls.set(i.sequence, i);
        if (i.result) this.results.set(i.result.sequence, i);
        for (const a of i.agents) this.indexItems(a.items);
      } else if (i.type === "agent") this.indexItems(i.items);
    }
  }

  private preamble(): HTMLElement {
    const s = h(
      "section",
      { class: "turn" },
      h("header", { class: "turn-head" }, h("strong", {}, "Session")),
    );
    this.rows.append(s);
    return s;
  }

  private turnSection(t: Turn): HTMLElement {
    const origin = this.session.started_at;
    const took = t.started_at && t.ended_at ? Date.parse(t.ended_at) - Date.parse(t.started_at) : null;
    const cost = formatCost(t.cost);
    const head = h(
      "header",
      { class: "turn-head" },
      h("strong", {}, t.continued ? "Turn continued from before this page" : `Turn ${t.index}`),
      h("span", { class: "time" }, `${clock(t.started_at)} ${offsetFrom(origin, t.started_at)}`),
      took !== null ? h("span", { class: "badge" }, duration(took)) : null,
      h("span", { class: "badge" }, `${t.tool_calls} tool call${t.tool_calls === 1 ? "" : "s"}`),
      t.tool_errors
        ? h("span", { class: "badge err" }, `${t.tool_errors} error${t.tool_errors === 1 ? "" : "s"}`)
        : null,
      t.failure ? h("span", { class: "badge err" }, `failed: ${oneLine(t.failure, 80)}`) : null,
    );
    const usage = h(
      "div",
      { class: "usage", "data-turn": String(t.index) },
      h("span", {}, usageLine(t.usage)),
      ...t.usage.sources.map((s) => h("span", { class: "badge src" }, s)),
      cost
        ? h("span", { class: "cost", title: "an estimate from the price table's list prices" }, cost)
        : null,
    );
    const agents = this.agentTree(t.items);
    const s = h(
      "section",
      { class: "turn", "data-turn": String(t.index) },
      head,
      tokensOf(t.usage) || cost ? usage : null,
      agents,
    );
    this.rows.append(s);
    return s;
  }

  /** Subagents as a collapsible tree with per-agent totals; each call links to its row. */
  private agentTree(items: TurnItem[]): HTMLElement | null {
    const agents: Agent[] = [];
    for (const i of items) {
      if (i.type === "agent") agents.push(i);
      else if (i.type === "tool") agents.push(...i.agents);
    }
    if (agents.length === 0) return null;
    return h("div", { class: "agents" }, ...agents.map((a) => this.agentNode(a)));
  }

  private agentNode(a: Agent): HTMLElement {
    const tools = a.items.filter((i): i is ToolCall => i.type === "tool");
    const cost = formatCost(a.cost);
    const list = h("ul", {});
    for (const t of tools) {
      list.append(
        h(
          "li",
          {},
          t.sequence !== null ? jump(t.sequence, `#${t.sequence}`) : "",
          ` ${t.name} ${oneLine(t.input, 100)}`,
          t.result && !t.result.ok ? h("span", { class: "badge err" }, "error") : null,
        ),
      );
    }
    const nested = this.agentTree(a.items);
    return h(
      "details",
      { class: "agent", "data-agent": a.agent_id },
      h(
        "summary",
        {},
        h("strong", {}, `subagent ${a.agent_type ?? ""}`),
        agentTotals(a, tools.length),
        cost ? ` · ${cost}` : "",
      ),
      list,
      nested,
    );
  }

  private row(e: TimelineEvent): HTMLElement {
    const head = h(
      "div",
      { class: "ev-head" },
      h("a", { class: "seq", href: `#seq=${e.sequence}` }, `#${e.sequence}`),
      h("span", { class: "time", title: e.timestamp ?? "" }, clock(e.timestamp)),
      h("span", { class: "rel" }, offsetFrom(this.session.started_at, e.timestamp)),
      h("span", { class: `kind k-${e.kind}` }, e.kind),
      ...this.summary(e),
    );
    const body = this.body(e);
    const row = h(
      "div",
      {
        class: `ev${e.agent_id ? " sub" : ""}`,
        id: `seq-${e.sequence}`,
        "data-seq": String(e.sequence),
        "data-kind": e.kind,
        tabindex: "-1",
      },
      head,
      body,
    );
    this.rowBySeq.set(e.sequence, row);
    return row;
  }

  private summary(e: TimelineEvent): Array<HTMLElement | string | null> {
    const p = e.payload;
    const out: Array<HTMLElement | string | null> = [];
    if (e.agent_id) out.push(h("span", { class: "badge agent-tag" }, `agent ${e.agent_id.slice(0, 12)}`));
    if (e.kind === "tool_call") {
      const call = this.calls.get(e.sequence);
      out.push(
        h(
          "span",
          { class: "summary" },
          h("strong", {}, call?.name ?? String(p.tool_name ?? "tool")),
          ` ${oneLine(call?.input ?? pretty(p.tool_input ?? ""))}`,
        ),
      );
      if (call?.result) {
        out.push(jump(call.result.sequence, `→ result #${call.result.sequence}`));
        if (call.result.duration_ms !== null)
          out.push(h("span", { class: "badge" }, duration(call.result.duration_ms)));
      } else out.push(h("span", { class: "badge dim" }, "no result recorded"));
    } else if (e.kind === "tool_result" || e.kind === "tool_error") {
      const call = this.results.get(e.sequence);
      const r = call?.result;
      if (call?.sequence != null) out.push(jump(call.sequence, `← call #${call.sequence}`));
      out.push(
        h(
          "span",
          { class: "summary" },
          h("strong", {}, call?.name ?? String(p.tool_name ?? "")),
          ` ${oneLine(r?.excerpt.text ?? "", 120)}`,
        ),
      );
      if (r?.exit_code !== null && r?.exit_code !== undefined) {
        out.push(
          h(
            "span",
            { class: `badge ${r.exit_code === 0 ? "okb" : "err"}`, "data-exit": String(r.exit_code) },
            `exit ${r.exit_code}`,
          ),
        );
      }
      if (r?.duration_ms !== null && r?.duration_ms !== undefined)
        out.push(h("span", { class: "badge" }, duration(r.duration_ms)));
      if (e.kind === "tool_error") out.push(h("span", { class: "badge err" }, "error"));
    } else if (e.kind === "turn_usage" && e.usage) {
      const u = e.usage;
      const n = (k: string) => compact(Number(u[k] ?? 0) || 0);
      out.push(
        h(
          "span",
          { class: "summary dim" },
          `${String(u.model ?? "")} in ${n("input_tokens")} · out ${n("output_tokens")} · cache read ${n("cache_read_input_tokens")} · cache write ${n("cache_creation_input_tokens")}`,
        ),
        h("span", { class: "badge src" }, String(u.source ?? "usage")),
      );
    } else if (injectionOf(e)) {
      out.push(
        h("span", { class: "badge mem" }, "memory"),
        h("span", { class: "summary" }, injectionLine(injectionOf(e)!)),
      );
    } else {
      const text = firstString(p, [
        "prompt",
        "last_assistant_message",
        "message",
        "text",
        "content",
        "reason",
        "agent_type",
        "source",
      ]);
      out.push(h("span", { class: "summary" }, oneLine(text ?? "", 200)));
    }
    if (e.usage && e.kind !== "turn_usage")
      out.push(
        h(
          "span",
          { class: "badge src" },
          `${String(e.usage.source ?? "usage")} ${compact(Number(e.usage.output_tokens ?? 0))} out`,
        ),
      );
    if (e.redactions)
      out.push(
        h(
          "span",
          { class: "badge red", title: "secrets replaced by markers before writing" },
          `redacted ${e.redactions}`,
        ),
      );
    if (e.truncations) out.push(h("span", { class: "badge warn" }, `truncated ${e.truncations}`));
    if (e.omitted) out.push(h("span", { class: "badge warn" }, `omitted ${e.omitted}`));
    return out;
  }

  private body(e: TimelineEvent): HTMLElement {
    const p = e.payload;
    let content: HTMLElement;
    let size: string;
    if (e.kind === "tool_call" && typeof (p.tool_input as Record<string, unknown>)?.old_string === "string") {
      const i = p.tool_input as Record<string, unknown>;
      const d = lineDiff(String(i.old_string), String(i.new_string ?? ""));
      size = `${String(i.old_string)}\n${String(i.new_string ?? "")}`;
      content = d
        ? h(
            "pre",
            { class: "diff" },
            ...d.map((l) =>
              h("div", { class: l.op === "-" ? "del" : l.op === "+" ? "add" : "" }, `${l.op} ${l.text}`),
            ),
          )
        : h("p", { class: "warn" }, `edit too large to preview (${size.length} characters)`);
      content = h("div", {}, h("div", { class: "dim" }, String(i.file_path ?? "")), content);
    } else if (injectionOf(e) && typeof p.context === "string") {
      // The block as the agent received it, under a label that says so (not "provider_event · 18 lines").
      size = p.context;
      content = h("pre", {}, capped(p.context));
      const lines = size.split("\n").length;
      return h(
        "details",
        { class: "ev-body injection" },
        h("summary", {}, `injected context · ${lines} line${lines === 1 ? "" : "s"}`),
        content,
      );
    } else {
      const text = capped(
        e.kind === "tool_call"
          ? pretty(p.tool_input ?? p)
          : e.kind === "tool_result" || e.kind === "tool_error"
            ? responseText(p.tool_response ?? p.error ?? p)
            : pretty(firstString(p, ["prompt", "last_assistant_message", "message", "text"]) ?? p),
      );
      size = text;
      content = h("pre", {}, text);
    }
    const long = size.split("\n").length > FOLD_LINES || size.length > FOLD_CHARS || FOLDED_KINDS.has(e.kind);
    return h(
      "details",
      { class: "ev-body", open: !long },
      h("summary", {}, long ? `${size.split("\n").length} lines` : "details"),
      content,
    );
  }

  private renderChips(): void {
    clear(this.chips);
    let visible = 0;
    for (const [kind, n] of [...this.counts].sort()) {
      const off = this.hidden.has(kind);
      if (!off) visible += n;
      const chip = h(
        "button",
        {
          type: "button",
          class: `chip k-${kind}`,
          "data-kind": kind,
          "aria-pressed": off ? "false" : "true",
        },
        `${kind} `,
        h("span", { class: "count" }, String(n)),
      );
      chip.addEventListener("click", () => this.toggleKind(kind));
      this.chips.append(chip);
    }
    const more =
      this.nextOffset === null
        ? ""
        : ` (${Math.round((100 * (this.nextOffset ?? 0)) / Math.max(1, this.size))}% of the file read)`;
    this.status.textContent = `${visible} of ${this.loadedEvents} events shown${more}`;
  }

  private toggleKind(kind: string): void {
    if (this.hidden.has(kind)) this.hidden.delete(kind);
    else this.hidden.add(kind);
    this.rows.classList.toggle(`hide-${kind}`, this.hidden.has(kind));
    this.renderChips();
  }

  foldAll(open: boolean): void {
    for (const d of this.rows.querySelectorAll("details")) (d as HTMLDetailsElement).open = open;
  }

  private onClick(ev: Event): void {
    const a = (ev.target as HTMLElement).closest("a[href^='#seq=']");
    if (!a) return;
    ev.preventDefault();
    const seq = Number(a.getAttribute("href")!.slice(5));
    void this.jumpTo(seq, true);
  }

  /** Starts the view over from a byte offset (a line start), saying what is left out before it. */
  private async resetAt(offset: number, seq: number): Promise<void> {
    await this.loading;
    clear(this.rows);
    for (const m of [this.calls, this.results, this.counts, this.rowBySeq]) m.clear();
    this.section = null;
    this.current = null;
    this.loadedEvents = 0;
    this.lastSeq = 0;
    this.nextOffset = offset;
    if (offset > 0) {
      const all = h("button", { type: "button", id: "from-start" }, "Show from the start");
      all.addEventListener("click", () => void this.resetAt(0, 1).then(() => this.loadNext()));
      this.rows.append(
        h(
          "div",
          { class: "window-note" },
          `Events before #${seq} are not loaded (opened at a deep link). `,
          all,
        ),
      );
    }
  }

  /** Loads pages until the event is there, then shows it unfolded; one far ahead is found by offset first. */
  async jumpTo(seq: number, setHash = false): Promise<boolean> {
    if (!this.rowBySeq.has(seq) && this.nextOffset !== null && seq > this.lastSeq + 2 * PAGE_EVENTS) {
      await this.resetAt(await this.source.locate(this.session.key, seq), seq);
    }
    while (!this.rowBySeq.has(seq) && this.nextOffset !== null) await this.loadNext();
    const row = this.rowBySeq.get(seq);
    if (!row) return false;
    if (this.hidden.has(row.dataset.kind!)) this.toggleKind(row.dataset.kind!);
    const body = row.querySelector("details");
    if (body) (body as HTMLDetailsElement).open = true;
    this.focus(row);
    row.scrollIntoView({ block: "center" });
    row.classList.add("target");
    if (setHash) history.replaceState(null, "", `#s=${this.session.key}&seq=${seq}`);
    return true;
  }

  private focus(row: HTMLElement): void {
    this.current?.classList.remove("current");
    this.current = row;
    row.classList.add("current");
    row.focus({ preventScroll: true });
  }

  /** j/k (or arrows): the next or previous visible event; Enter or o folds it; [ and ] close and open all. */
  onKey(ev: KeyboardEvent): boolean {
    if (ev.key === "j" || ev.key === "ArrowDown" || ev.key === "k" || ev.key === "ArrowUp") {
      const all = [...this.rows.querySelectorAll<HTMLElement>(".ev[data-seq]")].filter(
        (r) => r.offsetParent !== null,
      );
      const at = this.current ? all.indexOf(this.current) : -1;
      const next = all[ev.key === "j" || ev.key === "ArrowDown" ? at + 1 : Math.max(0, at - 1)];
      if (next) {
        this.focus(next);
        next.scrollIntoView({ block: "nearest" });
        history.replaceState(null, "", `#s=${this.session.key}&seq=${next.dataset.seq}`);
      } else if (at === all.length - 1) void this.loadNext();
      return true;
    }
    if ((ev.key === "Enter" || ev.key === "o") && this.current) {
      const d = this.current.querySelector("details") as HTMLDetailsElement | null;
      if (d) d.open = !d.open;
      return true;
    }
    if (ev.key === "[" || ev.key === "]") {
      this.foldAll(ev.key === "]");
      return true;
    }
    return false;
  }
}
