// Kubernetes Secrets: every value under `data:` / `stringData:` is a secret,
// whatever its key is called (`stripe-key`, `tls.key`, `config.json`). Its lines are read as
// ./lines.ts reads them, so a manifest quoted in a JSON string (a transcript's tool_result) is read too.
import { isBlank } from "./chars.ts";
import { breakBefore, lineEndIn, pastBreak } from "./lines.ts";
import { isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { valueBelow } from "./yaml-blocks.ts";

const K8S_SECRET = /(?:\b|\\[nrt])kind\\{0,3}["']?[ \t]*:[ \t]*\\{0,3}["']?Secret\b/;
const K8S_DATA_WORD = /(?:data|stringData):/g;
const K8S_DATA_JSON = /\\{0,7}"(?:data|stringData)\\{0,7}"[ \t]*:[ \t]*\{/g;
// A data line: its key (bare or quoted), then a value, a block scalar's indicator, or nothing.
const DATA_LINE =
  /^([ \t]*)(?:[A-Za-z0-9_.-]+|\\{0,7}["'][A-Za-z0-9_.-]{1,253}\\{0,7}["']):[ \t]*(?:\\{0,7}["'])?([^\s"'|>\\][^\s"'\\]*|[|>][-+]?[1-9]?[ \t]*$|$)/;
// `data: {tls.key: LS0t..., tls.crt: LS0t...}`: a flow mapping on the data line itself.
const FLOW_PAIR =
  /([A-Za-z0-9_.-]{1,253}|"[^"\\]{1,253}"|'[^'\\]{1,253}')[ \t]*:[ \t]*(?:["'])?([^\s"',{}]+)/g;
const MAX_LINE = 65536;

/** The indent of a `data:` at `at` that starts its line, or -1; a flow mapping after it is read here. */
function dataIndent(text: string, at: number, word: number, spans: Span[]): number {
  let ls = at;
  while (ls > 0 && isBlank(text.charCodeAt(ls - 1))) ls--;
  if (ls > 0 && !breakBefore(text, ls)) return -1;
  let e = at + word;
  while (isBlank(text.charCodeAt(e)) || text.charCodeAt(e) === 13) e++;
  if (text.charCodeAt(e) === 123) {
    flowData(text, e, spans);
    return -1;
  }
  return e === text.length || lineEndIn(text, e, 1) === e ? at - ls : -1;
}

function flowData(text: string, open: number, spans: Span[]): void {
  const le = lineEndIn(text, open, MAX_LINE);
  const close = text.slice(open, le).indexOf("}");
  const body = text.slice(open + 1, close < 0 ? le : open + close);
  for (const m of body.matchAll(FLOW_PAIR)) {
    const v = m[2] as string;
    if (isPlaceholder(v)) continue;
    const vs = open + 1 + (m.index as number) + m[0].length - v.length;
    spans.push({ s: vs, e: vs + v.length, kind: "kubernetes_secret", p: 1 });
  }
}

function yamlData(text: string, spans: Span[]): void {
  K8S_DATA_WORD.lastIndex = 0;
  for (let dm = K8S_DATA_WORD.exec(text); dm !== null; dm = K8S_DATA_WORD.exec(text)) {
    const indent = dataIndent(text, dm.index, dm[0].length, spans);
    if (indent < 0) continue;
    let pos = pastBreak(text, lineEndIn(text, dm.index, MAX_LINE));
    while (pos < text.length) {
      let le = lineEndIn(text, pos, MAX_LINE);
      const lm = DATA_LINE.exec(text.slice(pos, le));
      if (lm === null || (lm[1] as string).length <= indent) break;
      const v = lm[2] as string;
      if (v === "" || v.charCodeAt(0) === 124 || v.charCodeAt(0) === 62) {
        // kubectl folds a long value under its key (`key: >-`): the lines below are the value.
        const below = valueBelow(
          text,
          pos + (lm[1] as string).length,
          pos + lm[0].length - v.length,
          "kubernetes_secret",
          spans,
        );
        if (below >= 0) le = lineEndIn(text, below, MAX_LINE);
      } else if (!isPlaceholder(v)) {
        const vs = pos + lm[0].length - v.length;
        spans.push({ s: vs, e: vs + v.length, kind: "kubernetes_secret", p: 1 });
      }
      pos = pastBreak(text, le);
    }
    K8S_DATA_WORD.lastIndex = Math.max(K8S_DATA_WORD.lastIndex, pos);
  }
}

function jsonData(text: string, spans: Span[]): void {
  K8S_DATA_JSON.lastIndex = 0;
  for (let dm = K8S_DATA_JSON.exec(text); dm !== null; dm = K8S_DATA_JSON.exec(text)) {
    const base = dm.index + dm[0].length;
    // Read once, in a bounded window: a text of many unclosed `"data": {` read each to the text's end, and
    // each pair again for every `"data": {` before it (20,000 of them ran out of memory).
    const window = text.slice(base, base + 65536);
    const end = window.indexOf("}");
    const body = end < 0 ? window : window.slice(0, end);
    K8S_DATA_JSON.lastIndex = base + body.length;
    for (const vm of body.matchAll(/\\{0,7}"[^"\\]{1,253}\\{0,7}"[ \t]*:[ \t]*\\{0,7}"([^"\\]{1,65536})/g)) {
      const v = vm[1] as string;
      if (isPlaceholder(v)) continue;
      const vs = base + (vm.index as number) + vm[0].length - v.length;
      spans.push({ s: vs, e: vs + v.length, kind: "kubernetes_secret", p: 1 });
    }
  }
}

export function k8sSecretSpans(text: string, spans: Span[]): void {
  if (!K8S_SECRET.test(text)) return;
  yamlData(text, spans);
  jsonData(text, spans);
}
