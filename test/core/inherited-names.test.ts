// Tables keyed by names a payload, an archive line or a config gives: each of Object's own member names is a
// name like any other (a plain object answered `constructor` with Object's function, `__proto__` with the
// prototype).
import { describe, expect, it } from "vitest";
import { redactText, redactValue } from "../../src/core/redact.ts";
import { INHERITED_NAMES, parsedWith } from "../helpers/inherited-names.ts";

describe("a name spelled like an object's own member", () => {
  it("is a key the redactor judges by its words, not by Object's members", () => {
    for (const name of INHERITED_NAMES) {
      const payload = { tool_input: parsedWith(name, "abc"), ...parsedWith(name, "short") };
      const out = redactValue(payload);
      expect(out.value, name).toEqual(payload);
      expect(out.redactions, name).toEqual([]);
      expect(redactText(`{"${name}": "abc"}`).text, name).toBe(`{"${name}": "abc"}`);
    }
  });
});
