// The endpoints a user has sent a project's sessions to by hand. A cloned repository can carry a
// `.tapedeck/config.json`, and its `otel` block would otherwise make the hook server ship that user's
// sessions to whoever wrote it. So the automatic export sends only to an endpoint this user has already
// exported this project to with a `tapedeck otel export` of their own; that fact lives in the user's tapedeck
// home, outside any project, one small file per project and endpoint (named by a hash of both), which counts
// only when the user owns it (a shared TAPEDECK_HOME).
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ensurePrivateDirIn, readOwnJsonOrUndefined, writeJsonAtomicSync } from "../core/base/fsutil.ts";
import { tapedeckHome } from "../core/base/home.ts";
import type { Endpoint } from "./endpoint.ts";

type Env = Record<string, string | undefined>;

function trustPath(projectRoot: string, endpoint: Pick<Endpoint, "url">, env: Env): string {
  const u = new URL(endpoint.url);
  const key = createHash("sha256")
    .update(projectRoot)
    .update("\0")
    .update(`${u.origin}${u.pathname}`)
    .digest("hex");
  return join(tapedeckHome(env), "otel-endpoints", `${key.slice(0, 40)}.json`);
}

export function isTrusted(
  projectRoot: string,
  endpoint: Pick<Endpoint, "url">,
  env: Env = process.env,
): boolean {
  return (
    readOwnJsonOrUndefined<{ schema_version?: number }>(trustPath(projectRoot, endpoint, env), 4096)
      ?.schema_version === 1
  );
}

/** Recorded when the user runs an export by hand. */
export function trust(projectRoot: string, endpoint: Pick<Endpoint, "url">, env: Env = process.env): void {
  const path = trustPath(projectRoot, endpoint, env);
  if (isTrusted(projectRoot, endpoint, env)) return;
  ensurePrivateDirIn(tapedeckHome(env), join(path, ".."));
  writeJsonAtomicSync(path, { schema_version: 1, trusted_at: new Date().toISOString() });
}
