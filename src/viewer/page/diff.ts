// A line diff for Edit calls, size-guarded: the LCS table is lines(a) x lines(b), so past a limit the
// page says "too large to preview" instead of stalling the tab.
export const MAX_DIFF_CELLS = 250_000;
export const MAX_DIFF_CHARS = 64 * 1024;

export type DiffLine = { op: " " | "-" | "+"; text: string };

export function lineDiff(a: string, b: string): DiffLine[] | null {
  if (a.length + b.length > MAX_DIFF_CHARS) return null;
  const x = a.split("\n");
  const y = b.split("\n");
  if (x.length * y.length > MAX_DIFF_CELLS) return null;
  const n = x.length;
  const m = y.length;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        x[i] === y[j]
          ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: " ", text: x[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!) out.push({ op: "-", text: x[i++]! });
    else out.push({ op: "+", text: y[j++]! });
  }
  while (i < n) out.push({ op: "-", text: x[i++]! });
  while (j < m) out.push({ op: "+", text: y[j++]! });
  return out;
}
