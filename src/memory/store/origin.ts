// Whose memory file this is. A cloned repository controls its `.tapedeck/`: a committed `config.json` with
// retrieval on survives `tapedeck install` (a re-install keeps retrieval as it finds it), and a committed
// `memory.sqlite` of the repository's choosing would then be handed to the user's agent on every prompt, as
// "memory the user promoted": instructions planted in someone else's repository, in the agent's context.
//
// So a memory file carries a proof that this user's tapedeck created it: an HMAC, under a key kept in the
// user's 0700 tapedeck home (never in a project), of a nonce drawn when the file was laid out. A repository
// can copy the nonce but cannot compute the proof; a file without a valid one is never given to the agent
// (retrieval, the MCP memory tools), whatever the config says. Moving or copying a project keeps the proof.
//
// That proof covers the nonce only: it says who laid the file out, nothing of what is in it now. So each item
// carries its own (format 3): an HMAC under the same key over everything the item says and where it came from,
// written by tapedeck whenever it writes the item (promote, edit). An item changed by anything else (any SQLite
// client, a row copied in from elsewhere) no longer matches it: `memory verify` reports it and it is never given
// to the agent. A format-3 file's origin proof is of another kind than a format-2 file's (the version in what
// is signed), so a file cannot be turned back into format 2, whose items carry no proof, and keep its origin.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { fstatSync, linkSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { readRange } from "../../core/base/byte-range.ts";
import { ensureDir, isErrno, withRegularFile, writeTempSibling } from "../../core/base/fsutil.ts";
import type { MemoryItem } from "./item-shape.ts";

const KEY_FILE = "memory.key";

/** core/archive/session-registry.ts's tapedeckHome, spelled here: the registry pulls the redaction rules into the hook's bundle. */
function tapedeckHome(env: Record<string, string | undefined>): string {
  return (
    env.TAPEDECK_HOME ??
    process.env.TAPEDECK_HOME ??
    join(env.HOME ?? process.env.HOME ?? homedir(), ".tapedeck")
  );
}
const KEY_PATTERN = /^[0-9a-f]{64}$/;

/** The user's key: read from the tapedeck home, created there (0600, all at once) when absent and `create`. */
export function originKey(
  create: boolean,
  env: Record<string, string | undefined> = process.env,
): Buffer | undefined {
  const home = tapedeckHome(env);
  const path = join(home, KEY_FILE);
  const found = readKey(path);
  if (found || !create) return found;
  ensureDir(home, true);
  const tmp = writeTempSibling(path, `${randomBytes(32).toString("hex")}\n`, true);
  try {
    // link, not rename: a key another process created meanwhile is kept, never replaced under its files.
    linkSync(tmp, path);
  } catch (error) {
    if (!isErrno(error, "EEXIST")) throw error;
  } finally {
    unlinkSync(tmp);
  }
  const key = readKey(path);
  if (!key) throw new Error(`${path} is not a tapedeck key; move it aside and retry`);
  return key;
}

function readKey(path: string): Buffer | undefined {
  return withRegularFile(path, (fd) => {
    // A key someone else can write (a shared tapedeck home) would let them prove a planted file "ours".
    const st = fstatSync(fd);
    if ((typeof process.getuid === "function" && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) {
      throw new Error(`${path} belongs to another user or is readable by others; tapedeck will not use it`);
    }
    const text = readRange(fd, 0, 80).toString("latin1").trim();
    return KEY_PATTERN.test(text) ? Buffer.from(text, "hex") : undefined;
  });
}

export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

/**
 * A file's origin proof: of kind 1 in formats 1 and 2 (the nonce alone), of kind 2 in format 3, whose items
 * carry proofs of their own.
 */
export function originMac(key: Buffer, nonce: string, kind: 1 | 2 = 1): string {
  return createHmac("sha256", key).update(`tapedeck memory origin ${kind}\0${nonce}`).digest("hex");
}

/** This user's key, or undefined when there is none or it cannot be trusted (nothing is this user's then). */
export function trustedKey(env?: Record<string, string | undefined>): Buffer | undefined {
  try {
    return originKey(false, env);
  } catch {
    return undefined;
  }
}

/** Whether `mac` proves `nonce` under this user's key (no key: nothing is this user's yet). */
export function isOwnOrigin(
  nonce: unknown,
  mac: unknown,
  env?: Record<string, string | undefined>,
  kind: 1 | 2 = 1,
): boolean {
  if (typeof nonce !== "string") return false;
  const key = trustedKey(env);
  return key !== undefined && macMatches(originMac(key, nonce, kind), mac);
}

function macMatches(expected: string, mac: unknown): boolean {
  if (typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(mac, "hex"));
}

/**
 * An item's proof: everything the item says (what the agent is given, what `memory show` calls its source),
 * as one JSON array, so that no two items sign the same text.
 */
export function itemMac(key: Buffer, item: MemoryItem): string {
  const s = item.source;
  const signed = JSON.stringify([
    "tapedeck memory item 1",
    item.id,
    item.schema_version,
    item.kind,
    item.title,
    item.body,
    item.truncated,
    item.created_at,
    item.label ?? null,
    item.edited_at ?? null,
    s.provider,
    s.session_id,
    s.agent_id,
    s.seq_from,
    s.seq_to,
    s.event_ids,
    s.envelope_schema_version,
    s.archive_sha256,
    s.archive_bytes,
  ]);
  return createHmac("sha256", key).update(signed).digest("hex");
}

/** Whether `mac` is the item's proof under `key`. */
export function isProvenItem(key: Buffer, item: MemoryItem, mac: unknown): boolean {
  return macMatches(itemMac(key, item), mac);
}
