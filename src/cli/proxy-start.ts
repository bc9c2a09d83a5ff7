// Starting the API proxy for `proxy` and `run`: its options, its extensions (the archive feed, the mirror
// with the project's redaction rules), its secret and its stderr log.

import { loadRedactionRules } from "@tapedeck/redact/rules-file";
import type { Command } from "commander";
import { fields } from "../core/base/printable.ts";
import type { MirrorFlags, ProxyExtension } from "../core/ports/proxy-extension.ts";
import { CATALOG } from "../providers/catalog.ts";
import { ANTHROPIC_API } from "../providers/claude/launch.ts";
import { createArchiveFeed } from "../proxy/extensions/archive-feed.ts";
import { isValidSecret } from "../proxy/gate.ts";
import { type ProxyLog, type ProxyLogEntry, type RunningProxy, startProxy } from "../proxy/server.ts";
import { CliError, EXIT } from "./cli-error.ts";
import { io } from "./io.ts";
import { projectRoot } from "./project.ts";

export interface ProxyOpts {
  port?: string;
  upstream?: string;
  mirror?: boolean;
  mirrorDir?: string;
  mirrorRedact?: boolean;
  thinking?: boolean;
  json?: boolean;
  verbose?: boolean;
}

function mirrorFlags(opts: ProxyOpts): MirrorFlags {
  return {
    ...(opts.mirror !== undefined ? { enabled: opts.mirror } : {}),
    ...(opts.mirrorDir ? { dir: opts.mirrorDir } : {}),
    ...(opts.mirrorRedact === false ? { redact: false } : {}),
    ...(opts.thinking === false ? { includeThinking: false } : {}),
  };
}

/** The archive feed, and each provider's mirror that the config and flags switch on (the catalog names them). */
function extensionsFor(opts: ProxyOpts): {
  extensions: ProxyExtension[];
  mirror: boolean;
  mirrorDir: string;
} {
  const extensions: ProxyExtension[] = [createArchiveFeed()];
  // The mirror applies the rules of the project the proxy was started in, as its hooks do.
  const loadedRules = loadRedactionRules(projectRoot(undefined));
  if (loadedRules.error) io().stderr.write(fields`tapedeck: redaction rules ignored: ${loadedRules.error}\n`);
  let mirror = { enabled: false, dir: "" };
  for (const entry of Object.values(CATALOG)) {
    if (!entry.mirror) continue;
    const started = entry.mirror.start({
      flags: mirrorFlags(opts),
      rules: loadedRules.rules,
      // A warning names the user's config file and a key or value from it: one line each.
      warn: (m) => io().stderr.write(fields`tapedeck: mirror setting ignored: ${m}\n`),
    });
    if (started.extension) extensions.push(started.extension);
    if (started.enabled || !mirror.dir) mirror = { enabled: started.enabled, dir: started.dir };
  }
  return { extensions, mirror: mirror.enabled, mirrorDir: mirror.dir };
}

function parsePort(port: string | undefined): number {
  if (port === undefined) return 0;
  const n = Number(port);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`invalid port "${port}"`, EXIT.usage);
  return n;
}

function checkUpstream(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("protocol");
    return url;
  } catch {
    throw new CliError(`invalid upstream URL "${url}"`, EXIT.usage);
  }
}

/** A stable secret from the environment (private to the user, unlike a file or the command line), else a fresh one. */
function secretFromEnv(): string | undefined {
  const s = process.env.TAPEDECK_PROXY_SECRET;
  if (s === undefined || s === "") return undefined;
  if (!isValidSecret(s)) {
    throw new CliError("TAPEDECK_PROXY_SECRET must be 32-128 characters of A-Z a-z 0-9 _ -", EXIT.usage);
  }
  return s;
}

/** A log field for a terminal line: printable ASCII only, so a path cannot carry escape sequences. */
function printable(v: ProxyLogEntry[string]): string {
  return String(v ?? "-").replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
}

/**
 * The proxy's stderr: with --verbose one line per request (method, path without query, status, bytes in and out,
 * milliseconds; the log entry carries nothing else), and the first upstream failure always when `warnUpstream`.
 */
export function stderrLog(opts: { verbose: boolean; warnUpstream: boolean }, write = writeStderr): ProxyLog {
  return (e) => {
    if (e.msg === "upstream_unreachable" && (opts.warnUpstream || opts.verbose)) {
      write(
        `tapedeck proxy: cannot reach the upstream ${printable(e.upstream)} (${printable(e.error)}); the agent gets 502 until it answers: check --upstream and the network\n`,
      );
    } else if (!opts.verbose) {
      return;
    } else if (e.msg === "request") {
      const aborted = e.aborted_by
        ? ` aborted by ${printable(e.aborted_by)} (${printable(e.abort_reason)})`
        : "";
      write(
        `tapedeck proxy: ${printable(e.method)} ${printable(e.path)} ${printable(e.status)} ${printable(e.req_bytes)} B in ${printable(e.res_bytes)} B out ${printable(e.ms)} ms${aborted}\n`,
      );
    } else if (e.msg === "refused") {
      write(
        `tapedeck proxy: refused a request (${printable(e.reason)}, ${printable(e.status)}); later refusals are counted, not shown\n`,
      );
    }
  };
}

function writeStderr(line: string): void {
  io().stderr.write(line);
}

export async function startProxyFor(
  opts: ProxyOpts,
  upstream: string,
  log?: ProxyLog,
): Promise<{ proxy: RunningProxy; mirror: boolean; mirrorDir: string }> {
  const secret = secretFromEnv();
  const { extensions, mirror, mirrorDir } = extensionsFor(opts);
  try {
    const proxy = await startProxy({
      port: parsePort(opts.port),
      upstream: checkUpstream(upstream),
      extensions,
      log,
      secret,
    });
    return { proxy, mirror, mirrorDir };
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot start the proxy: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

/** The options `proxy` and `run` share. */
export function withProxyOptions(c: Command): Command {
  return c
    .option("--port <n>", "listen port on 127.0.0.1 (default: a free one)")
    .option("--mirror", "mirror each session's conversation to a JSONL backup (default: off)")
    .option("--no-mirror", "do not mirror, whatever the config says")
    .option("--mirror-dir <dir>", "where mirror files go (default: ~/.claude/session-mirrors)")
    .option("--no-mirror-redact", "write the mirror without redaction (a byte-faithful private backup)")
    .option("--no-thinking", "leave thinking blocks out of the mirror")
    .option(
      "--verbose",
      "one line per request on stderr: method, path without query, status, bytes, ms (never content or headers)",
    );
}

export { ANTHROPIC_API };
