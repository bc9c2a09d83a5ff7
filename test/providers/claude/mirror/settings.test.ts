import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  defaultMirrorSettings,
  defaultProxyConfigPath,
  loadMirrorSettings,
} from "../../../../src/providers/claude/mirror/settings.ts";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "tapedeck-mirror-settings-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function configFile(json: unknown): string {
  const path = join(home, "proxy.json");
  writeFileSync(path, typeof json === "string" ? json : JSON.stringify(json));
  return path;
}

describe("mirror settings", () => {
  it("defaults: off, ~/.claude/session-mirrors, 100 MB, 30 days, 1024 sessions, thinking, redaction, interrupted flush", () => {
    const { settings, warnings } = loadMirrorSettings({
      env: {},
      home,
      configPath: join(home, "missing.json"),
    });
    expect(settings).toEqual({
      enabled: false,
      dir: join(home, ".claude", "session-mirrors"),
      maxBytes: 100 * 1024 * 1024,
      retentionDays: 30,
      maxSessions: 1024,
      includeThinking: true,
      redact: true,
      flushInterrupted: true,
    });
    expect(settings).toEqual(defaultMirrorSettings(home));
    expect(warnings).toEqual([]);
  });

  it("reads the config file from TAPEDECK_PROXY_CONFIG, else ~/.config/tapedeck/proxy.json", () => {
    expect(defaultProxyConfigPath({}, home)).toBe(join(home, ".config", "tapedeck", "proxy.json"));
    expect(defaultProxyConfigPath({ TAPEDECK_PROXY_CONFIG: "/etc/x.json" }, home)).toBe("/etc/x.json");
    const path = configFile({ mirror: { enabled: true, maxBytes: "10MB" } });
    const { settings, configPath } = loadMirrorSettings({ env: { TAPEDECK_PROXY_CONFIG: path }, home });
    expect(configPath).toBe(path);
    expect(settings.enabled).toBe(true);
    expect(settings.maxBytes).toBe(10 * 1024 * 1024);
  });

  it("layers defaults < config file < environment < overrides", () => {
    const configPath = configFile({
      mirror: { enabled: true, retentionDays: 7, maxSessions: 10, dir: "~/from-config", redact: false },
    });
    const env = {
      TAPEDECK_MIRROR: "off",
      TAPEDECK_MIRROR_RETENTION_DAYS: "14",
      TAPEDECK_MIRROR_DIR: "/srv/mirrors",
      TAPEDECK_MIRROR_INCLUDE_THINKING: "false",
      TAPEDECK_MIRROR_FLUSH_INTERRUPTED: "0",
      TAPEDECK_MIRROR_MAX_BYTES: "2048",
    };
    const { settings, warnings } = loadMirrorSettings({
      env,
      home,
      configPath,
      overrides: { enabled: true, retentionDays: 3 },
    });
    expect(warnings).toEqual([]);
    expect(settings).toEqual({
      enabled: true, // override beats env "off", which beat the config's true
      dir: "/srv/mirrors", // env beats config
      maxBytes: 2048,
      retentionDays: 3,
      maxSessions: 10, // config only
      includeThinking: false,
      redact: false, // config only
      flushInterrupted: false,
    });
  });

  it("expands ~ in the directory and accepts on/off spellings", () => {
    for (const [word, value] of [
      ["on", true],
      ["ON", true],
      ["1", true],
      ["yes", true],
      ["true", true],
      ["off", false],
      ["0", false],
      ["no", false],
      ["False", false],
    ] as const) {
      const { settings } = loadMirrorSettings({ env: { TAPEDECK_MIRROR: word }, home, configPath: "/nope" });
      expect(settings.enabled).toBe(value);
    }
    const { settings } = loadMirrorSettings({
      env: { TAPEDECK_MIRROR_DIR: "~/m" },
      home,
      configPath: "/nope",
    });
    expect(settings.dir).toBe(join(home, "m"));
  });

  it("bad values fall back to the lower layer with a warning, never a throw", () => {
    const configPath = configFile({ mirror: { maxSessions: 50, bogus: 1 } });
    const warned: string[] = [];
    const { settings, warnings } = loadMirrorSettings({
      env: {
        TAPEDECK_MIRROR: "maybe",
        TAPEDECK_MIRROR_MAX_BYTES: "-5",
        TAPEDECK_MIRROR_RETENTION_DAYS: "forever",
        TAPEDECK_MIRROR_MAX_SESSIONS: "1.5",
        TAPEDECK_MIRROR_REDACT: "sometimes",
        TAPEDECK_MIRROR_DIR: "   ",
      },
      home,
      configPath,
      overrides: { maxBytes: Number.NaN, includeThinking: "nah" },
      warn: (m) => warned.push(m),
    });
    expect(settings).toEqual({ ...defaultMirrorSettings(home), maxSessions: 50 });
    expect(warnings).toHaveLength(9);
    expect(warned).toEqual(warnings);
    expect(warnings.join("\n")).toContain("TAPEDECK_MIRROR_MAX_BYTES");
    expect(warnings.join("\n")).toContain('unknown mirror setting "bogus"');
  });

  it("a malformed or mistyped config file is a warning, not a crash", () => {
    const broken = configFile("{ not json");
    expect(loadMirrorSettings({ env: {}, home, configPath: broken }).warnings[0]).toContain("not valid JSON");
    const wrong = configFile({ mirror: "on" });
    const r = loadMirrorSettings({ env: {}, home, configPath: wrong });
    expect(r.settings).toEqual(defaultMirrorSettings(home));
    expect(r.warnings[0]).toContain('"mirror" must be an object');
    expect(loadMirrorSettings({ env: {}, home, configPath: configFile({ other: 1 }) }).warnings).toEqual([]);
  });

  it("does not echo long values back into a warning", () => {
    const secretish = "x".repeat(500);
    const { warnings } = loadMirrorSettings({
      env: { TAPEDECK_MIRROR: secretish },
      home,
      configPath: "/nope",
    });
    expect(warnings[0]?.length).toBeLessThan(150);
  });
});
