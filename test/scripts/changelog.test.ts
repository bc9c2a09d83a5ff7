import { describe, expect, it } from "vitest";
import {
  followsConvention,
  markerOf,
  parseSubject,
  render,
  withUnreleased,
} from "../../scripts/changelog.ts";

describe("the changelog from commit subjects", () => {
  it("reads an area prefix, a nested one as its room, and anything else as other", () => {
    expect(parseSubject("import: resume an interrupted import")).toEqual({
      area: "import",
      text: "resume an interrupted import",
    });
    expect(parseSubject("docs/import.md: say what changed")).toEqual({
      area: "docs",
      text: "say what changed",
    });
    expect(parseSubject("Fix things")).toEqual({ area: "other", text: "Fix things" });
    expect(parseSubject("import:no space")).toEqual({ area: "other", text: "import:no space" });
  });

  it("a subject follows the convention with a known area and at most 72 characters", () => {
    expect(followsConvention("usage: publish a machine's aggregates")).toBe(true);
    expect(followsConvention(`usage: ${"x".repeat(66)}`)).toBe(false);
    expect(followsConvention("misc: something")).toBe(false);
  });

  it("groups by area in the convention's order, unknown areas after, every entry kept", () => {
    const body = render([
      parseSubject("usage: b"),
      parseSubject("core: a"),
      parseSubject("zzz: c"),
      parseSubject("usage: d"),
    ]);
    expect(body).toBe("### core\n\n- a\n\n### usage\n\n- b\n- d\n\n### zzz\n\n- c\n");
  });

  it("replaces only the Unreleased section, before the released ones", () => {
    const released = "# Changelog\n\n<!-- changelog: after abc1234 -->\n\n## 0.1.0\n\n- old\n";
    const once = withUnreleased(released, "### core\n\n- new\n");
    expect(once).toBe(
      "# Changelog\n\n<!-- changelog: after abc1234 -->\n\n## Unreleased\n\n### core\n\n- new\n\n## 0.1.0\n\n- old\n",
    );
    expect(withUnreleased(once, "### usage\n\n- other\n")).toContain(
      "## Unreleased\n\n### usage\n\n- other\n\n## 0.1.0",
    );
    expect(markerOf(released)).toBe("abc1234");
  });
});
