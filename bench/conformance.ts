// `npm run conformance`: tapedeck over transcripts nobody here wrote. The corpus is a folder of other tools'
// fixtures and real users' sessions (Claude Code, Codex CLI, Gemini CLI), kept outside the repository: found
// through TAPEDECK_CONFORMANCE_CORPUS, else `../shared/external-corpus` beside the repository (or beside the
// main checkout, from a git worktree). Without it the command says so and exits 0.
//
// Each file is laid out in a scratch home as its agent keeps it (`.claude/projects/<slug>/<id>.jsonl`,
// `.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, `.gemini/tmp/<slug>/chats/session-*`), its recorded cwd pointed
// at a scratch directory (the file's bytes are otherwise unchanged: a rewrite would hide formatting quirks).
// Then import, a second import, list, show, inspect, export and usage run as a user runs them, and a table per
// file says what came of it: its records, the events they became, the tokens counted, what was skipped and
// why. Nothing of the corpus is kept: the scratch directory is removed at the end (--keep keeps it).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { tempDir } from "./lib.ts";

const REPO = join(import.meta.dirname, "..");
const CLI = join(REPO, "dist", "cli.js");
const CCUSAGE = join(REPO, "node_modules", ".bin", "ccusage");

type Agent = "claude" | "codex" | "gemini";

interface CorpusFile {
  /** relative to the corpus */
  rel: string;
  agent: Agent | undefined;
  /** why it is not laid out as an agent's session file */
  note?: string;
  /** where it was laid out, in the scratch home */
  laid?: string;
  records: number;
}

interface FileRow {
  file: string;
  agent: string;
  records: number;
  events: number;
  tokens: number;
  skipped: string;
  status: string;
}

/** The main checkout of a git worktree (its `.git` file names `<main>/.git/worktrees/<name>`). */
function mainCheckout(repo: string): string | undefined {
  try {
    const text = readFileSync(join(repo, ".git"), "utf8");
    const m = /^gitdir:\s*(.+)$/m.exec(text);
    return m ? dirname(dirname(dirname(m[1]!.trim()))) : undefined;
  } catch {
    return undefined;
  }
}

export function corpusDir(env = process.env): string | undefined {
  const candidates = [env.TAPEDECK_CONFORMANCE_CORPUS];
  for (const root of [REPO, mainCheckout(REPO)])
    if (root) candidates.push(join(root, "..", "shared", "external-corpus"));
  return candidates.find((c): c is string => !!c && existsSync(c) && statSync(c).isDirectory());
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, e.name);
    if (e.isDirectory()) walk(path, out);
    else if (e.isFile()) out.push(path);
  }
  return out;
}

function jsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      out.push(undefined);
    }
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const CODEX_TYPES = new Set([
  "session_meta",
  "response_item",
  "event_msg",
  "turn_context",
  "compacted",
  "token_usage_record",
]);

/** Which agent wrote a file, by what its records are (never by its name: fixtures are named anyhow). */
function sniff(path: string, text: string): { agent?: Agent; note?: string; records: number } {
  if (path.endsWith(".meta.json"))
    return { note: "a subagent's meta file (read beside its transcript)", records: 0 };
  if (path.endsWith(".json")) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return { note: "not JSON", records: 0 };
    }
    if (isObject(doc) && Array.isArray(doc.messages))
      return { agent: "gemini", records: doc.messages.length };
    if (isObject(doc) && Array.isArray(doc.history)) return { agent: "gemini", records: doc.history.length };
    if (isObject(doc) && isObject(doc.projects))
      return { note: "Gemini's projects.json (read with its chats)", records: 0 };
    return { note: "a JSON document of no agent's session format", records: 0 };
  }
  if (!path.endsWith(".jsonl")) return { note: "not a session file", records: 0 };
  const records = jsonLines(text);
  const objects = records.filter(isObject);
  if (objects.some((r) => typeof r.type === "string" && CODEX_TYPES.has(r.type)))
    return { agent: "codex", records: records.length };
  if (
    objects.some((r) => r.type === "gemini") ||
    (isObject(objects[0]) && objects[0].sessionId && objects[0].type === undefined && objects[0].startTime)
  )
    return { agent: "gemini", records: records.length };
  if (objects.length > 0 && objects.every((r) => "display" in r && r.type === undefined))
    return {
      note: "Claude Code's prompt history (history.jsonl): prompts only, no session",
      records: records.length,
    };
  return { agent: "claude", records: records.length };
}

