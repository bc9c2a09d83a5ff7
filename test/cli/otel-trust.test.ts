// A cloned repository can carry a .tapedeck/config.json naming an endpoint: the hook server's background
// export sends nowhere this user has not sent the project to by hand. The commands run in process
// (test/helpers/program.ts) with exactly the environment given, as a child started with it would.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { runProgram } from "../helpers/program.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";
import { type Receiver, startReceiver } from "../otel/receiver.ts";

const project = useTempProjects();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const ev = (
  kind: NormalizedEvent["kind"],
  id: string,
  payload: Record<string, unknown> = {},
): NormalizedEvent => ({
  kind,
  event_id: id,
  payload,
  turn_id: "t1",
  terminal: kind === "session_end",
});

describe("the automatic export's endpoints", () => {
  it("a planted endpoint gets nothing from the background run until the user exports there by hand", async () => {
    const root = project();
    recordEvents(spec(root, { identity: identity("sess-1", "claude") }), [
      ev("user_prompt", "p1", { prompt: "hello" }),
      ev("tool_call", "c1", { tool_name: "Bash", tool_use_id: "tu1" }),
      ev("session_end", "end"),
    ]);
    writeConfig(root, { schema_version: 1, providers: {}, otel: { endpoint: receiver.tracesUrl } });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "home") };
    const cli = (args: string[]) =>
      runProgram([...args, "--project", root], { cwd: root, env, inheritEnv: false });
    const background = await cli(["otel", "export", "--pending", "--background", "--quiet"]);
    expect(background.code).toBe(0);
    expect(receiver.attempts).toBe(0);
    const status = JSON.parse((await cli(["status", "--json"])).stdout).otel;
    expect(status).toMatchObject({ auto: true, trusted: false, pending_sessions: 1 });
    // By hand, the first time, a config-named endpoint is the user's decision: refused without a terminal or --yes.
    const unconfirmed = await cli(["otel", "export", "--pending"]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain("--yes");
    expect(receiver.attempts).toBe(0);
    expect(JSON.parse((await cli(["status", "--json"])).stdout).otel).toMatchObject({ trusted: false });
    // Confirmed: sent, and remembered in the user's home (not in the project).
    const byHand = await cli(["otel", "export", "--pending", "--yes"]);
    expect(byHand.code, byHand.stderr).toBe(0);
    expect(receiver.spans().map((s) => s.name)).toEqual(["invoke_agent claude-code", "execute_tool Bash"]);
    const trustDir = join(root, "home", ".tapedeck", "otel-endpoints");
    const [file] = readdirSync(trustDir);
    expect(lstatSync(join(trustDir, file!)).mode & 0o777).toBe(0o600);
    expect(JSON.parse((await cli(["status", "--json"])).stdout).otel).toMatchObject({
      trusted: true,
      pending_sessions: 0,
    });
  }, 60_000);
});
