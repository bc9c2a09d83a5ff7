// Fresh values for the documented-formats corpus (../redaction-corpus-docs.ts).
//
// A different generator from the first corpus on purpose: bytes come from a SHA-256 counter stream, and
// each credential is made the way its issuer makes it (an AWS secret access key is 30 random bytes in
// base64, an Azure storage key 64, a Twilio auth token 16 bytes in hex), not as "random characters of
// length n". Every secret a document holds goes through `s()`, which records it for the scorer.
import { createHash } from "node:crypto";

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789";
const PRINTABLE = `${ALNUM}!#$%&*+-=?@^_~.`;
const WORDS =
  "amber basil cobalt dune ember fjord garnet harbor indigo juniper kelp lumen marble nectar onyx pollen quill rune sable thistle umber velvet willow yarrow zephyr".split(
    " ",
  );

export class Values {
  private counter = 0;
  private pool: Buffer = Buffer.alloc(0);
  private recorded: string[] = [];
  private prefixes: string[] = [];

  constructor(private readonly seed: string) {}

  bytes(n: number): Buffer {
    while (this.pool.length < n) {
      const block = createHash("sha256")
        .update(`${this.seed}:${this.counter++}`)
        .digest();
      this.pool = Buffer.concat([this.pool, block]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }
  int(n: number): number {
    return this.bytes(4).readUInt32BE(0) % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  chars(alphabet: string, n: number): string {
    let s = "";
    for (const b of this.bytes(n)) s += alphabet[b % alphabet.length];
    return s;
  }

  /** Records a secret exactly as it appears in the text; `prefix` is a public part that may stay. */
  s(value: string, prefix = ""): string {
    this.recorded.push(value);
    if (prefix) this.prefixes.push(prefix);
    return value;
  }
  /** The secrets recorded since the last call. */
  take(): { secrets: string[]; prefixes: string[] } {
    const out = { secrets: this.recorded, prefixes: this.prefixes };
    this.recorded = [];
    this.prefixes = [];
    return out;
  }

  hex(bytes: number): string {
    return this.bytes(bytes).toString("hex");
  }
  b64(bytes: number): string {
    return this.bytes(bytes).toString("base64");
  }
  b64url(bytes: number): string {
    return this.bytes(bytes).toString("base64url");
  }
  alnum(n: number): string {
    // Generated keys mix cases and digits; re-draw the rare run that does not.
    for (;;) {
      const s = this.chars(ALNUM, n);
      if (/[0-9]/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s)) return s;
    }
  }
  uuid(): string {
    const h = this.hex(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  digits(n: number): string {
    return this.chars("0123456789", n);
  }

  // Credentials as their issuers shape them.
  awsKeyId(kind: "AKIA" | "ASIA" = "AKIA"): string {
    return `${kind}${this.chars(B32, 16)}`;
  }
  awsSecret(): string {
    for (;;) {
      const s = this.b64(30);
      if (/[0-9]/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s)) return s;
    }
  }
  awsSessionToken(): string {
    return this.pick(["IQoJb3JpZ2luX2VjE", "FwoGZXIvYXdzE"]) + this.b64(270).replace(/=+$/, "");
  }
  azureStorageKey(): string {
    return this.b64(64);
  }
  azureClientSecret(): string {
    return `${this.chars(ALNUM, 3)}${this.digits(1)}Q~${this.chars(`${ALNUM}_.~-`, 34)}`;
  }
  /** A password as people and password managers make them. */
  password(): string {
    switch (this.int(5)) {
      case 0:
        return this.chars(PRINTABLE, 16 + this.int(9));
      case 1:
        return `${this.pick(WORDS)}-${this.pick(WORDS)}-${this.pick(WORDS)}-${this.digits(2)}`;
      case 2:
        return this.chars(LOWER_DIGITS, 12);
      case 3: {
        const w = this.pick(WORDS);
        return `${w[0]?.toUpperCase()}${w.slice(1)}${this.digits(4)}${this.pick(["!", "#", "$", "%", "&"])}`;
      }
      default:
        return this.alnum(20);
    }
  }
  /** A password safe to put in a URL's userinfo or a colon-separated line. */
  urlPassword(): string {
    return this.password().replace(/[#%/?@:&=+$]/g, "x");
  }
  user(): string {
    return this.pick(["deploy", "svc-api", "etl", "jenkins", "ops", "reporting", "app_rw", "backup"]);
  }
  host(): string {
    return this.pick([
      "db-prod-1.internal",
      "10.20.4.17",
      "orders.cluster-cx81.eu-west-1.rds.amazonaws.com",
      "pg.acme.io",
      "mysql-primary.svc.cluster.local",
    ]);
  }
  /** A JWT with a realistic header and payload. */
  jwt(payload: Record<string, unknown> = {}): string {
    const seg = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const body = { sub: this.uuid(), iat: 1767225600 + this.int(1e6), ...payload };
    return `${seg({ alg: this.pick(["RS256", "HS256"]), typ: "JWT" })}.${seg(body)}.${this.b64url(64)}`;
  }
  date(): string {
    return `2026-0${1 + this.int(9)}-${10 + this.int(18)}T${10 + this.int(13)}:${10 + this.int(49)}:${10 + this.int(49)}Z`;
  }
}
