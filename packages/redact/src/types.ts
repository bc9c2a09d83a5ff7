// The shapes the redactor's callers see: what a redaction returns and the project's own rules.

export interface RedactResult<T = unknown> {
  value: T;
  /** Path of every value (or key) that was changed, once per path. */
  redactions: string[];
  /** Kind of each redacted span, in document order; a string with two secrets contributes two. */
  kinds: string[];
  /** Paths whose whole string was replaced by an `[OMITTED:...]` marker. */
  omitted: string[];
}

export interface UserPattern {
  /** Reported as the redaction kind: `[REDACTED:<name>]`. */
  name: string;
  /** A global regex; when it has a group 1, only that group is the secret. */
  re: RegExp;
}

export interface RedactionRules {
  patterns: UserPattern[];
  /** Literal values that are never redacted (a test fixture, a public id). */
  allow: ReadonlySet<string>;
}

/** Where redaction fires in `text`: kinds and UTF-8 byte ranges, never the matched text. */
export interface Explanation {
  omitted?: string;
  bytes: number;
  hits: Array<{ kind: string; offset: number; length: number }>;
}
