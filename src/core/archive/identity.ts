// Session identifiers as they are stored: in directory names, manifests,
// envelopes and the registry. An id comes from the agent (or from whatever
// sends a hook), so it may be a credential pasted by mistake or a hostile
// string. A stored id is the id itself when it is harmless, otherwise a
// stable marker plus a hash of it: the same id always maps to the same
// session directory, and the raw value never reaches disk.
//
// The hash is a plain SHA-256 (128 bits kept): the credential rules match
// high-entropy tokens, which a hash cannot be reversed to; a keyed hash would
// need a secret every recorder (hook, proxy, CLI) reads on each event.
import { createHash } from "node:crypto";
import { redactText } from "@tapedeck/redact";
import type { SessionIdentity } from "./event.ts";

/** Longer ids are hashed: no real agent id comes close (UUIDs, 36 characters). */
const MAX_STORED_ID = 256;
/** C0/C1 controls, DEL, and the bidi controls that reorder what a terminal shows. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function digest(id: string): string {
  return createHash("sha256").update(id).digest("hex").slice(0, 32);
}

/** A hook process sees one or two ids; the hook server a handful. Bounded so a flood of ids cannot grow it. */
const memo = new Map<string, string>();
const MEMO_MAX = 256;

/** The id as tapedeck stores it: unchanged, or `redacted-<hash>` / `h-<hash>`. */
export function storedId(id: string): string {
  const known = memo.get(id);
  if (known !== undefined) return known;
  const stored = computeStoredId(id);
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(id, stored);
  return stored;
}

function computeStoredId(id: string): string {
  if (id.startsWith("redacted-") || id.startsWith("h-")) {
    // Already a stored form (a recorder passing on a stored id): stable, never hashed twice.
    if (/^(redacted|h)-[0-9a-f]{32}$/.test(id)) return id;
  }
  if (redactText(id).kinds.length > 0) return `redacted-${digest(id)}`;
  if (id.length > MAX_STORED_ID || UNPRINTABLE.test(id)) return `h-${digest(id)}`;
  return id;
}

/** `provider:<id>`: the prefix is ours, only the provider's part is checked. */
function storedSessionId(sessionId: string, provider: string): string {
  const prefix = `${provider}:`;
  if (sessionId.startsWith(prefix)) return `${prefix}${storedId(sessionId.slice(prefix.length))}`;
  return storedId(sessionId);
}

export function storedIdentity(identity: SessionIdentity): SessionIdentity {
  const session_id = storedSessionId(identity.session_id, identity.provider);
  const provider_session_id =
    identity.provider_session_id === null || identity.provider_session_id === undefined
      ? identity.provider_session_id
      : storedId(identity.provider_session_id);
  if (session_id === identity.session_id && provider_session_id === identity.provider_session_id) {
    return identity;
  }
  return { ...identity, session_id, provider_session_id };
}
