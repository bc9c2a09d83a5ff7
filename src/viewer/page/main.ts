// The viewer's page: the session list (search, filters, badges) on the left, the open session on the right
// (its timeline, its integrity panel). The same code runs on the local server and in an exported file.
import type { ExperimentListItem, SessionListItem } from "../api.ts";
import { experimentView } from "./ab-view.ts";
import { bytes, clear, compact, duration, h } from "./dom.ts";
import { integrityPanel, tallyArchive } from "./integrity.ts";
import { type ScenarioResultView, scenarioView } from "./scenario-view.ts";
import { type EmbeddedData, embeddedSource, httpSource, type SearchHitView, type Source } from "./source.ts";
import { TimelineView } from "./timeline-view.ts";
import { usageView } from "./usage-view.ts";

interface State {
  source: Source;
  sessions: SessionListItem[];
  experiments: ExperimentListItem[];
  results: ScenarioResultView[];
  openKey: string | null;
  view: TimelineView | null;
  /** The index of the exported site this page belongs to. */
  siteIndex: string | null;
}

function embedded(): EmbeddedData | null {
  const el = document.getElementById("tapedeck-data");
  return el?.textContent ? (JSON.parse(el.textContent) as EmbeddedData) : null;
}

function hashParams(): {
  s: string | null;
  x: string | null;
  r: string | null;
  u: string | null;
  seq: number | null;
} {
  const p = new URLSearchParams(location.hash.slice(1));
  const seq = p.get("seq");
  return {
    s: p.get("s"),
    x: p.get("x"),
    r: p.get("r"),
    u: p.get("u"),
    seq: seq !== null && /^\d+$/.test(seq) ? Number(seq) : null,
  };
}

function badges(s: SessionListItem): HTMLElement[] {
  const out = [h("span", { class: `badge st-${s.status}` }, s.status)];
  if (s.run_type !== "recorded") out.push(h("span", { class: "badge run" }, s.run_type));
  if (s.arm) out.push(h("span", { class: "badge arm" }, `arm ${s.arm}`));
  if (s.experiment_id)
    out.push(
      h(
        "span",
        { class: "badge run", title: s.experiment_id },
        `experiment ${s.experiment_id.replace(/^exp-/, "").slice(0, 15)}`,
      ),
    );
  return out;
}

/** A project's name as the list shows it: its directory's own name. */
function projectName(path: string): string {
  return (
    path
      .replace(/[\\/]+$/, "")
      .split(/[\\/]/)
      .at(-1) || path
  );
}

function sessionItem(s: SessionListItem, open: boolean, nested = false, withProject = false): HTMLElement {
  const item = h(
    "a",
    {
      class: `session${open ? " open" : ""}${nested ? " nested" : ""}`,
      href: `#s=${s.key}`,
      "data-key": s.key,
      "data-provider": s.provider,
      "data-origin": s.origin,
    },
    h("div", { class: "title" }, s.title ?? s.provider_session_id ?? s.session_id),
    h(
      "div",
      { class: "meta" },
      `${withProject ? `${projectName(s.project)} · ` : ""}${s.provider} · ${s.started_at.replace("T", " ").slice(0, 16)} · ${s.turns} turn${s.turns === 1 ? "" : "s"} · ${s.tool_errors} err · ${compact(s.tokens)} tok`,
    ),
    h("div", { class: "badges" }, ...badges(s)),
  );
  return item;
}

/** A replay's link to its baseline, a baseline's links to its replays: the two ends of one comparison. */
function lineage(s: SessionListItem, all: readonly SessionListItem[]): HTMLElement | null {
  const title = (key: string) => {
    const other = all.find((x) => x.key === key);
    return other
      ? `${other.started_at.replace("T", " ").slice(0, 16)} ${other.arm ? `arm ${other.arm}` : (other.title ?? other.session_id)}`
      : key;
  };
  const parts: Array<HTMLElement | string> = [];
  if (s.replay_of_session_id) {
    parts.push(`${s.run_type} of `);
    parts.push(
      s.baseline_key !== null
        ? h("a", { href: `#s=${s.baseline_key}`, class: "baseline-link" }, s.replay_of_session_id)
        : h("span", { class: "dim" }, `${s.replay_of_session_id} (not listed here)`),
    );
  }
  if (s.replay_keys.length > 0) {
    if (parts.length > 0) parts.push(" · ");
    parts.push(`replayed ${s.replay_keys.length} time${s.replay_keys.length === 1 ? "" : "s"}: `);
    s.replay_keys.forEach((key, i) => {
      if (i > 0) parts.push(", ");
      parts.push(h("a", { href: `#s=${key}`, class: "replay-link" }, title(key)));
    });
  }
  return parts.length > 0 ? h("div", { class: "meta lineage", id: "lineage" }, ...parts) : null;
}

