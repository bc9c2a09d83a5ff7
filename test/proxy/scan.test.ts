// The proxy's scans of request text are linear and bounded in bytes. The
// "Primary working directory" scan was a regular expression whose lazy value
// ran to the end of the body from every occurrence of the phrase: a 400 KB
// non-JSON body repeating it blocked the proxy for 13 s. The work is measured
// here as bytes examined (taggedScanStats), not as time.
import { describe, expect, it } from "vitest";
import { taggedBodyText, taggedScanStats } from "../../src/providers/api-usage.ts";
import { claudeApiUsage } from "../../src/providers/claude/api-usage.ts";

const PHRASE = "Primary working directory: ";

function examined(run: () => unknown): number {
  taggedScanStats.examined = 0;
  run();
  return taggedScanStats.examined;
}

function view(body: string) {
  return { method: "POST", url: "/v1/messages", headers: {}, rawBody: Buffer.from(body, "utf8") };
}

describe("the Primary working directory scan", () => {
  it("reads the directory Claude's environment block names", () => {
    const body = JSON.stringify({
      system: [{ type: "text", text: `Env:\n - ${PHRASE}/home/u/my "proj"\\x\n - Platform: linux` }],
    });
    expect(claudeApiUsage.workingDirectory(view(body))).toBe('/home/u/my "proj"\\x');
    expect(taggedBodyText(Buffer.from(`{"t":"${PHRASE}/p"}`), PHRASE)).toBe("/p");
    expect(taggedBodyText(Buffer.from(`{"t":"${PHRASE}"}`), PHRASE)).toBeUndefined();
    expect(taggedBodyText(Buffer.from(`{"t":"${PHRASE}/p`), PHRASE)).toBeUndefined();
  });

  it("the first occurrence with a value wins; an unterminated one is passed over", () => {
    const body = `x ${PHRASE}${"a".repeat(5000)}\\n then "${PHRASE}/second\\n`;
    expect(taggedBodyText(Buffer.from(body), PHRASE)).toBe("/second");
    expect(taggedBodyText(Buffer.from(`"${PHRASE}/one\\n ${PHRASE}/two\\n"`), PHRASE)).toBe("/one");
  });

  it("a value over 4096 bytes is not a directory: bounded in bytes", () => {
    const body = JSON.stringify({ text: `${PHRASE}/${"d".repeat(5000)}\nrest` });
    expect(claudeApiUsage.workingDirectory(view(body))).toBeUndefined();
    expect(
      claudeApiUsage.workingDirectory(view(JSON.stringify({ text: `${PHRASE}/${"d".repeat(4000)}\n` }))),
    ).toBe(`/${"d".repeat(4000)}`);
  });

  it("a 400 KB non-JSON body repeating the phrase: each byte is examined about once", () => {
    const body = PHRASE.repeat(Math.ceil((400 * 1024) / PHRASE.length));
    let found: string | undefined = "unset";
    const work = examined(() => {
      found = claudeApiUsage.workingDirectory(view(body));
    });
    expect(found).toBeUndefined();
    expect(work).toBeGreaterThanOrEqual(body.length);
    expect(work).toBeLessThanOrEqual(2 * body.length);
  });

  it("the work grows linearly with the body, whatever repeats in it", () => {
    const shapes = [
      (n: number) => PHRASE.repeat(n),
      (n: number) => `${PHRASE}a`.repeat(n),
      (n: number) => `${PHRASE}\\"`.repeat(n),
      (n: number) => `${PHRASE}\\`.repeat(n),
      (n: number) => `${PHRASE}${"b".repeat(5000)}`.repeat(Math.ceil(n / 200)),
    ];
    for (const shape of shapes) {
      const small = shape(2000);
      const large = shape(16000);
      const ws = examined(() => taggedBodyText(Buffer.from(small), PHRASE));
      const wl = examined(() => taggedBodyText(Buffer.from(large), PHRASE));
      expect(ws).toBeLessThanOrEqual(2 * small.length);
      expect(wl).toBeLessThanOrEqual(2 * large.length);
    }
  });
});
