// Which API a `codex` run would call, found the way Codex layers its config,
// and the override `tapedeck run codex` adds to send it through the proxy.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  chatGptLogin,
  codexBaseUrlOverride,
  codexEndpoint,
  OPENAI_API_BASE,
} from "../../../src/providers/codex/endpoint.ts";
import { parseTomlTables, tableKey } from "../../../src/providers/codex/toml.ts";
import { tempProject } from "../../helpers/session.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(userToml: string, projectToml?: string) {
  const t = tempProject("tapedeck-endpoint-");
  cleanups.push(t.cleanup);
  const codexHome = join(t.root, "codex-home");
  const project = join(t.root, "project");
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(join(project, "sub"), { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), userToml);
  if (projectToml !== undefined) {
    mkdirSync(join(project, ".codex"), { recursive: true });
    writeFileSync(join(project, ".codex", "config.toml"), projectToml);
  }
  return { env: { CODEX_HOME: codexHome } as NodeJS.ProcessEnv, cwd: join(project, "sub") };
}

const USER = `model_provider = "mock"
[model_providers.mock]
base_url = "http://127.0.0.1:18090/v1"
[model_providers."my corp"]
base_url = "https://llm.corp.example/openai/v1"
[profiles.work]
model_provider = "my corp"
`;

describe("codexEndpoint", () => {
  it("takes the provider from the user config and its base_url", () => {
    const o = setup(USER);
    expect(codexEndpoint(["exec", "hi"], o)).toMatchObject({
      provider: "mock",
      baseUrl: "http://127.0.0.1:18090/v1",
    });
  });

  it("lets a profile or -c choose the provider", () => {
    const o = setup(USER);
    expect(codexEndpoint(["--profile", "work", "exec", "hi"], o).baseUrl).toBe(
      "https://llm.corp.example/openai/v1",
    );
    expect(codexEndpoint(["-c", 'model_provider="mock"', "exec"], { ...o, env: o.env }).provider).toBe(
      "mock",
    );
    expect(codexEndpoint(["-c", "model_provider=openai"], o)).toMatchObject({
      provider: "openai",
      baseUrl: OPENAI_API_BASE,
    });
  });

  it("lets the project's .codex/config.toml override the user's, found from a subdirectory", () => {
    const o = setup(
      USER,
      'model_provider = "proj"\n[model_providers.proj]\nbase_url = "http://127.0.0.1:9/v1"\n',
    );
    expect(codexEndpoint(["exec"], o)).toMatchObject({ provider: "proj", baseUrl: "http://127.0.0.1:9/v1" });
  });

  it("the built-in openai provider: openai_base_url, then OPENAI_BASE_URL, then the API", () => {
    const o = setup("");
    expect(codexEndpoint([], o).baseUrl).toBe(OPENAI_API_BASE);
    expect(codexEndpoint([], { ...o, env: { ...o.env, OPENAI_BASE_URL: "http://e/v1" } }).baseUrl).toBe(
      "http://e/v1",
    );
    const c = setup('openai_base_url = "http://c/v1"\n');
    expect(codexEndpoint([], { ...c, env: { ...c.env, OPENAI_BASE_URL: "http://e/v1" } }).baseUrl).toBe(
      "http://c/v1",
    );
  });

  it("a provider without a base_url is reported as such, not guessed", () => {
    const o = setup(USER);
    expect(codexEndpoint(["-c", "model_provider=nowhere"], o)).toMatchObject({
      provider: "nowhere",
      baseUrl: undefined,
    });
  });

  it("a default profile in config.toml chooses the provider too", () => {
    const o = setup(`profile = "work"\n${USER}`);
    expect(codexEndpoint(["exec"], o).provider).toBe("my corp");
  });

  it("-C/--cd moves where the project config is looked for, and the search stops at the repository root", () => {
    const o = setup(
      USER,
      'model_provider = "proj"\n[model_providers.proj]\nbase_url = "http://127.0.0.1:9/v1"\n',
    );
    const elsewhere = join(o.cwd, "..", "..", "codex-home");
    expect(codexEndpoint(["exec"], { ...o, cwd: elsewhere }).provider).toBe("mock");
    expect(codexEndpoint(["-C", o.cwd, "exec"], { ...o, cwd: elsewhere }).provider).toBe("proj");
    expect(codexEndpoint([`--cd=${o.cwd}`, "exec"], { ...o, cwd: elsewhere }).provider).toBe("proj");
    // A repository inside the project is a project of its own: the outer config is not its.
    mkdirSync(join(o.cwd, "inner", ".git"), { recursive: true });
    expect(codexEndpoint(["exec"], { ...o, cwd: join(o.cwd, "inner") }).provider).toBe("mock");
  });

  it("says when the command line already overrides the URL tapedeck would set", () => {
    const o = setup(USER);
    expect(codexEndpoint(["-c", 'model_providers.mock.base_url="http://x/v1"', "exec"], o).userOverride).toBe(
      "model_providers.mock.base_url",
    );
    expect(
      codexEndpoint(["-c", "model_provider=openai", "-c", 'openai_base_url="http://x/v1"'], o),
    ).toMatchObject({
      userOverride: "openai_base_url",
    });
    expect(codexEndpoint(["exec"], o).userOverride).toBeUndefined();
  });

  it("recognises a ChatGPT sign-in (its calls do not go to the OpenAI API)", () => {
    const o = setup("");
    const home = o.env.CODEX_HOME!;
    writeFileSync(
      join(home, "auth.json"),
      JSON.stringify({ OPENAI_API_KEY: null, tokens: { id_token: "x" } }),
    );
    expect(codexEndpoint([], o).chatgpt).toBe(true);
    // The sign-in in auth.json decides, whatever the environment holds.
    expect(codexEndpoint([], { ...o, env: { ...o.env, OPENAI_API_KEY: "sk-x" } }).chatgpt).toBe(true);
    writeFileSync(join(home, "auth.json"), JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: "sk-x" }));
    expect(codexEndpoint([], o).chatgpt).toBeUndefined();
    writeFileSync(join(home, "auth.json"), JSON.stringify({ auth_mode: "chatgpt" }));
    expect(chatGptLogin(home, {})).toBe(true);
  });

  it("ignores arguments after -- (they belong to the prompt)", () => {
    const o = setup(USER);
    expect(codexEndpoint(["exec", "--", "-c", "model_provider=openai"], o).provider).toBe("mock");
  });
});

describe("codexBaseUrlOverride", () => {
  it("is a -c that Codex reads back as the same TOML value", () => {
    const url = "http://127.0.0.1:4000/v1";
    for (const [provider, key] of [
      ["mock", ["model_providers", "mock"]],
      ["my corp", ["model_providers", "my corp"]],
      ["openai", []],
    ] as const) {
      const [flag, kv] = codexBaseUrlOverride(provider, url);
      expect(flag).toBe("-c");
      const eq = kv!.indexOf("=");
      // The key path and value round-trip through a TOML reader.
      const parsed = parseTomlTables(`${kv!.slice(0, eq)} = ${kv!.slice(eq + 1)}\n`);
      const name = provider === "openai" ? "openai_base_url" : "base_url";
      expect(parsed.get(tableKey([...key]))?.get(name)).toBe(url);
    }
  });
});
