// Where `tapedeck export --out FILE` writes. The destination is explicit and
// never silently replaced. With --force an existing file is replaced by a
// fresh one (temp file and rename): a symlink there is refused, not written
// through (it could point at a file the user never named, as an O_TRUNC open
// did), and a FIFO is replaced instead of blocking the export on a reader.
import { closeSync, constants, openSync } from "node:fs";
import {
  FILE_MODE,
  isErrno,
  lstatOrUndefined,
  writeAll,
  writeFileAtomicSync,
} from "../../../core/base/fsutil.ts";
import { CliError, EXIT } from "../../cli-error.ts";

export function writeExportFile(out: string, text: string, force: boolean): void {
  const existing = lstatOrUndefined(out);
  if (existing && !force) throw exists(out);
  if (existing?.isSymbolicLink()) throw new CliError(`${out} is a symlink; refusing to write through it`);
  if (existing?.isDirectory()) throw new CliError(`${out} is a directory`);
  try {
    if (force) writeFileAtomicSync(out, text);
    else writeNewFile(out, text);
  } catch (error) {
    if (isErrno(error, "EEXIST")) throw exists(out);
    throw new CliError(`cannot write ${out}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

function exists(out: string): CliError {
  return new CliError(`${out} exists; pass --force to replace it`, EXIT.failed);
}

/** O_EXCL: a file (or symlink) appearing meanwhile is never overwritten nor followed. */
function writeNewFile(out: string, text: string): void {
  const fd = openSync(out, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
  try {
    writeAll(fd, Buffer.from(text));
  } finally {
    closeSync(fd);
  }
}
