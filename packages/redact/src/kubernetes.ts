// Kubernetes Secrets: every value under `data:` / `stringData:` is a secret,
// whatever its key is called (`stripe-key`, `tls.key`, `config.json`).
import { isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";

const K8S_SECRET = /\bkind\\{0,3}["']?[ \t]*:[ \t]*\\{0,3}["']?Secret\b/;
const K8S_DATA_YAML = /^([ \t]*)(?:data|stringData):[ \t]*\r?$/gm;
const K8S_DATA_JSON = /"(?:data|stringData)"[ \t]*:[ \t]*\{/g;

export function k8sSecretSpans(text: string, spans: Span[]): void {
  if (!K8S_SECRET.test(text)) return;
  K8S_DATA_YAML.lastIndex = 0;
  for (let dm = K8S_DATA_YAML.exec(text); dm !== null; dm = K8S_DATA_YAML.exec(text)) {
    const indent = (dm[1] as string).length;
    let pos = dm.index + dm[0].length + 1;
    while (pos < text.length) {
      let le = text.indexOf("\n", pos);
      if (le < 0) le = text.length;
      const line = text.slice(pos, le);
      const lm = /^([ \t]*)[A-Za-z0-9_.-]+:[ \t]*["']?([^\s"'|>][^\s"']*)/.exec(line);
      if (lm === null || (lm[1] as string).length <= indent) break;
      const v = lm[2] as string;
      if (!isPlaceholder(v)) {
        const vs = pos + lm[0].length - v.length;
        spans.push({ s: vs, e: vs + v.length, kind: "kubernetes_secret", p: 1 });
      }
      pos = le + 1;
    }
  }
  K8S_DATA_JSON.lastIndex = 0;
  for (let dm = K8S_DATA_JSON.exec(text); dm !== null; dm = K8S_DATA_JSON.exec(text)) {
    const end = text.indexOf("}", dm.index);
    const body = text.slice(dm.index + dm[0].length, end < 0 ? text.length : end);
    const base = dm.index + dm[0].length;
    for (const vm of body.matchAll(/"[^"]{1,253}"[ \t]*:[ \t]*"([^"]{1,65536})"/g)) {
      const v = vm[1] as string;
      if (isPlaceholder(v)) continue;
      const vs = base + (vm.index as number) + vm[0].length - v.length - 1;
      spans.push({ s: vs, e: vs + v.length, kind: "kubernetes_secret", p: 1 });
    }
  }
}
