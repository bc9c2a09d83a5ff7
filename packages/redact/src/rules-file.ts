// `.tapedeck/redaction.json`: a project's own redaction rules, on top of the
// built-in ones. Loaded on the hook path, so it imports only node:fs and
// validates by hand (no schema library in the hook bundle).
//
//   { "patterns": [{ "name": "acme_token", "regex": "acme_[A-Za-z0-9]{32}" }],
//     "allow": ["sk-test-fixture-not-a-secret"] }
//
// The file is project content, so it is treated as hostile: a regular file
// only (no symlink, FIFO or device), at most MAX_FILE_BYTES, read through a
// descriptor opened with O_NOFOLLOW. A pattern that could backtrack
// catastrophically is refused before it ever sees a payload: every hook runs
// it over untrusted text.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { RedactionRules, UserPattern } from "./types.ts";

export const RULES_FILE = join(".tapedeck", "redaction.json");
const MAX_FILE_BYTES = 64 * 1024;
const MAX_PATTERNS = 64;
const MAX_ALLOW = 1024;
const MAX_REGEX_CHARS = 512;
const MAX_LITERAL_CHARS = 512;
const NAME = /^[a-z][a-z0-9_]{0,39}$/;
// Probe inputs for the backtracking guard: runs of the characters regexes repeat, with a tail that fails.
const PROBE_CHARS = ["a", "0", " ", "a0", "-", "aA0_"];
const PROBE_BUDGET_MS = 25;
// Two characters more at a time while short, so exponential backtracking crosses the budget at a
// few milliseconds instead of jumping to minutes; then doubling for polynomial blow-ups.
const PROBE_LENGTHS = [8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 64, 128, 256, 512, 1024, 2048];

export interface RulesLoad {
  rules?: RedactionRules;
  /** What is wrong with the file, naming it; the built-in rules still apply. */
  error?: string;
}

export function loadRedactionRules(projectRoot: string): RulesLoad {
  const file = join(projectRoot, RULES_FILE);
  let text: string;
  try {
    const read = readRegularFile(file);
    if (read === null) return {};
    text = read;
  } catch (e) {
    return { error: `${file}: ${(e as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `${file}: not valid JSON` };
  }
  const problem: string[] = [];
  const rules = validate(json, problem);
  if (rules === null) return { error: `${file}: ${problem.join("; ")}` };
  return { rules };
}

/** The file's text, or null when there is none. Throws with a short reason for anything else. */
function readRegularFile(file: string): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error("cannot be read");
  }
  if (st.isSymbolicLink()) throw new Error("is a symlink; refused");
  if (!st.isFile()) throw new Error("is not a regular file; refused");
  if (st.size > MAX_FILE_BYTES) throw new Error(`is larger than ${MAX_FILE_BYTES} bytes`);
  // O_NONBLOCK: a FIFO swapped in after the lstat must not block the hook.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.size > MAX_FILE_BYTES) throw new Error("changed while being read; refused");
    const buf = Buffer.alloc(fst.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function validate(json: unknown, problem: string[]): RedactionRules | null {
  if (!isObject(json)) {
    problem.push('expected an object with "patterns" and/or "allow"');
    return null;
  }
  for (const k of Object.keys(json)) {
    if (k !== "patterns" && k !== "allow" && k !== "$schema") problem.push(`unknown field "${k}"`);
  }
  const patterns = validatePatterns(json.patterns, problem);
  const allow = validateAllow(json.allow, problem);
  return problem.length > 0 ? null : { patterns, allow };
}

function validatePatterns(v: unknown, problem: string[]): UserPattern[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    problem.push("patterns: expected an array");
    return [];
  }
  if (v.length > MAX_PATTERNS) problem.push(`patterns: at most ${MAX_PATTERNS} entries`);
  const out: UserPattern[] = [];
  v.slice(0, MAX_PATTERNS).forEach((p, i) => {
    const at = `patterns[${i}]`;
    if (!isObject(p)) {
      problem.push(`${at}: expected {"name", "regex"}`);
      return;
    }
    for (const k of Object.keys(p)) {
      if (k !== "name" && k !== "regex" && k !== "ignoreCase") problem.push(`${at}: unknown field "${k}"`);
    }
    if (typeof p.name !== "string" || !NAME.test(p.name)) {
      problem.push(
        `${at}.name: expected lowercase letters, digits and _ (at most 40), starting with a letter`,
      );
    }
    if (p.ignoreCase !== undefined && typeof p.ignoreCase !== "boolean") {
      problem.push(`${at}.ignoreCase: expected true or false`);
    }
    const why = typeof p.regex === "string" ? regexProblem(p.regex) : "expected a string";
    if (why !== null) {
      problem.push(`${at}.regex: ${why}`);
      return;
    }
    const re = new RegExp(p.regex as string, p.ignoreCase === true ? "dgi" : "dg");
    if (typeof p.name === "string") out.push({ name: p.name, re });
  });
  return out;
}

function validateAllow(v: unknown, problem: string[]): Set<string> {
  const out = new Set<string>();
  if (v === undefined) return out;
  if (!Array.isArray(v)) {
    problem.push("allow: expected an array of strings");
    return out;
  }
  if (v.length > MAX_ALLOW) problem.push(`allow: at most ${MAX_ALLOW} entries`);
  v.slice(0, MAX_ALLOW).forEach((s, i) => {
    if (typeof s !== "string" || s.length === 0 || s.length > MAX_LITERAL_CHARS) {
      problem.push(`allow[${i}]: expected a non-empty string of at most ${MAX_LITERAL_CHARS} characters`);
    } else out.add(s);
  });
  return out;
}

/**
 * Why a user regex is refused, or null. Static checks first (the shapes that backtrack
 * exponentially: a quantified group that itself repeats, backreferences), then a timed
 * probe on inputs built to make a slow pattern show itself while they are still short.
 */
export function regexProblem(src: string): string | null {
  if (src.length === 0) return "is empty";
  if (src.length > MAX_REGEX_CHARS) return `longer than ${MAX_REGEX_CHARS} characters`;
  let re: RegExp;
  try {
    re = new RegExp(src, "g");
  } catch (e) {
    return `invalid regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, "")})`;
  }
  if (/\\[1-9]|\\k</.test(src)) return "backreferences are not allowed";
  if (nestedQuantifier(src))
    return "a repeated group that itself repeats can backtrack catastrophically; refused";
  if (re.test("")) return "matches the empty string";
  return slowOnProbe(re) ? "too slow on adversarial input (catastrophic backtracking); refused" : null;
}

/** `(a+)+`, `(\w*)*`, `(x|y+){2,}`: a group holding a quantifier, quantified itself. */
function nestedQuantifier(src: string): boolean {
  const stack: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") stack.push(false);
    else if (c === ")") {
      const inner = stack.pop() ?? false;
      const next = src[i + 1];
      const quantified = next === "*" || next === "+" || next === "{";
      if (inner && quantified) return true;
      if (inner && stack.length > 0) stack[stack.length - 1] = true;
    } else if ((c === "*" || c === "+" || c === "{") && stack.length > 0) {
      stack[stack.length - 1] = true;
    }
  }
  return false;
}

function slowOnProbe(re: RegExp): boolean {
  for (const ch of PROBE_CHARS) {
    for (const n of PROBE_LENGTHS) {
      const input = `${ch.repeat(Math.ceil(n / ch.length))}\u0000!`;
      const t0 = performance.now();
      re.lastIndex = 0;
      re.test(input);
      if (performance.now() - t0 > PROBE_BUDGET_MS) return true;
    }
  }
  return false;
}