const CWD = /("cwd"\s*:\s*")((?:[^"\\]|\\.)*)(")/g;

/** The file's text with each recorded cwd pointed at a scratch directory (made), nothing else changed. */
function pointCwds(text: string, cwdOf: (cwd: string) => string): { text: string; first?: string } {
  let first: string | undefined;
  const out = text.replace(CWD, (_m, a: string, value: string, b: string) => {
    let cwd: string;
    try {
      cwd = JSON.parse(`"${value}"`);
    } catch {
      return `${a}${value}${b}`;
    }
    if (!cwd.startsWith("/")) return `${a}${value}${b}`;
    const to = cwdOf(cwd);
    first ??= to;
    return `${a}${JSON.stringify(to).slice(1, -1)}${b}`;
  });
  return first === undefined ? { text: out } : { text: out, first };
}

const slugOf = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, "-");

function sessionIdOf(rel: string, records: unknown[]): string {
  const name = basename(rel).replace(/\.jsonl?$/, "");
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/.test(name) || name.startsWith("agent-")) return name;
  const id = records
    .filter(isObject)
    .map((r) => r.sessionId)
    .find((s) => typeof s === "string");
  return typeof id === "string" && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)
    ? `${id}`
    : rel
        .replace(/\.jsonl?$/, "")
        .replace(/[^A-Za-z0-9._-]/g, "_")
        .slice(-100);
}

/** Lays every file of the corpus out in `home` as its agent keeps it; `work` holds the scratch cwds. */
function layOut(corpus: string, home: string, work: string): CorpusFile[] {
  const cwds = new Map<string, string>();
  const cwdOf = (cwd: string) => {
    let to = cwds.get(cwd);
    if (!to) {
      to = join(work, `${cwds.size}-${basename(cwd).replace(/[^A-Za-z0-9._-]/g, "_") || "root"}`);
      mkdirSync(to, { recursive: true });
      cwds.set(cwd, to);
    }
    return to;
  };
  const files: CorpusFile[] = [];
  const claudeSlugOfSession = new Map<string, string>();
  const paths = walk(corpus).filter((p) => !p.endsWith(".md"));
  // Main transcripts first, so that a subagent's file goes where its session's went.
  paths.sort(
    (a, b) => Number(a.includes(`${sep}subagents${sep}`)) - Number(b.includes(`${sep}subagents${sep}`)),
  );
  let n = 0;
  for (const path of paths) {
    n += 1;
    const rel = relative(corpus, path);
    const raw = readFileSync(path, "utf8");
    const kind = sniff(path, raw);
    const file: CorpusFile = { rel, agent: kind.agent, records: kind.records };
    if (kind.note) file.note = kind.note;
    files.push(file);
    if (!kind.agent) {
      if (path.endsWith(".meta.json")) {
        const parent = basename(dirname(dirname(path)));
        const slug = claudeSlugOfSession.get(parent);
        if (slug) {
          const to = join(home, ".claude", "projects", slug, parent, "subagents", basename(path));
          mkdirSync(dirname(to), { recursive: true });
          writeFileSync(to, raw);
          file.laid = to;
        }
      }
      continue;
    }
    const { text, first } = pointCwds(raw, cwdOf);
    const records = kind.agent === "gemini" && path.endsWith(".json") ? [] : jsonLines(text);
    let to: string;
    if (kind.agent === "claude") {
      const sub = rel.split(sep);
      const at = sub.lastIndexOf("subagents");
      if (at > 0) {
        const parent = sub[at - 1]!;
        const slug = claudeSlugOfSession.get(parent) ?? slugOf(first ?? work);
        claudeSlugOfSession.set(parent, slug);
        to = join(home, ".claude", "projects", slug, parent, ...sub.slice(at));
      } else {
        const id = sessionIdOf(rel, records);
        const slug = slugOf(first ?? work);
        claudeSlugOfSession.set(id, slug);
        to = join(home, ".claude", "projects", slug, `${id}.jsonl`);
      }
    } else if (kind.agent === "codex") {
      const name = basename(path).startsWith("rollout-")
        ? basename(path)
        : `rollout-2026-01-01T00-00-${String(n).padStart(4, "0")}-${basename(path)
            .replace(/\.jsonl$/, "")
            .replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`;
      to = join(home, ".codex", "sessions", "2026", "01", "01", name);
    } else {
      const slug = `corpus-${n}`;
      const ext = path.endsWith(".json") ? ".json" : ".jsonl";
      const name = basename(path).startsWith("session-")
        ? basename(path)
        : `session-2026-01-01T00-00-${String(n).padStart(4, "0")}${ext}`;
      to = join(home, ".gemini", "tmp", slug, "chats", name);
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(join(home, ".gemini", "tmp", slug, ".project_root"), work);
    }
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
    file.laid = to;
  }
  return files;
}

