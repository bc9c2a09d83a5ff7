// `tapedeck usage publish [--to DIR] [--device NAME] [--name-project NAME]`: this machine's usage over every
// project the registry knows (and this one) as aggregate files in DIR/<device id>/ (src/usage/publish.ts). The
// device (a random id, the name, the salt) lives in the user's tapedeck home and is made on the first publish.
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { TAPEDECK_DIR, tapedeckDir } from "../../../core/archive/paths.ts";
import { tapedeckHome } from "../../../core/base/home.ts";
import { printable } from "../../../core/base/printable.ts";
import { registeredProjects } from "../../../core/read/registry-projects.ts";
import { USAGE_FACTS } from "../../../providers/usage-facts.ts";
import { LABEL, loadDevice, newDevice, saveDevice } from "../../../usage/device.ts";
import { publishUsage } from "../../../usage/publish.ts";
import { CliError, EXIT, printJson, projectFromOption, say } from "../../common.ts";

export interface PublishOpts {
  to?: string;
  device?: string;
  nameProject?: string;
  project?: string;
  json?: boolean;
}

function checkLabel(flag: string, name: string | undefined): void {
  if (name !== undefined && !LABEL.test(name)) {
    throw new CliError(
      `${flag} "${printable(name)}": letters, digits, space, dot, dash or underscore, 64 at most, starting with a letter or digit`,
      EXIT.usage,
    );
  }
}

/** A path with its existing part's links resolved: what a write there really lands in. */
function realish(path: string): string {
  let head = path;
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const up = dirname(head);
      if (up === head) return path;
      tail.unshift(basename(head));
      head = up;
    }
  }
}

const isInside = (path: string, dir: string) => {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/**
 * Refuses a folder that is no place for what is meant to leave the machine: inside a `.tapedeck` folder, the
 * tapedeck home or a published project's archive (a sync tool would carry it off, and the archive is
 * append-only, tapedeck's own).
 */
function checkDestination(to: string, projects: readonly string[]): void {
  const real = realish(to);
  const archives = [tapedeckHome(), ...projects.map(tapedeckDir)].map(realish);
  const inTapedeck = [to, real].some((p) => p.split(sep).includes(TAPEDECK_DIR));
  if (inTapedeck || archives.some((a) => isInside(real, a))) {
    throw new CliError(
      `usage publish --to ${to}: inside a .tapedeck folder or an archive; publish into a folder of its own`,
      EXIT.usage,
    );
  }
}

export function publishCommand(opts: PublishOpts): void {
  checkLabel("--device", opts.device);
  checkLabel("--name-project", opts.nameProject);
  if (opts.to === "") throw new CliError("usage publish: --to needs a folder, not an empty name", EXIT.usage);
  const device = loadDevice() ?? newDevice(opts.device);
  if (opts.device !== undefined) device.name = opts.device;
  const to = opts.to !== undefined ? resolve(opts.to) : device.to;
  if (to === undefined) {
    throw new CliError("usage publish: say where with --to DIR (a folder you sync; remembered)", EXIT.usage);
  }
  const here = projectFromOption(opts.project);
  // A renamed project's old name is this project's rows, not an absent project's to carry over.
  const formerLabels: string[] = [];
  if (opts.nameProject !== undefined) {
    if (Object.hasOwn(device.project_names, here)) formerLabels.push(device.project_names[here]!);
    device.project_names[here] = opts.nameProject;
  }
  const projects = new Set(registeredProjects().present);
  // This project too when it has an archive; never the user's own tapedeck home as if it were one.
  if (existsSync(tapedeckDir(here)) && resolve(tapedeckDir(here)) !== resolve(tapedeckHome()))
    projects.add(here);
  checkDestination(to, [...projects]);
  // The device is kept before anything is published (a new id must not be made again after a partial publish);
  // the folder is remembered only once a publish into it succeeded.
  saveDevice(device);
  const result = publishUsage({
    device,
    to,
    projects: [...projects].sort(),
    facts: USAGE_FACTS,
    formerLabels,
  });
  if (device.to !== to) {
    device.to = to;
    saveDevice(device);
  }
  if (opts.json) {
    printJson({ ...result, projects: projects.size });
    return;
  }
  say(
    `Published ${result.days} day(s) of usage (${result.sessions} session(s), ${projects.size} project(s)) as ` +
      `"${result.device_name}" into ${result.folder}` +
      `${result.unchanged > 0 ? ` (${result.unchanged} unchanged, left as they were)` : ""}` +
      `${result.removed > 0 ? `; ${result.removed} day(s) no longer here removed` : ""}` +
      `${result.kept_absent > 0 ? `; kept ${result.kept_absent} day(s) of absent projects` : ""}.\n` +
      (result.models_withheld > 0
        ? `${result.models_withheld} model name(s) not shaped like a model id published as no model.\n`
        : "") +
      result.unsummable
        .map((u) => `${u.day}: ${u.problem}: --machines reports it and does not sum it.\n`)
        .join("") +
      "Aggregates only: no prompt, path, session id or hostname. Sum every machine with " +
      `\`tapedeck usage daily --machines ${to}\`.\n`,
  );
}
