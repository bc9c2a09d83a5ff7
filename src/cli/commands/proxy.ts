// `tapedeck proxy`: the API proxy in the foreground; it prints the (secret) base URL to give the agent.
import type { Command } from "commander";
import { SECRET_HEADER } from "../../proxy/gate.ts";
import { printJson } from "../common.ts";
import { io } from "../io.ts";
import { ANTHROPIC_API, type ProxyOpts, startProxyFor, stderrLog, withProxyOptions } from "../proxy-start.ts";

async function proxyCommand(opts: ProxyOpts): Promise<void> {
  const upstream = opts.upstream ?? ANTHROPIC_API;
  const log = stderrLog({ verbose: opts.verbose === true, warnUpstream: true });
  const { proxy, mirror, mirrorDir } = await startProxyFor(opts, upstream, log);
  if (opts.json)
    printJson({ url: proxy.url, port: proxy.port, upstream, mirror, mirror_dir: mirror ? mirrorDir : null });
  else {
    io().stderr.write(
      [
        `tapedeck proxy on ${proxy.origin} -> ${upstream}`,
        `mirror: ${mirror ? `on (${mirrorDir})` : "off"}   archive feed: on for projects with recording on`,
        `use it with: ANTHROPIC_BASE_URL=${proxy.url} claude`,
        // Not the secret URL in a -c for codex: its command line is readable by every local user.
        `         or: TAPEDECK_PROXY_KEY=${proxy.secret} codex -c 'model_providers.<id>.base_url="${proxy.origin}/v1"' -c 'model_providers.<id>.env_http_headers.${SECRET_HEADER}="TAPEDECK_PROXY_KEY"' (a custom provider, with --upstream its API's origin); tapedeck run codex sets this up`,
        "The URL's last segment is a secret: requests without it are refused. Keep it out of shared files and command lines.",
        "Ctrl-C to stop",
      ].join("\n") + "\n",
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      void proxy.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

export function register(program: Command): void {
  withProxyOptions(
    program
      .command("proxy")
      .description(
        "run the API proxy: forwards to the model API untouched, feeds exact usage into recorded sessions. " +
          "It prints the base URL to give the agent; its last path segment is a secret, and requests without it are refused " +
          "(TAPEDECK_PROXY_SECRET, 32+ characters of A-Za-z0-9_-, keeps it the same across restarts)",
      )
      .option("--upstream <url>", "the API to forward to", ANTHROPIC_API)
      .option("--json", "print the proxy's address as JSON"),
  ).action(proxyCommand);
}
