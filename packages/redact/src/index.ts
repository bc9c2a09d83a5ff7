// Redaction for everything tapedeck writes. It runs inside the hook process
// before a byte reaches disk, so it imports nothing but its own parts in
// this folder and compiles every regex once at load. Each string is scanned by
// ONE combined regex whose top-level alternatives each start with a single,
// fairly rare character; text with no hit costs one linear scan, and the
// validation only runs where a hit is.
//
// Precision matters as much as recall: the archive is for debugging agents,
// so hashes, UUIDs, images, public keys, code and token counters must survive
// byte-identical. Where a rule cannot tell, it prefers the cheap signal that
// real credentials carry (provider prefix, entropy, a literal value).
//
// This file is the redactor's whole public surface; the parts live beside it in src/ (packages/redact/README.md has
// the map): keys.ts (secret-ish keys), placeholders.ts, provider-rules.ts and anchors.ts (value patterns
// and the master regex), command-line.ts, split.ts (split secrets), kubernetes.ts, key-rules.ts
// (`KEY=value` and its kin), omission.ts (environment dumps, process tables), scan.ts, text.ts (project
// rules, the text entry points), value.ts (structured values) and rules-file.ts.

export const REDACTION_POLICY = "default-v1";

export { isSecretKey } from "./keys.ts";
export { REDACTION_MARKER } from "./markers.ts";
export { explainText, redactText } from "./text.ts";
export type { Explanation, RedactionRules, RedactResult, UserPattern } from "./types.ts";
export { redactValue } from "./value.ts";
