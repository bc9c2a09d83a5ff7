// Session ids as stored (issue 10 item 7, the storage half): an id that is a
// credential never reaches the directory name, the manifest, an envelope or
// the registry, yet the same id always finds the same session; hostile ids
// (separators, `..`, control and bidi characters, huge) map to safe names.
import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionIdentity } from "../../src/core/archive/event.ts";
import { lookupSession, registerSession } from "../../src/core/archive/session-registry.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession, listSessions } from "../../src/core/read/sessions.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function identityOf(id: string): SessionIdentity {
  return {
    provider: "claude",
    provider_session_id: id,
    session_id: `claude:${id}`,
    identity_source: "provider",
  };
}

/** Every byte tapedeck wrote under a directory, as text. */
function everything(dir: string): string {
  let out = "";
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out += `${path}\n`;
    if (entry.isFile()) out += readFileSync(path, "latin1");
  }
  return out;
}

const TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

describe("a credential as session id (10.7)", () => {
  it("never reaches disk, and the same id maps to the same directory", () => {
    const root = project();
    const s = spec(root, { identity: identityOf(TOKEN) });
    const first = recordEvents(s, [event("session_start", "a")]);
    const second = recordEvents(s, [event("user_prompt", "b")]);
    expect(second.sessionDir).toBe(first.sessionDir);
    expect(first.sessionDir.split(sep).at(-1)).toMatch(/^redacted-[0-9a-f]{32}$/);
    expect(everything(join(root, ".tapedeck"))).not.toContain(TOKEN);
    const [ref] = listSessions(root);
    expect(ref?.manifest.provider_session_id).toMatch(/^redacted-/);
    expect(ref?.manifest.session_id).toMatch(/^claude:redacted-/);
    expect(ref?.manifest.event_count).toBe(2);
    // Whoever knows the id still finds the session by it.
    expect(findSession(root, TOKEN).dir).toBe(first.sessionDir);
  });

  it("is stored redacted in the registry, and still looked up by the id", () => {
    const root = project();
    const home = project();
    const env = { TAPEDECK_HOME: home };
    registerSession({ provider: "claude", provider_session_id: TOKEN, project_root: root }, env);
    expect(everything(home)).not.toContain(TOKEN);
    expect(lookupSession("claude", TOKEN, env)?.project_root).toBe(root);
  });
});

describe("credential-like event, turn and agent ids", () => {
  it("are stored as distinct stable hashes: two such events are two events, not a retry", () => {
    const root = project();
    const s = spec(root);
    const other = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
    const a = { ...event("user_prompt", TOKEN), turn_id: TOKEN };
    const b = { ...event("user_prompt", other), turn_id: other };
    expect(recordEvents(s, [a, b]).appended).toBe(2);
    expect(recordEvents(s, [a]).duplicates).toBe(1);
    const text = everything(join(root, ".tapedeck"));
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(other);
  });
});

describe("hostile session ids map to safe names", () => {
  const hostile = [
    "../../../etc",
    "a/b/c",
    "..",
    "\u001b]0;pwned\u0007",
    "id\u202ereversed",
    "x".repeat(5000),
  ];

  it.each(hostile.map((id) => [JSON.stringify(id).slice(0, 24), id]))("%s", (_label, id) => {
    const root = project();
    const out = recordEvents(spec(root, { identity: identityOf(id) }), [event("session_start", "a")]);
    const sessionRoot = join(root, ".tapedeck", "claude-sessions");
    expect(out.sessionDir.startsWith(`${sessionRoot}${sep}`)).toBe(true);
    expect(out.sessionDir.slice(sessionRoot.length + 1)).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    const manifest = JSON.parse(readFileSync(join(out.sessionDir, "manifest.json"), "utf8"));
    expect(manifest.session_id).not.toMatch(/[\u0000-\u001f\u007f\u202e]/u);
    expect(manifest.session_id.length).toBeLessThan(300);
    // Stable: the same hostile id lands in the same directory again.
    const again = recordEvents(spec(root, { identity: identityOf(id) }), [event("user_prompt", "b")]);
    expect(again.sessionDir).toBe(out.sessionDir);
  });
});
