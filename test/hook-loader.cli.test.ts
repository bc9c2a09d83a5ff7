// dist/hook.cjs is a loader that runs the hook's code with a V8 code cache made at build time
// (scripts/hook-loader.mjs). V8 checks a cache only against the source's length, so the code and its cache
// must be named by the code's hash; the cache must be one this Node accepts, or it only costs a read.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";

const DIST = join(process.cwd(), "dist");

beforeAll(() => {
  if (!existsSync(join(DIST, "hook.cjs")))
    execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

function named(): { code: string; cache: string; loader: string } {
  const loader = readFileSync(join(DIST, "hook.cjs"), "utf8");
  const code = /"(hook-[0-9a-f]{16}\.cjs)"/.exec(loader)?.[1];
  const cache = /"(hook-[0-9a-f]{16}\.cache)"/.exec(loader)?.[1];
  if (!code || !cache) throw new Error("dist/hook.cjs names no code or no cache");
  return { code, cache, loader };
}

describe("the hook's code cache", () => {
  it("the code and its cache are named by the code's own hash", () => {
    const { code, cache } = named();
    const text = readFileSync(join(DIST, code), "utf8");
    const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
    expect(code).toBe(`hook-${hash}.cjs`);
    expect(cache).toBe(`hook-${hash}.cache`);
  });

  it("is accepted by this Node for the code as the loader wraps it", () => {
    const { code, cache, loader } = named();
    const head = /const code = ("[^"]+") \+/.exec(loader)?.[1];
    const tail = /\+ ("[^"]*")\s*;/.exec(loader)?.[1];
    expect(head && tail).toBeTruthy();
    const wrapped = JSON.parse(head!) + readFileSync(join(DIST, code), "utf8") + JSON.parse(tail!);
    const script = new Script(wrapped, {
      filename: join(DIST, code),
      cachedData: readFileSync(join(DIST, cache)),
    });
    expect(script.cachedDataRejected).toBe(false);
  });

  it("the code keeps its one dynamic import going through the loader's own", () => {
    const { code } = named();
    const text = readFileSync(join(DIST, code), "utf8");
    expect(text.includes("import(")).toBe(false);
    expect(text.split("__tapedeckImport(").length - 1).toBe(1);
  });
});

describe("the hook's start-up", () => {
  it("a hook with recording off loads no node:crypto (the bundle loads it on first use)", () => {
    const dir = mkdtempSync(join(tmpdir(), "tapedeck-lazycrypto-"));
    try {
      mkdirSync(join(dir, ".tapedeck"), { mode: 0o700 });
      writeFileSync(
        join(dir, ".tapedeck", "config.json"),
        JSON.stringify({
          schema_version: 1,
          providers: { claude: { recording: "off", mode: "capture-only" } },
        }),
        { mode: 0o600 },
      );
      const probe = join(dir, "probe.cjs");
      writeFileSync(
        probe,
        'process.on("exit", () => process.stderr.write(String(process.moduleLoadList.includes("NativeModule crypto"))));\n',
      );
      const run = (args: string[], input: string) =>
        spawnSync(process.execPath, ["-r", probe, join(DIST, "hook.cjs"), ...args], {
          cwd: dir,
          input,
          env: { ...process.env, CLAUDE_PROJECT_DIR: dir, TAPEDECK_HOME: join(dir, "home") },
          encoding: "utf8",
        });
      const payload = JSON.stringify({
        session_id: "s1",
        hook_event_name: "UserPromptSubmit",
        prompt: "hi",
        cwd: dir,
      });
      expect(run(["claude"], payload).stderr).toBe("false");
      expect(run(["--statusline", "claude"], JSON.stringify({ session_id: "s1", cwd: dir })).stderr).toBe(
        "false",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
