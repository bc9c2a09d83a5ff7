import { afterEach, describe, expect, it } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { listSessions } from "../../src/core/read/sessions.ts";
import { exportCsp, renderHtmlExport, scriptSafeJson } from "../../src/viewer/html-export.ts";
import { spec, tempProject } from "../helpers/session.ts";

const ASSETS = { js: "console.log(1)", css: "body{color:red}" };
let project: { root: string; cleanup: () => void } | undefined;

afterEach(() => {
  project?.cleanup();
  project = undefined;
});

function exported(prompt: string): string {
  project = tempProject("tapedeck-html-export-");
  recordEvents(spec(project.root), [
    { kind: "session_start", event_id: "s", payload: { source: "startup" } },
    { kind: "user_prompt", event_id: "p", payload: { prompt } },
  ]);
  const ref = listSessions(project.root)[0]!;
  return renderHtmlExport(ref, { assets: ASSETS }).html;
}

describe("export --format html", () => {
  it("keeps a recorded '</script>' inside the data: the page has exactly its two script elements", () => {
    const hostile = "</script><script>alert(1)</script><!-- \u2028";
    const html = exported(hostile);
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html.match(/<\/script>/gi)).toHaveLength(2);
    const data = /<script type="application\/json" id="tapedeck-data">([^<]*)<\/script>/.exec(html)![1]!;
    const parsed = JSON.parse(data);
    const firstPage = Object.values(parsed.pages["0"])[0] as {
      events: Array<{ payload: { prompt?: string } }>;
    };
    expect(firstPage.events[1]!.payload.prompt).toBe(hostile);
  });

  it("allows only its own inline script and style, by hash, and no network at all", () => {
    const html = exported("hello");
    const csp = exportCsp(ASSETS.js, ASSETS.css);
    expect(html).toContain(`content="${csp}"`);
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-/);
    expect(csp).toContain("connect-src 'none'");
    expect(csp).not.toContain("unsafe");
  });

  it("embeds events.jsonl as stored, so the page can hash the same bytes", () => {
    const html = exported("hello");
    const data = JSON.parse(/id="tapedeck-data">([^<]*)<\/script>/.exec(html)![1]!);
    const raw = Buffer.from(data.raw["0"], "base64").toString("utf8");
    expect(
      raw
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).kind),
    ).toEqual(["session_start", "user_prompt"]);
  });

  it("escapes every '<' in embedded JSON", () => {
    expect(scriptSafeJson({ a: "<b>" })).toBe('{"a":"\\u003cb>"}');
  });
});
