// errorCode: the one helper every log of tapedeck names a failure with (the hook path, the store, the proxy).
import { describe, expect, it } from "vitest";
import { errorCode } from "../../src/core/base/diagnostics.ts";
import { errorCode as proxyErrorCode } from "../../src/proxy/dispatch.ts";

describe("errorCode", () => {
  it("names a failure by its code, else its class, never by its message", () => {
    expect(errorCode(Object.assign(new Error("open /secret/path"), { code: "ENOENT" }))).toBe("ENOENT");
    expect(errorCode(new TypeError("sk-ant-api03-abcdef"))).toBe("TypeError");
    expect(errorCode({ code: "lowercase with spaces", name: "Named" })).toBe("Named");
  });

  it("says unknown for what has neither, a thrown string included", () => {
    for (const thrown of ["a payload's text", 42, null, undefined, {}, { code: 7, name: "has space" }])
      expect(errorCode(thrown), String(thrown)).toBe("unknown");
  });

  it("says unknown instead of throwing when reading the thrown object throws", () => {
    const hostile = {
      get code(): string {
        throw new Error("getter");
      },
    };
    expect(errorCode(hostile)).toBe("unknown");
    expect(
      errorCode(
        new Proxy(
          {},
          {
            get: () => {
              throw new Error("trap");
            },
          },
        ),
      ),
    ).toBe("unknown");
  });

  it("is the one the proxy logs with", () => {
    expect(proxyErrorCode).toBe(errorCode);
  });
});
