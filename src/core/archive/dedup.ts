// The set of event ids already appended to a session, as an on-disk
// open-addressing hash table. A lookup reads one 4 KiB page, so checking a
// retried hook costs the same on the first event and the millionth, and the
// events file is never rescanned. The table grows by doubling (amortized
// O(1)) and recovery can rebuild it from events.jsonl.
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, readSync, renameSync } from "node:fs";
import { openRegularOrUndefined, unlinkQuietly, writeAll, writeNewFileSync } from "../base/fsutil.ts";

const MAGIC = 0x44494454; // "TDID"
const HEADER_BYTES = 16;
const SLOT_BYTES = 8;
/**
 * 64 slots (528 bytes) to start: a table of 4,096 slots made ids.bin 32 KB of a 47 KB empty session, though
 * most sessions hold a few hundred events. It doubles at half full, so a big session pays a handful of small
 * rewrites early on; tables written with the old size (log2 12) open as before.
 */
const INITIAL_LOG2 = 6;
const PAGE_SLOTS = 512;

export function idKey(eventId: string): bigint {
  const digest = createHash("sha256").update(eventId).digest();
  const key = digest.readBigUInt64LE(0);
  return key === 0n ? 1n : key;
}

interface Header {
  log2: number;
  used: number;
}

function readHeader(fd: number): Header | undefined {
  const buf = Buffer.alloc(HEADER_BYTES);
  if (readSync(fd, buf, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return undefined;
  if (buf.readUInt32LE(0) !== MAGIC || buf.readUInt32LE(4) !== 1) return undefined;
  const log2 = buf.readUInt32LE(8);
  if (log2 < INITIAL_LOG2 || log2 > 40) return undefined;
  if (fstatSync(fd).size !== HEADER_BYTES + SLOT_BYTES * 2 ** log2) return undefined;
  return { log2, used: buf.readUInt32LE(12) };
}

function writeHeader(fd: number, header: Header): void {
  const buf = Buffer.alloc(HEADER_BYTES);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(1, 4);
  buf.writeUInt32LE(header.log2, 8);
  buf.writeUInt32LE(header.used, 12);
  writeAll(fd, buf, 0);
}

function buildTable(keys: Iterable<bigint>, minEntries: number): Buffer {
  let log2 = INITIAL_LOG2;
  while (2 ** log2 < minEntries * 2 + 2) log2 += 1;
  const slots = 2 ** log2;
  const body = Buffer.alloc(HEADER_BYTES + slots * SLOT_BYTES);
  const mask = BigInt(slots - 1);
  let used = 0;
  for (const key of keys) {
    let index = Number(key & mask);
    for (;;) {
      const at = HEADER_BYTES + index * SLOT_BYTES;
      const current = body.readBigUInt64LE(at);
      if (current === key) break;
      if (current === 0n) {
        body.writeBigUInt64LE(key, at);
        used += 1;
        break;
      }
      index = (index + 1) & (slots - 1);
    }
  }
  body.writeUInt32LE(MAGIC, 0);
  body.writeUInt32LE(1, 4);
  body.writeUInt32LE(log2, 8);
  body.writeUInt32LE(used, 12);
  return body;
}

function writeTable(path: string, table: Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  // A leftover of a dead writer with our pid (or anything planted there) goes; O_EXCL then creates ours.
  unlinkQuietly(tmp);
  writeNewFileSync(tmp, table);
  renameSync(tmp, path);
}

/** Replaces the table with exactly these keys. */
export function rebuildIdTable(path: string, keys: bigint[]): void {
  writeTable(path, buildTable(keys, keys.length));
}

function allKeys(fd: number, header: Header): bigint[] {
  const slots = 2 ** header.log2;
  const body = Buffer.alloc(slots * SLOT_BYTES);
  readSync(fd, body, 0, body.length, HEADER_BYTES);
  const keys: bigint[] = [];
  for (let i = 0; i < slots; i += 1) {
    const key = body.readBigUInt64LE(i * SLOT_BYTES);
    if (key !== 0n) keys.push(key);
  }
  return keys;
}

/**
 * The pages of the table this process's last writer left, for its next writer of the same session: an import
 * appends a session in hundreds of batches, each taking the lock and opening the table again, and rereading
 * the pages it had just written was part of each. They are taken only while the table file is exactly as it
 * was left (device, inode, size, mtime) and the events file has the length it had: any other writer changes
 * both. A kept table is at most KEEP_MAX_PAGES pages.
 */
interface Kept {
  path: string;
  stamp: string;
  eventsBytes: number;
  log2: number;
  used: number;
  pages: Map<number, Buffer>;
}
let kept: Kept | undefined;
const KEEP_MAX_PAGES = 1024;

function stampOf(fd: number): string {
  const st = fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
}

export class IdTable {
  /**
   * The pages read or changed while the table is open (one writer's batch, under the session lock): a probe
   * per event read a page and an add wrote a slot and the header, four system calls per event, which was
   * most of an import's append time. Changed pages and the header are written by flush().
   */
  private pages = new Map<number, Buffer>();
  private readonly dirty = new Set<number>();
  private headerDirty = false;

  private constructor(
    private readonly path: string,
    private fd: number,
    private header: Header,
  ) {}

  /** Opens the table; a missing or damaged one answers `undefined` so the caller rebuilds it. */
  static open(path: string): IdTable | undefined {
    // Not a regular file (a planted FIFO would block the header read): rebuilt by the caller.
    const fd = openRegularOrUndefined(path, constants.O_RDWR);
    if (fd === undefined) return undefined;
    const header = readHeader(fd);
    if (!header) {
      closeSync(fd);
      return undefined;
    }
    return new IdTable(path, fd, header);
  }

  static create(path: string, keys: bigint[] = []): IdTable {
    rebuildIdTable(path, keys);
    const table = IdTable.open(path);
    if (!table) throw new Error("could not open a freshly written id table");
    return table;
  }

  get size(): number {
    return this.header.used;
  }

  private page(number: number): Buffer {
    let page = this.pages.get(number);
    if (!page) {
      const slots = 2 ** this.header.log2;
      const count = Math.min(PAGE_SLOTS, slots - number * PAGE_SLOTS);
      page = Buffer.alloc(count * SLOT_BYTES);
      readSync(this.fd, page, 0, page.length, HEADER_BYTES + number * PAGE_SLOTS * SLOT_BYTES);
      this.pages.set(number, page);
    }
    return page;
  }

  /** Finds the slot for a key: its index and whether the key is already there. */
  private probe(key: bigint): { index: number; found: boolean } {
    const slots = 2 ** this.header.log2;
    let index = Number(key & BigInt(slots - 1));
    for (let scanned = 0; scanned < slots; scanned += 1) {
      const page = this.page(Math.floor(index / PAGE_SLOTS));
      const current = page.readBigUInt64LE((index % PAGE_SLOTS) * SLOT_BYTES);
      if (current === key) return { index, found: true };
      if (current === 0n) return { index, found: false };
      index = (index + 1) & (slots - 1);
    }
    throw new Error("id table is full");
  }

  has(key: bigint): boolean {
    return this.probe(key).found;
  }

  /** Adds a key (written by the next flush); answers false when it was already present. */
  add(key: bigint): boolean {
    const { index, found } = this.probe(key);
    if (found) return false;
    const number = Math.floor(index / PAGE_SLOTS);
    this.page(number).writeBigUInt64LE(key, (index % PAGE_SLOTS) * SLOT_BYTES);
    this.dirty.add(number);
    this.header.used += 1;
    this.headerDirty = true;
    if (this.header.used * 2 > 2 ** this.header.log2) this.grow();
    return true;
  }

  /**
   * Takes the pages this process left at its last close of the same table, when nothing has changed it since
   * and the events file still has `eventsBytes` (see Kept).
   */
  adopt(eventsBytes: number): void {
    const k = kept;
    kept = undefined;
    if (!k || k.path !== this.path || k.eventsBytes !== eventsBytes) return;
    if (k.log2 !== this.header.log2 || k.used !== this.header.used || k.stamp !== stampOf(this.fd)) return;
    this.pages = k.pages;
  }

  /** Closes the table, keeping its pages for this process's next writer while the events file has `eventsBytes`. */
  closeKeeping(eventsBytes: number): void {
    try {
      this.flush();
      if (this.pages.size <= KEEP_MAX_PAGES) {
        kept = {
          path: this.path,
          stamp: stampOf(this.fd),
          eventsBytes,
          log2: this.header.log2,
          used: this.header.used,
          pages: this.pages,
        };
      }
    } finally {
      closeSync(this.fd);
    }
  }

  /** Writes the changed pages, then the header. */
  flush(): void {
    // Runs of neighbouring pages in one write each: a batch of an import touches most pages of a small table.
    const numbers = [...this.dirty].sort((a, b) => a - b);
    for (let i = 0; i < numbers.length; ) {
      let j = i + 1;
      while (j < numbers.length && numbers[j] === numbers[j - 1]! + 1) j += 1;
      const run = numbers.slice(i, j).map((n) => this.pages.get(n)!);
      const at = HEADER_BYTES + numbers[i]! * PAGE_SLOTS * SLOT_BYTES;
      writeAll(this.fd, run.length === 1 ? run[0]! : Buffer.concat(run), at);
      i = j;
    }
    this.dirty.clear();
    if (this.headerDirty) writeHeader(this.fd, this.header);
    this.headerDirty = false;
  }

  private grow(): void {
    this.flush();
    this.pages.clear();
    const keys = allKeys(this.fd, this.header);
    writeTable(this.path, buildTable(keys, keys.length * 2));
    closeSync(this.fd);
    const reopened = IdTable.open(this.path);
    if (!reopened) throw new Error("could not reopen the grown id table");
    this.fd = reopened.fd;
    this.header = reopened.header;
  }

  close(): void {
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }
}
