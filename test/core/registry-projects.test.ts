import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registeredProjects } from "../../src/core/read/registry-projects.ts";
import { useTempProjects } from "../helpers/temp-project.ts";

const project = useTempProjects();

describe("the projects the registry names", () => {
  it("one provider's or all, absolute roots only, each once, split into present and gone", () => {
    const home = project();
    const live = project();
    const write = (provider: string, id: string, root: unknown) => {
      mkdirSync(join(home, "registry", provider), { recursive: true });
      writeFileSync(join(home, "registry", provider, `${id}.json`), JSON.stringify({ project_root: root }));
    };
    write("claude", "a", live);
    write("claude", "b", live);
    write("codex", "c", join(home, "gone"));
    write("gemini", "d", "relative/root");
    write("gemini", "e", 42);
    const env = { TAPEDECK_HOME: home };
    expect(registeredProjects({ env })).toEqual({ present: [live], missing: [join(home, "gone")] });
    expect(registeredProjects({ env, provider: "codex" })).toEqual({
      present: [],
      missing: [join(home, "gone")],
    });
    expect(registeredProjects({ env: { TAPEDECK_HOME: join(home, "none") } })).toEqual({
      present: [],
      missing: [],
    });
  });
});
