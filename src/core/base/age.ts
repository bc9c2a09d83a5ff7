// An age as people type it for a command-line filter (`--older-than 30d`, `--since 12h`): one reading for
// list, delete, prune and the configured retention, in a module of its own so that `list` loads nothing
// else of the retention rule.

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `30d`, `12h`, `90m`, `2w` → milliseconds; undefined when it is not one. */
export function parseAge(text: string): number | undefined {
  const m = /^([0-9]{1,6})(m|h|d|w)$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}
