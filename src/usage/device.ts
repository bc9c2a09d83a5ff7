// This machine as `tapedeck usage publish` names it: a random id (never the hostname), the name the user chose,
// the secret salt that turns a project's path and a session's id into labels nobody can read back, the folder
// last published to and the projects the user chose to name. Kept in the user's tapedeck home
// (`usage-device.json`, 0600), made on the first publish; nothing of it but the id and the name leaves it.
import { createHmac, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ensureDir,
  isErrno,
  openRegularSync,
  ownedByUser,
  UnsafePathError,
  writeJsonAtomicSync,
} from "../core/base/fsutil.ts";
import { tapedeckHome } from "../core/base/home.ts";
import { UserError } from "../core/base/user-error.ts";

export const DEVICE_FILE = "usage-device.json";
/** A device id: 16 random bytes in hex, as the folder a device publishes into is named. */
export const DEVICE_ID = /^[0-9a-f]{32}$/;
/** A name the user gives a device or a project: printable, short, no path separator. */
export const LABEL = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

export interface Device {
  id: string;
  name: string;
  /** hex; never published */
  salt: string;
  /** the folder last published to */
  to?: string;
  /** a project root -> the name it is published under (opt-in); every other project is a salted hash */
  project_names: Record<string, string>;
}

type Env = Record<string, string | undefined>;

export function devicePath(env?: Env): string {
  return join(tapedeckHome(env), DEVICE_FILE);
}

/** A device file is a few hundred bytes; one past this is no device file. */
const MAX_DEVICE_BYTES = 1024 * 1024;

/**
 * This machine's device as saved; undefined before the first publish (no file). A file that is there but cannot
 * be used (damaged, unreadable, another user's, a link) is an error, never a reason to make a new device: a new
 * id and salt would publish every day again beside the old device's, and --machines would count them twice.
 */
export function loadDevice(env?: Env): Device | undefined {
  const path = devicePath(env);
  const text = readDeviceText(path);
  if (text === undefined) return undefined;
  let d: Partial<Device>;
  try {
    d = JSON.parse(text) as Partial<Device>;
  } catch {
    throw unusable(path, "is not valid JSON");
  }
  if (!d || typeof d !== "object" || typeof d.id !== "string" || !DEVICE_ID.test(d.id))
    throw unusable(path, "holds no device id");
  if (typeof d.salt !== "string" || !/^[0-9a-f]{64}$/.test(d.salt)) throw unusable(path, "holds no salt");
  const names: Record<string, string> = {};
  if (d.project_names && typeof d.project_names === "object") {
    for (const [root, name] of Object.entries(d.project_names)) {
      if (typeof name === "string" && LABEL.test(name)) names[root] = name;
    }
  }
  return {
    id: d.id,
    name: typeof d.name === "string" && LABEL.test(d.name) ? d.name : d.id.slice(0, 8),
    salt: d.salt,
    ...(typeof d.to === "string" ? { to: d.to } : {}),
    project_names: names,
  };
}

/** The device file's text; undefined when there is none. Only the user's own regular file, never through a link. */
function readDeviceText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openRegularSync(path, constants.O_RDONLY);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw unusable(
      path,
      error instanceof UnsafePathError
        ? error.reason
        : `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!ownedByUser(st)) throw unusable(path, "belongs to another user");
    if (st.size > MAX_DEVICE_BYTES) throw unusable(path, "is too large to be one");
    return readFileSync(fd, "utf8");
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw unusable(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  } finally {
    closeSync(fd);
  }
}

function unusable(path: string, why: string): UserError {
  return new UserError(
    `${path} ${why}. It holds this machine's device id and salt: restore it (from a backup or the synced ` +
      "folder's history), or move it away to publish as a new device (then delete the old device's folder in " +
      "the synced folder, or --machines counts its days twice)",
  );
}

/** A new device: a random id and salt; named by the user, else by the first 8 characters of its id. */
export function newDevice(name?: string): Device {
  const id = randomBytes(16).toString("hex");
  return { id, name: name ?? id.slice(0, 8), salt: randomBytes(32).toString("hex"), project_names: {} };
}

export function saveDevice(d: Device, env?: Env): void {
  ensureDir(tapedeckHome(env), true);
  writeJsonAtomicSync(devicePath(env), d);
}

/** A stable label for a secret (a project root, a session id) that only this device's salt can make. */
export function saltedLabel(d: Device, kind: string, value: string, chars = 16): string {
  return createHmac("sha256", Buffer.from(d.salt, "hex"))
    .update(`${kind}\0${value}`)
    .digest("hex")
    .slice(0, chars);
}

/** What a project is published as without a chosen name: `p-` and a salted hash of its root. */
export function saltedProjectLabel(d: Device, root: string): string {
  return `p-${saltedLabel(d, "project", root)}`;
}

/** What a project is published as: its chosen name, else its salted label. */
export function projectLabel(d: Device, root: string): string {
  return Object.hasOwn(d.project_names, root) ? d.project_names[root]! : saltedProjectLabel(d, root);
}
