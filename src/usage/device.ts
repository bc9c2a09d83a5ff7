// This machine as `tapedeck usage publish` names it: a random id (never the hostname), the name the user chose,
// the secret salt that turns a project's path and a session's id into labels nobody can read back, the folder
// last published to and the projects the user chose to name. Kept in the user's tapedeck home
// (`usage-device.json`, 0600), made on the first publish; nothing of it but the id and the name leaves it.
import { createHmac, randomBytes } from "node:crypto";
import { join } from "node:path";
import { ensureDir, readOwnJsonOrUndefined, writeJsonAtomicSync } from "../core/base/fsutil.ts";
import { tapedeckHome } from "../core/base/home.ts";

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

/** This machine's device as saved; undefined before the first publish (or when the file is not the user's). */
export function loadDevice(env?: Env): Device | undefined {
  const d = readOwnJsonOrUndefined<Partial<Device>>(devicePath(env));
  if (!d || typeof d.id !== "string" || !DEVICE_ID.test(d.id)) return undefined;
  if (typeof d.salt !== "string" || !/^[0-9a-f]{64}$/.test(d.salt)) return undefined;
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

/** What a project is published as: its chosen name, else `p-` and a salted hash of its root. */
export function projectLabel(d: Device, root: string): string {
  return Object.hasOwn(d.project_names, root)
    ? d.project_names[root]!
    : `p-${saltedLabel(d, "project", root)}`;
}
