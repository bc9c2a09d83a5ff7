// The CHANGELOG from the commit subjects (CONTRIBUTING.md: `area: what changed`, at most 72 characters).
// `npm run changelog` prints the entries since the last release tag (`v*`), or before the first release since
// the commit CHANGELOG.md names in its `<!-- changelog: after SHA -->` line, grouped by area, the convention's
// areas in their order, anything else after; `npm run changelog -- --write` puts them under "Unreleased" in
// CHANGELOG.md and leaves every released section as it is. A subject that does not follow the convention is
// listed under "other" with its whole text, so nothing is dropped.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

/** The areas of CONTRIBUTING.md, in the order a reader looks for them. */
export const AREAS = [
  "core",
  "archive",
  "hook",
  "redaction",
  "providers",
  "claude",
  "codex",
  "gemini",
  "antigravity",
  "import",
  "proxy",
  "mirror",
  "serve",
  "memory",
  "index",
  "retrieval",
  "usage",
  "viewer",
  "otel",
  "experiment",
  "scenario",
  "mcp",
  "cli",
  "demo",
  "security",
  "bench",
  "docs",
  "build",
  "ci",
  "test",
  "e2e",
] as const;

export const MAX_SUBJECT = 72;

export interface Entry {
  area: string;
  text: string;
}

/** `area: text` (an area is a lowercase word, optionally with `/` parts); otherwise the area is "other". */
export function parseSubject(subject: string): Entry {
  const m = /^([a-z][a-z0-9-]*(?:\/[a-z0-9.-]+)*): (\S.*)$/.exec(subject.trim());
  if (!m) return { area: "other", text: subject.trim() };
  return { area: m[1]!.split("/")[0]!, text: m[2]! };
}

/** Whether a subject follows the convention: a known area, a text, at most MAX_SUBJECT characters. */
export function followsConvention(subject: string): boolean {
  const e = parseSubject(subject);
  return (AREAS as readonly string[]).includes(e.area) && subject.length <= MAX_SUBJECT;
}

export function render(entries: readonly Entry[]): string {
  const byArea = new Map<string, string[]>();
  for (const e of entries) byArea.set(e.area, [...(byArea.get(e.area) ?? []), e.text]);
  const order = [
    ...AREAS,
    ...[...byArea.keys()].filter((a) => !(AREAS as readonly string[]).includes(a)).sort(),
  ];
  return order
    .filter((a) => byArea.has(a))
    .map(
      (a) =>
        `### ${a}\n\n${byArea
          .get(a)!
          .map((t) => `- ${t}`)
          .join("\n")}\n`,
    )
    .join("\n");
}

/** CHANGELOG.md with its "Unreleased" section replaced by `body` (added after the title when absent). */
export function withUnreleased(changelog: string, body: string): string {
  const section = `## Unreleased\n\n${body}`;
  const start = changelog.indexOf("## Unreleased");
  if (start < 0) {
    const firstRelease = changelog.indexOf("\n## ");
    if (firstRelease < 0) return `${changelog.trimEnd()}\n\n${section}`;
    return `${changelog.slice(0, firstRelease + 1)}${section}\n${changelog.slice(firstRelease + 1)}`;
  }
  const next = changelog.indexOf("\n## ", start + 1);
  return `${changelog.slice(0, start)}${section}${next < 0 ? "" : `\n${changelog.slice(next + 1)}`}`;
}

function git(args: string[]): string {
  // git's own complaint (no tag yet) is an answer here, not an error to show.
  return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
}

/** The commit the changelog starts after: CHANGELOG.md's marker line. */
export function markerOf(changelog: string): string | undefined {
  return /<!-- changelog: after ([0-9a-f]{7,40}) -->/.exec(changelog)?.[1];
}

function subjectsSinceRelease(changelog: string): string[] {
  let range = "HEAD";
  try {
    range = `${git(["describe", "--tags", "--abbrev=0", "--match", "v*"]).trim()}..HEAD`;
  } catch {
    // No release yet: from the marker (the history before it predates the convention).
    const marker = markerOf(changelog);
    if (marker) range = `${marker}..HEAD`;
  }
  return git(["log", "--no-merges", "--format=%s", range]).split("\n").filter(Boolean).reverse();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = "CHANGELOG.md";
  const changelog = readFileSync(path, "utf8");
  const body = render(subjectsSinceRelease(changelog).map(parseSubject));
  if (process.argv.includes("--write")) {
    writeFileSync(path, withUnreleased(changelog, body));
  } else {
    process.stdout.write(body);
  }
}
