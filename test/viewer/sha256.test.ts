import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Sha256 } from "../../src/viewer/page/sha256.ts";

describe("the page's incremental SHA-256", () => {
  it("agrees with node:crypto for every length around the block and padding boundaries", () => {
    for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
      const data = randomBytes(n);
      expect(new Sha256().update(data).hex()).toBe(createHash("sha256").update(data).digest("hex"));
    }
  });

  it("gives the same digest however the input is cut into chunks", () => {
    const data = randomBytes(10_007);
    const h = new Sha256();
    for (let i = 0; i < data.length; i += 1 + (i % 97)) h.update(data.subarray(i, i + 1 + (i % 97)));
    expect(h.hex()).toBe(createHash("sha256").update(data).digest("hex"));
  });
});
