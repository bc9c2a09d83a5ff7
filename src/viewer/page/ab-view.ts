// An experiment's arms side by side: the report's figures per arm (src/experiment/report.ts computed them),
// each comparison's deltas with their intervals and verdicts, the flip table, and every prompt's answers
// aligned by repetition and prompt, with a link to the baseline session.
import type { ExperimentView } from "../api.ts";
import { duration, h } from "./dom.ts";

type Cell = HTMLElement | string;

function table(head: string[], rows: Cell[][], cls = "ab"): HTMLElement {
  return h(
    "table",
    { class: cls },
    h("thead", {}, h("tr", {}, ...head.map((x) => h("th", {}, x)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))),
  );
}

function num(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  return digits ? n.toFixed(digits) : String(Math.round(n));
}

function interval(i: { estimate: number; low: number; high: number } | null): string {
  return i ? `${num(i.estimate, 2)} [${num(i.low, 2)}, ${num(i.high, 2)}]` : "—";
}

function armsTable(v: ExperimentView): HTMLElement {
  const arms = v.report.arms;
  const metrics = Object.keys(arms[0]?.median ?? {});
  const rows: Cell[][] = [
    [
      "settings",
      ...arms.map(
        (a) => `native memory ${a.native_memory ? "on" : "off"} · retrieval ${a.retrieval ? "on" : "off"}`,
      ),
    ],
    ["runs (complete / failed)", ...arms.map((a) => `${a.runs} (${a.complete} / ${a.failed})`)],
    [
      "pass rate",
      ...arms.map((a) =>
        a.pass ? `${a.pass.passes}/${a.pass.n} ${interval(a.pass.wilson)}` : "no scenario",
      ),
    ],
    ...metrics.map((m) => [
      `median ${m}`,
      ...arms.map((a) => num(a.median[m as keyof typeof a.median], m === "cost_usd" ? 4 : 0)),
    ]),
  ];
  return table(["", ...arms.map((a) => `arm ${a.arm}`)], rows, "ab arms");
}

function comparisons(v: ExperimentView): HTMLElement {
  const out = h("div", { class: "comparisons" });
  for (const c of v.report.comparisons) {
    const f = c.flips;
    out.append(
      h(
        "h3",
        {},
        `${c.arm} vs ${c.against}`,
        c.same_settings
          ? h("span", { class: "badge warn" }, "same settings: flips measure the flap rate")
          : null,
      ),
      h(
        "p",
        { class: "dim" },
        `${c.pairs} paired repetition(s)${c.pass ? ` · pass: ${c.pass.verdict}${c.pass.p !== null ? ` (p ${num(c.pass.p, 3)})` : ""}` : ""}`,
      ),
      f
        ? table(
            ["flips", `${c.against} passed`, `${c.against} failed`],
            [
              [`${c.arm} passed`, String(f.pass_pass), String(f.pass_fail)],
              [`${c.arm} failed`, String(f.fail_pass), String(f.fail_fail)],
            ],
            "ab flips",
          )
        : "",
      table(
        ["metric", "pairs", `mean ${c.arm} − ${c.against} [95%]`, "verdict"],
        Object.entries(c.metrics).map(([m, d]) => [
          m,
          String(d.pairs),
          interval(d.mean_difference),
          d.verdict,
        ]),
        "ab deltas",
      ),
    );
  }
  return out;
}

/** Rows of (repetition, prompt), a column per arm: the answers aligned by the prompt they answer. */
function byPrompt(v: ExperimentView): HTMLElement {
  const arms = v.report.arms.map((a) => a.arm);
  const reps = [...new Set(v.runs.map((r) => r.repetition))].sort((a, b) => a - b);
  const rows: Cell[][] = [];
  for (const rep of reps) {
    for (let p = 0; p < v.item.prompt_count; p++) {
      rows.push([
        `r${rep} · prompt ${p + 1}`,
        ...arms.map((arm) => {
          const run = v.runs.find((r) => r.arm === arm && r.repetition === rep);
          const t = run?.turns.find((x) => x.index === p) ?? run?.turns[p];
          if (!run) return h("span", { class: "dim" }, "not run");
          if (!t) return h("span", { class: "dim" }, `${run.status}${run.error ? `: ${run.error}` : ""}`);
          return h(
            "div",
            { class: "answer" },
            h(
              "div",
              { class: "dim" },
              `${t.ok ? "ok" : "failed"}${t.exit_code !== null ? ` · exit ${t.exit_code}` : ""} · ${duration(t.duration_ms)}`,
            ),
            h("div", {}, t.answer ?? ""),
          );
        }),
      ]);
    }
  }
  return table(["", ...arms.map((a) => `arm ${a}`)], rows, "ab prompts");
}

export function experimentView(v: ExperimentView): HTMLElement {
  const r = v.report;
  return h(
    "section",
    { class: "experiment", "data-experiment": r.experiment_id },
    h("h2", {}, `${r.kind === "replay" ? "Replay" : "Experiment"} ${r.experiment_id}`),
    h(
      "div",
      { class: "meta" },
      `${r.provider}${r.cli_version ? ` ${r.cli_version}` : ""} · ${r.prompt_count} prompt(s) × ${r.repeat} repetition(s)${r.scenario ? ` · scenario ${r.scenario}` : ""}${r.stopped ? ` · stopped: ${r.stopped}` : ""} · baseline `,
      v.baseline_key !== null
        ? h("a", { href: `#s=${v.baseline_key}`, class: "baseline" }, r.baseline.session_id)
        : r.baseline.session_id,
    ),
    h("h3", {}, "Arms"),
    armsTable(v),
    comparisons(v),
    h("h3", {}, "Answers by prompt"),
    byPrompt(v),
  );
}