function snippet(text: string): HTMLElement {
  const el = h("span", { class: "snippet" });
  for (const [i, part] of text.split(/[\ue000\ue001]/).entries())
    el.append(i % 2 ? h("mark", {}, part) : part);
  return el;
}

class App {
  private readonly list = h("nav", { class: "list", id: "sessions", "aria-label": "sessions" });
  private readonly exps = h("nav", { class: "list", id: "experiments", "aria-label": "experiments" });
  private readonly main = h("main", { class: "main", id: "main" });
  private readonly search = h("input", {
    type: "search",
    id: "search",
    placeholder: "Search every session (/)",
    "aria-label": "search",
  }) as HTMLInputElement;
  private readonly provider = h("select", {
    id: "f-provider",
    "aria-label": "provider",
  }) as HTMLSelectElement;
  private readonly status = h("select", { id: "f-status", "aria-label": "status" }) as HTMLSelectElement;
  /** Shown only when the sessions come from more than one project (`view --all-projects`). */
  private readonly project = h("select", { id: "f-project", "aria-label": "project" }) as HTMLSelectElement;
  private readonly since = h("input", {
    type: "date",
    id: "f-since",
    "aria-label": "started since",
  }) as HTMLInputElement;
  private searchTimer = 0;

  constructor(private readonly st: State) {}

