import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function setup(): {
  root: string;
  config: string;
  cli: (a: string[], env?: Record<string, string>) => ReturnType<typeof runCliInProcess>;
} {
  const root = project();
  mkdirSync(join(root, ".tapedeck"));
  const config = join(root, ".tapedeck", "config.json");
  // Hand-formatted on purpose: a refused set must leave these exact bytes.
  writeFileSync(
    config,
    '{ "schema_version": 1,\n  "providers": { "claude": { "recording": "on", "mode": "capture-only", "transport": "command" } },\n  "limits": { "max_depth": 30 } }\n',
  );
  return {
    root,
    config,
    cli: (a, env) => runCliInProcess([...a, "--project", root], join(root, "home"), env),
  };
}

describe("tapedeck config", () => {
  it("refuses an invalid value with the allowed range: exit 2, the file byte for byte unchanged", async () => {
    const { config, cli } = setup();
    const before = readFileSync(config);
    for (const [key, value] of [
      ["limits.max_depth", "0"],
      ["limits.max_depth", "deep"],
      ["retention.older_than", "a month"],
      ["retention.status", "done"],
      ["otel.endpoint", "ftp://collector"],
      ["lock_timeout_ms", "99999999"],
      ["limits.max_depth", "030"],
      ["limits.max_depth", "1e"],
    ]) {
      const r = await cli(["config", "set", key!, value!]);
      expect(r.code, `${key}=${value}`).toBe(2);
      expect(r.stderr).toContain("use ");
      expect(readFileSync(config).equals(before)).toBe(true);
    }
    expect((await cli(["config", "set", "limits.max_depth", "0"])).stderr).toContain("from 1 to 256");
    expect((await cli(["config", "set", "no.such.key", "1"])).code).toBe(2);
    expect((await cli(["config", "set", "transport", "pigeon", "--provider", "claude"])).code).toBe(2);
    expect(readFileSync(config).equals(before)).toBe(true);
  });

  it("sets a valid value, keeping the rest of the config; get shows it with its source", async () => {
    const { config, cli } = setup();
    expect((await cli(["config", "set", "retention.older_than", "30d"])).code).toBe(0);
    expect(
      (await cli(["config", "set", "retrieval.budget_bytes", "2048", "--provider", "claude"])).code,
    ).toBe(0);
    const written = JSON.parse(readFileSync(config, "utf8"));
    expect(written.retention).toEqual({ older_than: "30d" });
    expect(written.providers.claude.retrieval).toEqual({ budget_bytes: 2048 });
    expect(written.providers.claude.transport).toBe("command");
    expect(written.limits.max_depth).toBe(30);
    expect((await cli(["config", "get", "retention.older_than"])).stdout).toBe("30d\n");
    expect(
      JSON.parse((await cli(["config", "get", "providers.claude.retrieval.budget_bytes", "--json"])).stdout),
    ).toMatchObject({
      value: 2048,
      source: "project",
    });
  });

  it("list: every setting with its effective value and where it came from", async () => {
    const { cli } = setup();
    const rows = JSON.parse(
      (
        await cli(["config", "list", "--json"], {
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
          TAPEDECK_MIRROR_MAX_BYTES: "5000",
        })
      ).stdout,
    ) as Array<{ key: string; value: unknown; source: string; provider?: string }>;
    const row = (key: string, provider?: string) =>
      rows.find((r) => r.key === key && r.provider === provider);
    expect(row("limits.max_depth")).toMatchObject({ value: 30, source: "project" });
    expect(row("limits.max_array_items")).toMatchObject({ value: 500, source: "default" });
    expect(row("otel.endpoint")).toMatchObject({ value: "http://127.0.0.1:4318", source: "environment" });
    expect(row("transport", "claude")).toMatchObject({ value: "command", source: "project" });
    expect(row("mirror.max_bytes")).toMatchObject({ value: 5000, source: "environment" });
    expect(row("redaction.rules_file")).toMatchObject({ source: "fixed" });
  });

  it("the user's proxy config is a source of the mirror settings, which config does not write", async () => {
    const { root, cli } = setup();
    const proxy = join(root, "home", "proxy.json");
    mkdirSync(join(root, "home"), { recursive: true });
    writeFileSync(proxy, JSON.stringify({ mirror: { retentionDays: 7 } }));
    const r = JSON.parse(
      (await cli(["config", "get", "mirror.retention_days", "--json"], { TAPEDECK_PROXY_CONFIG: proxy }))
        .stdout,
    );
    expect(r).toMatchObject({ value: 7, source: "user" });
    expect((await cli(["config", "set", "mirror.retention_days", "3"])).code).toBe(2);
  });

  it("a provider setting needs --provider, and an installed provider", async () => {
    const { cli } = setup();
    expect((await cli(["config", "get", "transport"])).code).toBe(2);
    expect((await cli(["config", "set", "transport", "http", "--provider", "codex"])).code).toBe(2);
  });
});
