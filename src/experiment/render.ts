// The report as text: a terminal table per arm, then each comparison with its verdict; Markdown likewise.
import { printable } from "../core/base/printable.ts";
import type { ArmSummary, Comparison, ExperimentReport, MetricName } from "./report.ts";
import type { Interval } from "./statistics.ts";

function fmt(n: number | null, digits = 0): string {
  if (n === null) return "—";
  return digits === 0 ? String(Math.round(n)) : n.toFixed(digits);
}

function pct(i: Interval | null): string {
  return i
    ? `${Math.round(i.estimate * 100)}% [${Math.round(i.low * 100)}–${Math.round(i.high * 100)}%]`
    : "—";
}

function diff(i: Interval | null, digits = 0): string {
  return i ? `${fmt(i.estimate, digits)} [${fmt(i.low, digits)}, ${fmt(i.high, digits)}]` : "—";
}

const LABELS: Record<MetricName, [string, number]> = {
  wall_ms: ["wall ms", 0],
  ttft_ms: ["time to first token ms", 0],
  input_tokens: ["input tokens", 0],
  output_tokens: ["output tokens", 0],
  cache_read_tokens: ["cache read tokens", 0],
  cost_usd: ["cost USD", 4],
  tool_calls: ["tool calls", 1],
  tool_errors: ["tool errors", 1],
  injected_bytes: ["injected bytes", 0],
  events: ["events", 0],
  hook_ms: ["hook ms per event", 1],
};

function armRows(a: ArmSummary): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    ["settings", `native memory ${a.native_memory ? "on" : "off"} · retrieval ${a.retrieval ? "on" : "off"}`],
    ["runs", `${a.complete}/${a.runs} complete${a.failed ? `, ${a.failed} failed` : ""}`],
  ];
  if (a.pass) rows.push(["pass rate", `${a.pass.passes}/${a.pass.n} ${pct(a.pass.wilson)}`]);
  for (const [name, [label, digits]] of Object.entries(LABELS) as Array<[MetricName, [string, number]]>) {
    rows.push([`median ${label}`, fmt(a.median[name], digits)]);
  }
  rows.push(["final answer", a.final_answers.map((s) => JSON.stringify(s.slice(0, 120))).join(" | ") || "—"]);
  return rows;
}

function comparisonLines(c: Comparison): string[] {
  const head = `${c.arm} vs ${c.against}: ${c.pairs} pair(s)${c.same_settings ? " (same settings: an A/A check, flips are flap)" : ""}`;
  const lines = [head];
  if (c.flips && c.pass) {
    lines.push(
      `  pass→fail ${c.flips.pass_fail} · fail→pass ${c.flips.fail_pass} · both pass ${c.flips.pass_pass} · both fail ${c.flips.fail_fail}: ${c.pass.verdict}${c.pass.p !== null ? ` (McNemar exact p = ${c.pass.p.toFixed(3)})` : ""}`,
    );
  }
  for (const [name, [label, digits]] of Object.entries(LABELS) as Array<[MetricName, [string, number]]>) {
    const m = c.metrics[name];
    lines.push(`  Δ ${label}: ${diff(m.mean_difference, digits)} · ${m.verdict}`);
  }
  return lines;
}

export function renderReport(r: ExperimentReport): string {
  const out: string[] = [];
  out.push(
    `Experiment ${r.experiment_id} · ${r.provider} ${r.cli_version ?? ""} · model ${r.model_requested ?? "CLI default"}`,
  );
  out.push(
    `Baseline ${r.baseline.session_id} · revision ${r.baseline.revision ?? "none"} · ${r.prompt_count} prompt(s) × ${r.repeat} repetition(s)${r.scenario ? ` · scenario ${r.scenario}` : ""}`,
  );
  if (r.stopped) out.push(`Stopped: ${r.stopped}`);
  for (const a of r.arms) {
    out.push("", `Arm ${a.arm}`);
    const rows = armRows(a);
    const w = Math.max(...rows.map(([k]) => k.length)) + 2;
    for (const [k, v] of rows) out.push(`  ${k.padEnd(w)}${v}`);
  }
  out.push("", "Runs");
  for (const m of r.runs) {
    out.push(
      `  ${m.run_id.padEnd(20)} ${m.status.padEnd(11)} ${fmt(m.wall_ms).padStart(7)} ms · ${m.tokens.input} in / ${m.tokens.output} out (${m.tokens.sources.join(",") || "no usage"}) · ${m.tool_calls} tools · ${m.injected_bytes} B injected${m.passed === null ? "" : m.passed ? " · pass" : " · fail"}`,
    );
    if (m.hooks) {
      out.push(
        `    hooks: ${m.hooks.invocations} × ${m.hooks.mean_ms} ms (max ${m.hooks.max_ms}, Node start-up ${m.hooks.boot_mean_ms} of it) = ${m.hook_ms_per_event} ms per recorded event`,
      );
    }
    out.push(
      `    settings ${m.labels.settings_root ?? "—"} · sessions ${m.labels.session_root ?? "—"}${m.error ? ` · error: ${m.error}` : ""}`,
    );
  }
  if (r.comparisons.length > 0) out.push("", "Comparisons (paired by repetition; intervals are 95%)");
  for (const c of r.comparisons) out.push(...comparisonLines(c));
  // Ids, labels, paths and errors are the experiment record's (a file in the project): each line one line.
  return `${out.map(printable).join("\n")}\n`;
}

export function renderMarkdown(r: ExperimentReport): string {
  const out: string[] = [`# Experiment ${r.experiment_id}`, ""];
  out.push(
    `- Provider: ${r.provider} ${r.cli_version ?? ""}`,
    `- Model requested: ${r.model_requested ?? "CLI default"}`,
  );
  out.push(
    `- Baseline: ${r.baseline.session_id} at ${r.baseline.revision ?? "no revision"}`,
    `- Prompts: ${r.prompt_count} × ${r.repeat} repetition(s)`,
  );
  if (r.stopped) out.push(`- Stopped: ${r.stopped}`);
  out.push("", `| | ${r.arms.map((a) => a.arm).join(" | ")} |`, `|---|${r.arms.map(() => "---").join("|")}|`);
  const rowsByArm = r.arms.map(armRows);
  for (let i = 0; i < (rowsByArm[0]?.length ?? 0); i++) {
    out.push(
      `| ${rowsByArm[0]![i]![0]} | ${rowsByArm.map((rows) => rows[i]![1].replaceAll("|", "\\|")).join(" | ")} |`,
    );
  }
  if (r.comparisons.length > 0) out.push("", "## Comparisons", "");
  for (const c of r.comparisons) out.push(...comparisonLines(c).map((l) => `- ${l.trim()}`), "");
  // Ids, labels, paths and errors are the experiment record's (a file in the project): each line one line.
  return `${out.map(printable).join("\n")}\n`;
}