function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env,
    cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

interface ImportedFileStats {
  path: string;
  records?: number;
  events?: number;
  tokens?: number;
  skipped?: Record<string, number>;
  unknown?: Record<string, number>;
  malformed?: number;
}

function sumTokens(u: Record<string, unknown> | undefined): number {
  if (!u) return 0;
  let n = 0;
  for (const k of [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
  ]) {
    if (typeof u[k] === "number") n += u[k] as number;
  }
  return n;
}

export function runConformance(corpus: string, options: { keep?: boolean } = {}) {
  const { dir, cleanup } = tempDir("tapedeck-conformance-");
  const home = join(dir, "home");
  const work = join(dir, "work");
  mkdirSync(join(work, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    TAPEDECK_HOME: join(home, ".tapedeck"),
    TZ: "UTC",
  };
  try {
    const files = layOut(corpus, home, work);
    const first = cli(["import", "all", "--project", work, "--json"], env, work);
    const result = json(first.stdout);
    const again = json(cli(["import", "all", "--project", work, "--json"], env, work).stdout);
    const imported = (result.imported as Array<Record<string, unknown>> | undefined) ?? [];
    const skipped = (result.skipped as Array<{ source: string; reason: string }> | undefined) ?? [];
    const byPath = new Map<string, ImportedFileStats>();
    const sessionOf = new Map<string, Record<string, unknown>>();
    for (const s of imported) {
      const stats = (s.files as ImportedFileStats[] | undefined) ?? [];
      for (const f of stats) byPath.set(f.path, f);
      if (stats.length === 0)
        byPath.set(String(s.source), {
          path: String(s.source),
          events: Number(s.events),
          malformed: Number(s.malformed_lines),
        });
      for (const f of stats.length > 0 ? stats.map((x) => x.path) : [String(s.source)]) sessionOf.set(f, s);
    }
    // The readers, each session as a user opens it.
    const failures: string[] = [];
    const list = cli(["list", "--json"], env, work);
    if (list.status !== 0) failures.push(`list: exit ${list.status}`);
    for (const s of imported) {
      const id = String(s.session_id);
      for (const args of [
        ["show", id],
        ["inspect", id, "--json"],
        ["export", id, "--format", "jsonl"],
      ]) {
        const r = cli(args, env, work);
        if (r.status !== 0)
          failures.push(`${args.join(" ")}: exit ${r.status} ${r.stderr.trim().slice(0, 200)}`);
      }
    }
    const usage = cli(["usage", "session", "--json"], env, work);
    if (usage.status !== 0) failures.push(`usage: exit ${usage.status}`);
    const usageRows = (json(usage.stdout).rows as Array<Record<string, unknown>> | undefined) ?? [];
    const rows: FileRow[] = [];
    for (const f of files) {
      const laid = f.laid;
      const stats = laid ? byPath.get(laid) : undefined;
      const skip = laid ? skipped.filter((s) => s.source === laid).map((s) => s.reason) : [];
      const reasons = [
        ...Object.entries(stats?.skipped ?? {}).map(([t, c]) => `${t}×${c}`),
        ...Object.entries(stats?.unknown ?? {}).map(([t, c]) => `unknown ${t}×${c}`),
        ...(stats?.malformed ? [`malformed×${stats.malformed}`] : []),
      ];
      let status: string;
      if (!f.agent) status = f.note ?? "not a session file";
      else if (skip.length > 0) status = `refused: ${skip.join("; ")}`;
      else if (stats) status = "imported";
      else status = "not imported (no reason given)";
      rows.push({
        file: f.rel,
        agent: f.agent ?? "-",
        records: stats?.records ?? f.records,
        events: stats?.events ?? 0,
        tokens: stats?.tokens ?? 0,
        skipped: reasons.join(", "),
        status,
      });
    }
    const sessionTokens = usageRows.reduce((n, r) => n + sumTokens(r), 0);
    const totals = {
      files: files.length,
      session_files: files.filter((f) => f.agent).length,
      imported: rows.filter((r) => r.status === "imported").length,
      refused: rows.filter((r) => r.status.startsWith("refused")).length,
      unexplained: rows.filter((r) => r.status.startsWith("not imported")).length,
      records: rows.reduce((n, r) => n + (r.agent === "-" ? 0 : r.records), 0),
      events: Number(result.events ?? 0),
      tokens: sessionTokens,
      second_import_events: Number(again.events ?? 0),
      reader_failures: failures.length,
    };
    const ccusage = existsSync(CCUSAGE) ? compareCcusage(home, env, work) : undefined;
    return {
      corpus: basename(corpus),
      rows,
      totals,
      failures,
      ccusage,
      scratch: options.keep ? dir : undefined,
    };
  } finally {
    if (!options.keep) cleanup();
  }
}

interface Counts {
  input: number;
  cacheRead: number;
  cacheCreate: number;
  output: number;
}

/** ccusage's and tapedeck's Claude input and cache tokens per session and per day in three time zones. */
function compareCcusage(home: string, env: NodeJS.ProcessEnv, work: string) {
  const mismatches: string[] = [];
  let compared = 0;
  const ccEnv = { ...env, CLAUDE_CONFIG_DIR: join(home, ".claude") };
  for (const zone of ["UTC", "America/Los_Angeles", "Asia/Tokyo"]) {
    const cc = spawnSync(CCUSAGE, ["daily", "--json", "--offline", "--timezone", zone], {
      env: ccEnv,
      encoding: "utf8",
    });
    const td = cli(["usage", "daily", "--provider", "claude", "--timezone", zone, "--json"], env, work);
    const ccDays = new Map<string, Counts>();
    for (const d of (json(cc.stdout).daily as Array<Record<string, unknown>> | undefined) ?? [])
      ccDays.set(String(d.date), {
        input: Number(d.inputTokens ?? 0),
        cacheRead: Number(d.cacheReadTokens ?? 0),
        cacheCreate: Number(d.cacheCreationTokens ?? 0),
        output: Number(d.outputTokens ?? 0),
      });
    const tdDays = new Map<string, Counts>();
    for (const r of (json(td.stdout).rows as Array<Record<string, unknown>> | undefined) ?? []) {
      const key = String(r.period ?? r.date ?? r.key);
      tdDays.set(key, {
        input: Number(r.input_tokens ?? 0),
        cacheRead: Number(r.cache_read_input_tokens ?? 0),
        cacheCreate: Number(r.cache_creation_input_tokens ?? 0),
        output: Number(r.output_tokens ?? 0),
      });
    }
    for (const [day, c] of ccDays) {
      compared += 1;
      const t = tdDays.get(day);
      if (!t || t.input !== c.input || t.cacheRead !== c.cacheRead || t.cacheCreate !== c.cacheCreate)
        mismatches.push(
          `${zone} ${day}: ccusage in ${c.input} cr ${c.cacheRead} cc ${c.cacheCreate}; tapedeck ${t ? `in ${t.input} cr ${t.cacheRead} cc ${t.cacheCreate}` : "none"}`,
        );
    }
  }
  return { compared_days: compared, mismatches };
}

function table(rows: FileRow[]): string {
  const head = ["file", "agent", "records", "events", "tokens", "skipped (by type)", "status"];
  const cells = rows.map((r) => [
    r.file,
    r.agent,
    String(r.records),
    String(r.events),
    String(r.tokens),
    r.skipped,
    r.status,
  ]);
  const widths = head.map((h, i) =>
    Math.min(i === 0 ? 70 : 60, Math.max(h.length, ...cells.map((c) => c[i]!.length))),
  );
  const clip = (s: string, w: number) => (s.length > w ? `…${s.slice(s.length - w + 1)}` : s.padEnd(w));
  return [head, ...cells]
    .map((c) =>
      c
        .map((s, i) => clip(s, widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const corpus = corpusDir();
  if (!corpus) {
    console.log(
      "conformance: no corpus (set TAPEDECK_CONFORMANCE_CORPUS, or put it at ../shared/external-corpus)",
    );
    process.exit(0);
  }
  const out = runConformance(corpus, { keep: process.argv.includes("--keep") });
  if (process.argv.includes("--json")) console.log(JSON.stringify(out, null, 2));
  else {
    console.log(table(out.rows));
    console.log("");
    console.log(JSON.stringify(out.totals));
    for (const f of out.failures) console.log(`reader failure: ${f}`);
    if (out.ccusage) {
      console.log(
        `ccusage: ${out.ccusage.compared_days} day(s) compared, ${out.ccusage.mismatches.length} differ`,
      );
      for (const m of out.ccusage.mismatches) console.log(`  ${m}`);
    }
    if (out.scratch) console.log(`scratch kept: ${out.scratch}`);
  }
}
