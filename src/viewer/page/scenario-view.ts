// A scenario result: each sample (the recorded session, or one replay per arm and repetition) with its
// verdict, scores and every check's outcome and evidence, linked to the session it graded when it is listed.
import type { ScenarioResult } from "../../scenario/schema.ts";
import { h } from "./dom.ts";

export type ScenarioResultView = ScenarioResult & { key: string; session_keys: Array<string | null> };

function score(s: { passed: number; total: number }): string {
  return s.total === 0 ? "—" : `${s.passed}/${s.total}`;
}

export function scenarioView(r: ScenarioResultView): HTMLElement {
  const samples = r.samples.map((s, i) => {
    const key = r.session_keys[i] ?? null;
    const checks = h(
      "table",
      { class: "ab checks" },
      h("thead", {}, h("tr", {}, ...["check", "outcome", "evidence"].map((x) => h("th", {}, x)))),
      h(
        "tbody",
        {},
        ...s.checks.map((c) =>
          h(
            "tr",
            { "data-check": c.id, "data-outcome": c.outcome },
            h("td", {}, `${c.kind} ${c.id}`),
            h(
              "td",
              { class: c.outcome === "pass" ? "ok" : c.outcome === "fail" ? "bad" : "warn" },
              c.outcome,
            ),
            h(
              "td",
              {},
              h("pre", { class: "evidence" }, c.evidence ?? "—"),
              c.measured !== null && c.measured !== undefined
                ? h(
                    "div",
                    { class: "dim" },
                    `measured ${c.measured}${c.limit != null ? ` · limit ${c.limit}` : ""}`,
                  )
                : null,
              c.exit_code !== null && c.exit_code !== undefined
                ? h("div", { class: "dim" }, `exit ${c.exit_code}${c.timed_out ? " · timed out" : ""}`)
                : null,
            ),
          ),
        ),
      ),
    );
    return h(
      "section",
      { class: "sample", "data-passed": String(s.passed) },
      h(
        "h3",
        {},
        `${s.against}${s.against === "replay" ? ` · arm ${s.arm} · r${s.repetition}` : ""} `,
        h("span", { class: `badge ${s.passed ? "okb" : "err"}` }, s.passed ? "passed" : "failed"),
        key !== null
          ? h("a", { href: `#s=${key}`, class: "jump sample-session" }, " open the session")
          : null,
      ),
      h(
        "p",
        { class: "dim" },
        `expected facts ${score(s.scores.expected_facts)} · forbidden facts ${score(s.scores.forbidden_facts)} · validators ${score(s.scores.validators)} · limits ${score(s.scores.limits)}${s.error ? ` · error: ${s.error}` : ""}`,
      ),
      s.final_answer_excerpt ? h("blockquote", { class: "answer" }, s.final_answer_excerpt) : null,
      checks,
    );
  });
  return h(
    "section",
    { class: "scenario-result", "data-scenario": r.scenario.id },
    h(
      "h2",
      {},
      `Scenario ${r.scenario.id} `,
      h("span", { class: `badge ${r.passed ? "okb" : "err"}` }, r.passed ? "passed" : "failed"),
    ),
    h(
      "div",
      { class: "meta" },
      `against ${r.against} · ${r.samples.length} sample(s) · ${r.created_at.replace("T", " ").slice(0, 19)} UTC · source ${r.source_session_id}`,
    ),
    ...samples,
  );
}
