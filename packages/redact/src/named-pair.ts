// A `value` field whose secret's name is in a sibling field of the same object: Postman's
// `{"key": "token", "value": ...}`, Insomnia's and HAR's `{"name": "X-Api-Key", "value": ...}`, an ECS task's
// or a Kubernetes container's environment (`- name: DB_PASSWORD` + `value:`), NuGet's `<add key=... value=...>`,
// Azure's `{"keyName": "key1", "value": ...}`, SSM's `"Type": "SecureString"`, a Postman environment's
// `"type": "secret"`, Terraform's `"sensitive": true`. Pretty-printed or on one line, before or after the
// value; the object is found by counting braces in a bounded window, so each lookup is O(window).
import { keyKind } from "./keys.ts";

const WINDOW = 400;
const SIBLING =
  /(?:^|[\s{,;<(])\\{0,7}["']?(key|name|keyName|KeyName|Key|Name|type|Type|id|kid|sensitive)\\{0,7}["']?[ \t]*[:=][ \t]*(?:\\{0,7}["']([^"'\\\n]{1,160})\\{0,7}["']|(true)\b|([A-Za-z0-9_.:/-]{1,120}))/g;
// The key whose value is the object: `"secret": {`.
const OUTER_KEY = /\\{0,7}["']?([A-Za-z_][A-Za-z0-9_.-]{0,63})\\{0,7}["']?[ \t]*[:=][ \t]*$/;
// The array an element sits in: Postman's `"apikey": [...]`, a HAR's `"cookies": [...]`.
const PARENT = /["']?([A-Za-z_][A-Za-z0-9_-]{0,40})["']?[ \t]*:[ \t]*\[[^[\]]*$/;

/** Start of the object holding `at` (its `{`), or -1 when none opens within the window. */
function objectStart(text: string, at: number): number {
  let depth = 0;
  const min = Math.max(0, at - WINDOW);
  for (let i = at - 1; i >= min; i--) {
    const c = text.charCodeAt(i);
    if (c === 125 /* } */ || c === 93 /* ] */) depth++;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 0) return c === 123 ? i : -1;
      depth--;
    }
  }
  return -1;
}

function objectEnd(text: string, from: number): number {
  let depth = 0;
  const max = Math.min(text.length, from + WINDOW);
  for (let i = from; i < max; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return max;
}

/** A YAML or XML element without braces: the few lines before the value (`- name: X` / `<add key=...`). */
function linesBefore(text: string, at: number, lines: number): number {
  let i = at;
  const min = Math.max(0, at - WINDOW);
  for (let n = 0; i > min; i--) {
    if (text.charCodeAt(i - 1) === 10 && ++n > lines) break;
  }
  return i;
}

function lastSegment(name: string): string {
  return name.replace(/^.*[:/]/, "");
}

/** What the siblings say about one field's name; `parent` is the array the object sits in. */
function kindOf(field: string, v: string, parent: string | undefined): string | null {
  switch (field) {
    case "key":
    case "name":
    case "Key":
    case "Name": {
      if (v === "value" && parent !== undefined && keyKind(parent) !== null) return keyKind(parent);
      if (v === "value" && parent === "apikey") return "api_key";
      return keyKind(lastSegment(v));
    }
    case "keyName":
    case "KeyName":
      return "secret_key";
    case "type":
    case "Type":
      return v === "secret" || v === "SecureString" ? "secret" : null;
    case "id":
    case "kid":
      return v.includes("/secrets/") ? "secret" : null;
    case "sensitive":
      return v === "true" ? "secret" : null;
    default:
      return null;
  }
}

const NAME_FIELDS = new Set(["key", "name", "Key", "Name"]);

/**
 * The kind a sibling gives the `value` key at [ks, ke), or null. The nearest name field decides (the
 * last one before the value, else the first after it); type, id and sensitivity markers count anywhere
 * in the object.
 */
export function siblingKind(text: string, ks: number, ke: number): string | null {
  const open = objectStart(text, ks);
  const from = open >= 0 ? open : linesBefore(text, ks, 2);
  const parent = open >= 0 ? PARENT.exec(text.slice(Math.max(0, open - 120), open))?.[1] : undefined;
  let name: string | null | undefined;
  let marker: string | null = null;
  const parts = [text.slice(from, ks), open >= 0 ? text.slice(ke, objectEnd(text, ke)) : ""];
  for (let p = 0; p < 2; p++) {
    const part = parts[p] as string;
    SIBLING.lastIndex = 0;
    for (let m = SIBLING.exec(part); m !== null; m = SIBLING.exec(part)) {
      const field = m[1] as string;
      const kind = kindOf(field, (m[2] ?? m[3] ?? m[4]) as string, parent);
      if (NAME_FIELDS.has(field)) {
        // Before the value the last name wins; after it, the first.
        if (p === 0 || name === undefined) name = kind;
        if (p === 1) break;
      } else if (kind !== null) marker = kind;
    }
    if (p === 0 && name !== undefined && name !== null) return name;
  }
  if (name) return name;
  if (marker !== null) return marker;
  // `"secret": {"value": "…"}`, `"credentials": {"value": …}`: the object is itself a secret's value.
  if (open >= 0) {
    const outer = OUTER_KEY.exec(text.slice(Math.max(0, open - 80), open))?.[1];
    const kind = outer === undefined ? null : keyKind(outer);
    if (kind !== null) return kind;
  }
  // A HAR's cookies: their names are the application's own, their values session secrets.
  return parent === "cookies" ? "weak:cookie" : null;
}