  async mount(): Promise<void> {
    const app = document.getElementById("app")!;
    const filters = h("div", { class: "filters" }, this.project, this.provider, this.status, this.since);
    const side = h(
      "aside",
      { class: "side" },
      h(
        "h1",
        {},
        "tapedeck",
        this.st.source.embedded ? h("span", { class: "dim" }, " · exported session") : null,

        // The usage page asks the local server: an exported file has none.
        this.st.source.embedded
          ? null
          : h("a", { href: "#u=daily", id: "usage-link", class: "usage-link" }, "usage"),
      ),
      this.st.siteIndex
        ? h("a", { href: this.st.siteIndex, id: "site-index", class: "site-index" }, "← the export's index")
        : null,
      this.search,
      filters,
      this.list,
      this.exps,
    );
    app.append(side, this.main);
    this.search.addEventListener("input", () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => void this.runSearch(), 200);
    });
    for (const f of [this.project, this.provider, this.status, this.since])
      f.addEventListener("change", () => this.renderList());
    window.addEventListener("hashchange", () => void this.route());
    document.addEventListener("keydown", (ev) => this.onKey(ev));
    this.st.sessions = await this.st.source.sessions();
    this.st.experiments = await this.st.source.experiments();
    this.st.results = await this.st.source.scenarioResults();
    this.renderExperiments();
    this.fillFilters();
    this.renderList();
    if (!location.hash && this.st.sessions.length === 1)
      history.replaceState(null, "", `#s=${this.st.sessions[0]!.key}`);
    await this.route();
  }

  private fillFilters(): void {
    const opts = (sel: HTMLSelectElement, label: string, values: string[]) => {
      sel.append(h("option", { value: "" }, label), ...values.map((v) => h("option", { value: v }, v)));
    };
    opts(this.provider, "every provider", [...new Set(this.st.sessions.map((s) => s.provider))].sort());
    opts(this.status, "every status", [...new Set(this.st.sessions.map((s) => s.status))].sort());
    const projects = [...new Set(this.st.sessions.map((s) => s.project))].sort();
    this.project.hidden = projects.length < 2;
    this.project.append(
      h("option", { value: "" }, "every project"),
      ...projects.map((p) => h("option", { value: p, title: p }, projectName(p))),
    );
  }

  private manyProjects(): boolean {
    return !this.project.hidden;
  }

  private filtered(): SessionListItem[] {
    const since = this.since.value ? Date.parse(this.since.value) : Number.NaN;
    return this.st.sessions.filter(
      (s) =>
        (!this.project.value || s.project === this.project.value) &&
        (!this.provider.value || s.provider === this.provider.value) &&
        (!this.status.value || s.status === this.status.value) &&
        (!Number.isFinite(since) || Date.parse(s.started_at) >= since),
    );
  }

  private renderList(): void {
    if (this.search.value.trim()) return;
    clear(this.list);
    const shown = this.filtered();
    this.list.append(
      h(
        "div",
        { class: "dim count", id: "list-count" },
        `${shown.length} of ${this.st.sessions.length} sessions`,
      ),
    );
    // A run goes under its baseline (indented), or where its time puts it when its baseline is not shown.
    const shownKeys = new Set(shown.map((s) => s.key));
    for (const s of shown) {
      if (s.baseline_key !== null && shownKeys.has(s.baseline_key)) continue;
      this.list.append(sessionItem(s, s.key === this.st.openKey, false, this.manyProjects()));
      for (const key of s.replay_keys) {
        const run = shown.find((x) => x.key === key);
        if (run) this.list.append(sessionItem(run, run.key === this.st.openKey, true, this.manyProjects()));
      }
    }
    if (this.st.sessions.length === 0)
      this.list.append(h("p", { class: "dim" }, "No recorded sessions in this project yet."));
  }

  private renderExperiments(): void {
    clear(this.exps);
    if (this.st.results.length > 0) this.exps.append(h("h2", { class: "side-h" }, "Scenario results"));
    for (const r of this.st.results) {
      this.exps.append(
        h(
          "a",
          { class: "session result-item", href: `#r=${r.key}`, "data-scenario": r.scenario.id },
          h("div", { class: "title" }, r.scenario.id),
          h(
            "div",
            { class: "meta" },
            `${r.passed ? "passed" : "failed"} · against ${r.against} · ${r.samples.length} sample(s)`,
          ),
        ),
      );
    }
    if (this.st.experiments.length === 0) return;
    this.exps.append(h("h2", { class: "side-h" }, "Experiments"));
    for (const x of this.st.experiments) {
      this.exps.append(
        h(
          "a",
          { class: "session experiment-item", href: `#x=${x.key}`, "data-experiment": x.experiment_id },
          h("div", { class: "title" }, `${x.kind} ${x.experiment_id}`),
          h(
            "div",
            { class: "meta" },
            `${x.provider} · ${x.created_at.replace("T", " ").slice(0, 16)} · arms ${x.arms.join(", ")} · ${x.runs} runs`,
          ),
        ),
      );
    }
  }

  private openUsage(report: string): void {
    // The page keeps #u= up to date as its report changes: only a new visit builds it again.
    if (this.main.querySelector("#usage")) return;
    this.st.view?.stop();
    this.st.view = null;
    this.st.openKey = null;
    this.renderList();
    clear(this.main);
    this.main.append(usageView(report));
  }

  private openResult(key: string): void {
    this.st.view?.stop();
    this.st.view = null;
    this.st.openKey = null;
    this.renderList();
    clear(this.main);
    const found = this.st.results.find((x) => x.key === key);
    this.main.append(found ? scenarioView(found) : h("p", { class: "bad" }, "no such scenario result"));
  }

  private async openExperiment(key: string): Promise<void> {
    this.st.view?.stop();
    this.st.view = null;
    this.st.openKey = null;
    this.renderList();
    clear(this.main);
    try {
      this.main.append(experimentView(await this.st.source.experiment(key)));
    } catch (error) {
      this.main.append(h("p", { class: "bad" }, String((error as Error).message)));
    }
  }

  private async runSearch(): Promise<void> {
    const q = this.search.value.trim();
    if (!q) return this.renderList();
    let found: { hits: SearchHitView[]; stale: boolean };
    try {
      found = await this.st.source.search(q);
    } catch (error) {
      clear(this.list);
      this.list.append(h("p", { class: "bad" }, String((error as Error).message)));
      return;
    }
    if (this.search.value.trim() !== q) return;
    clear(this.list);
    this.list.append(
      h(
        "div",
        { class: "dim count", id: "hit-count" },
        `${found.hits.length} hit${found.hits.length === 1 ? "" : "s"}${found.stale ? " (index busy: the newest events may be missing)" : ""}`,
      ),
    );
    for (const hit of found.hits) {
      const s = this.st.sessions.find((x) => x.key === hit.key);
      this.list.append(
        h(
          "a",
          {
            class: "hit",
            href: hit.key !== null ? `#s=${hit.key}&seq=${hit.sequence}` : "#",
            "data-seq": String(hit.sequence),
          },
          h("div", { class: "title" }, s?.title ?? hit.session_id),
          h(
            "div",
            { class: "meta" },
            `#${hit.sequence} · ${hit.kind} · ${hit.timestamp.replace("T", " ").slice(0, 19)}`,
          ),
          snippet(hit.snippet),
        ),
      );
    }
  }

  private async route(): Promise<void> {
    const { s, x, r, u, seq } = hashParams();
    if (u !== null && !this.st.source.embedded) return this.openUsage(u);
    if (x !== null) return this.openExperiment(x);
    if (r !== null) return this.openResult(r);
    const key = s ?? this.st.openKey ?? (this.st.sessions.length === 1 ? this.st.sessions[0]!.key : null);
    if (key === null) return this.welcome();
    if (key !== this.st.openKey) await this.open(key);
    if (seq !== null) await this.st.view?.jumpTo(seq);
  }

  private welcome(): void {
    clear(this.main);
    this.main.append(
      h(
        "div",
        { class: "welcome" },
        h("h2", {}, "Pick a session"),
        h(
          "p",
          { class: "dim" },
          "j/k move between events, Enter folds one, [ and ] close and open all, / searches.",
        ),
      ),
    );
  }

  private async open(key: string): Promise<void> {
    const s = this.st.sessions.find((x) => x.key === key);
    if (!s) return this.welcome();
    this.st.view?.stop();
    this.st.openKey = key;
    this.renderList();
    clear(this.main);
    const took = s.ended_at ? Date.parse(s.ended_at) - Date.parse(s.started_at) : null;
    const integrity = h("div", { id: "integrity-slot", class: "dim" }, "Verifying the checksum…");
    const view = new TimelineView(this.st.source, s);
    this.st.view = view;
    this.main.append(
      h(
        "header",
        { class: "session-head" },
        h("h2", {}, s.title ?? s.session_id),
        h("div", { class: "badges" }, ...badges(s)),
        h(
          "div",
          { class: "meta" },
          `${s.provider} · ${s.provider_session_id ?? s.session_id} · started ${s.started_at.replace("T", " ").slice(0, 19)} UTC${took !== null ? ` · ${duration(took)}` : ""} · ${s.events} events · ${bytes(s.bytes)} · ${s.turns} turn${s.turns === 1 ? "" : "s"} · ${s.tool_calls} tool call${s.tool_calls === 1 ? "" : "s"} · ${s.tool_errors} error${s.tool_errors === 1 ? "" : "s"} · ${compact(s.tokens)} tokens`,
        ),
        lineage(s, this.st.sessions),
      ),
      integrity,
      view.el,
    );
    await view.start();
    void this.verify(key, integrity);
  }

  private async verify(key: string, slot: HTMLElement): Promise<void> {
    try {
      const info = await this.st.source.integrity(key);
      const tally = await tallyArchive(this.st.source, key, (n) => {
        slot.textContent = `Verifying the checksum… ${bytes(n)}`;
      });
      if (this.st.openKey !== key) return;
      slot.replaceWith(integrityPanel(info, tally));
    } catch (error) {
      slot.className = "bad";
      slot.textContent = `integrity: ${(error as Error).message}`;
    }
  }

  private onKey(ev: KeyboardEvent): void {
    const t = ev.target as HTMLElement;
    if (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA") {
      if (ev.key === "Escape") t.blur();
      return;
    }
    if (ev.key === "/") {
      ev.preventDefault();
      this.search.focus();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (this.st.view?.onKey(ev)) ev.preventDefault();
  }
}

const data = embedded();
void new App({
  source: data ? embeddedSource(data) : httpSource(),
  sessions: [],
  experiments: [],
  results: [],
  openKey: null,
  view: null,
  siteIndex: data?.site?.index ?? null,
}).mount();
