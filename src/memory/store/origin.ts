// Whose memory file this is. A cloned repository controls its `.tapedeck/`: a committed `config.json` with
// retrieval on survives `tapedeck install` (a re-install keeps retrieval as it finds it), and a committed
// `memory.sqlite` of the repository's choosing would then be handed to the user's agent on every prompt, as
// "memory the user promoted": instructions planted in someone else's repository, in the agent's context.
//
// So a memory file carries a proof that this user's tapedeck created it: an HMAC, under a key kept in the
// user's 0700 tapedeck home (never in a project), of a nonce drawn when the file was laid out. A repository
// can copy the nonce but cannot compute the proof; a file without a valid one is never given to the agent
// (retrieval, the MCP memory tools), whatever the config says. Moving or copying a project keeps the proof.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { fstatSync, linkSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { readRange } from "../../core/byte-range.ts";
import { ensureDir, isErrno, withRegularFile, writeTempSibling } from "../../core/fsutil.ts";

const KEY_FILE = "memory.key";

/** core/registry.ts's tapedeckHome, spelled here: the registry pulls the redaction rules into the hook's bundle. */
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
  ensureDir(home);
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

export function originMac(key: Buffer, nonce: string): string {
  return createHmac("sha256", key).update(`tapedeck memory origin 1\0${nonce}`).digest("hex");
}

/** Whether `mac` proves `nonce` under this user's key (no key: nothing is this user's yet). */
export function isOwnOrigin(nonce: unknown, mac: unknown, env?: Record<string, string | undefined>): boolean {
  if (typeof nonce !== "string" || typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return false;
  let key: Buffer | undefined;
  try {
    key = originKey(false, env);
  } catch {
    return false;
  }
  if (!key) return false;
  return timingSafeEqual(Buffer.from(originMac(key, nonce), "hex"), Buffer.from(mac, "hex"));
}
