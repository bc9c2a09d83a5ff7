// The disk the project's tapedeck data takes, against a threshold (`retention.warn_bytes` in
// .tapedeck/config.json, else DEFAULT_WARN_BYTES): the hook archive grows without bound unless pruned.
import { readConfig } from "../../../core/archive/config.ts";
import { DEFAULT_WARN_BYTES, projectUsage } from "../../../core/read/disk-usage.ts";
import { formatBytes } from "../../common.ts";
import { check, type DoctorCheck } from "./check.ts";

export function warnBytes(project: string): number {
  const v = readConfig(project)?.retention?.warn_bytes;
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : DEFAULT_WARN_BYTES;
}

/** A warning past the threshold, else nothing (the report stays as short as before for most projects). */
export function checkDiskUsage(project: string): DoctorCheck | undefined {
  const limit = warnBytes(project);
  const total = projectUsage(project).total_bytes;
  if (total <= limit) return undefined;
  return check("disk usage", "warn", `${formatBytes(total)} of tapedeck data, past ${formatBytes(limit)}`, [
    "tapedeck du",
    "tapedeck prune --older-than 30d --dry-run",
    "tapedeck config set retention.older_than 30d",
  ]);
}
