// Where `tapedeck export --all --out DIR` writes: a directory of the user's naming, made 0700 when it is new,
// never reached through a symlink, and written into only when it is empty or a tapedeck export made it (its
// marker file says so), unless --force. Every file is written 0600 beside itself and renamed into place, so a
// symlink planted at a file's name is replaced, never followed, and no reader sees half a page.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  DIR_MODE,
  ensureRealDirUnder,
  isErrno,
  lstatOrUndefined,
  readDirEntries,
  writeFileAtomicSync,
} from "../../../core/base/fsutil.ts";
import { CliError, EXIT } from "../../cli-error.ts";

/** The file that marks a directory as a tapedeck export's. */
export const EXPORT_MARKER = ".tapedeck-export.json";

export interface OutDir {
  root: string;
  /** Writes `text` at `rel` (slash-separated, made of safe names) under the root; its directories made 0700. */
  write(rel: string, text: string): void;
}

function refuseForeign(out: string): CliError {
  return new CliError(
    `${out} is not empty and no tapedeck export made it (no ${EXPORT_MARKER}); choose a new or empty directory, or pass --force to write into it anyway (files of the same names are replaced, nothing else is touched)`,
    EXIT.failed,
  );
}

/** Opens (or makes) the export directory; throws a CliError saying why it will not write there. */
export function openOutDir(out: string, force: boolean, format: string): OutDir {
  const st = lstatOrUndefined(out);
  if (st?.isSymbolicLink()) throw new CliError(`${out} is a symlink; refusing to write through it`);
  if (st && !st.isDirectory()) throw new CliError(`${out} exists and is not a directory`);
  if (!st) {
    try {
      mkdirSync(out, { recursive: true, mode: DIR_MODE });
    } catch (error) {
      throw new CliError(`cannot create ${out}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
    }
  } else {
    const names = readDirEntries(out).map((d) => d.name);
    if (names.length > 0 && !names.includes(EXPORT_MARKER) && !force) throw refuseForeign(out);
  }
  const write = (rel: string, text: string) => {
    const parts = rel.split("/");
    const dir = join(out, ...parts.slice(0, -1));
    try {
      ensureRealDirUnder(out, dir, true);
      const target = join(dir, parts.at(-1)!);
      if (lstatOrUndefined(target)?.isDirectory()) throw new CliError(`${target} is a directory`);
      writeFileAtomicSync(target, text);
    } catch (error) {
      if (error instanceof CliError) throw error;
      const code = isErrno(error, "ENOSPC") ? "no space left" : ((error as NodeJS.ErrnoException).code ?? "");
      throw new CliError(`cannot write ${join(out, rel)}: ${code || (error as Error).message}`);
    }
  };
  write(EXPORT_MARKER, `${JSON.stringify({ tool: "tapedeck", kind: "export", format })}\n`);
  return { root: out, write };
}
