// Provider knowledge lives behind the catalog entry (src/providers/<name>/, named in catalog.ts and the lean
// lists): outside src/providers/ no code names a provider. Checked on the syntax tree, so that comments and
// prose (help text, messages) may speak of Claude or Codex, while a value code compares or writes may not: a
// string that is a provider's name or begins with one (`"codex"`, `"claude-code"`, `"gemini_cli"`,
// `"claude:"`), an object key so named, or an import of one provider's folder. Each file allowed below says
// why; an entry that no longer names a provider fails, so the list only shrinks.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../../src/cli/providers.ts";

const SRC = join(process.cwd(), "src");

const ALLOWED: Record<string, string> = {
  // Claude-only features: what they read and write is Claude's transcript and the proxy's mirror of it, whose
  // code is in providers/claude/; the command names the one provider it serves.
  "cli/commands/demo.ts": "the demo records a real claude against the built-in mock model",
  "cli/commands/mirror.ts": "mirror restore writes Claude's transcript back",
  "cli/commands/restore.ts": "restore puts Claude's transcript back (providers/claude/transcript-restore.ts)",
  "cli/commands/du.ts": "counts the proxy mirror's directory, whose settings are Claude's mirror's",
  "cli/commands/config/index.ts": "shows the proxy mirror's settings, Claude's mirror's",
  "cli/proxy-start.ts": "the proxy's default upstream is Anthropic's API, from Claude's launch recipe",
  // Model ids, not providers: the price table's keys.
  "usage/pricing.ts": "model ids (claude-sonnet-4, gemini-2.5-pro) of the dated price table",
  // The mock model servers and offline runners are each one client's mock, driving its real CLI.
  "demo/anthropic-mock.ts": "Claude's mock model server",
  "demo/claude-offline.ts": "runs the real claude offline",
  "demo/codex-offline.ts": "runs the real codex offline",
  "demo/gemini-offline.ts": "runs the real gemini offline",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The provider names a file's code uses, each as it appears. */
function providerLiterals(file: string, text: string, names: readonly string[]): string[] {
  const named = new RegExp(`^(${names.join("|")})(?:$|[-_:.])`, "i");
  const folder = new RegExp(`(^|/)providers/(${names.join("|")})/`);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) {
      const spec = n.moduleSpecifier;
      if (spec && ts.isStringLiteral(spec) && folder.test(spec.text)) found.push(`import ${spec.text}`);
      return;
    }
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && named.test(n.text)) {
      found.push(JSON.stringify(n.text));
    } else if (ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      if (named.test(n.text)) found.push(`\`${n.text}`);
    } else if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name) && named.test(n.name.text)) {
      found.push(`key ${n.name.text}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return found;
}

describe("provider literals", () => {
  const files = sourceFiles(SRC)
    .map((f) => relative(SRC, f))
    .filter((f) => !f.startsWith("providers/"));
  const found = new Map(
    files.map((f) => [f, providerLiterals(f, readFileSync(join(SRC, f), "utf8"), PROVIDERS)]),
  );

  it("are only in src/providers/, but for the files allowed with a reason", () => {
    const outside = [...found].filter(([f, hits]) => hits.length > 0 && !Object.hasOwn(ALLOWED, f));
    expect(outside.map(([f, hits]) => `${f}: ${hits.join(", ")}`)).toEqual([]);
  });

  it("allows only files that still name a provider", () => {
    const stale = Object.keys(ALLOWED).filter((f) => (found.get(f) ?? []).length === 0);
    expect(stale).toEqual([]);
  });

  it("finds a name compared, written or imported, and not one in a comment or in prose", () => {
    const code = [
      "// claude's rule",
      'import { x } from "../providers/codex/notify.ts";',
      'const a = p === "codex";',
      'const b = { claude: "anthropic", agent: "gemini-cli" };',
      ["const c = `claude:$", "{id}`;"].join(""),
      'const d = "run: tapedeck install claude";',
    ].join("\n");
    expect(providerLiterals("x.ts", code, PROVIDERS)).toEqual([
      "import ../providers/codex/notify.ts",
      '"codex"',
      "key claude",
      '"gemini-cli"',
      "`claude:",
    ]);
  });
});
