// One secret, one label (issue 41, item 10): an AWS secret access key was `aws_secret_access_key` when found
// beside its key id (a tool's output) and `access_key` when found by the name it was assigned to (a prompt's
// `AWS_SECRET_ACCESS_KEY=...`), so show and search named one secret two ways.
import { describe, expect, it } from "vitest";
import { redactText } from "../src/index.ts";

// Assembled at run time: no literal secret in the source.
const SECRET = ["q8Zt3Lm9Vx", "2Rk7Pw4Nh6", "Ys1Bc5Df0G", "j8Ha3Ke7Qa"].join("");
const KEY_ID = `AK${"IA"}Z7QW3RT5YU9OP2LK`;

describe("labels", () => {
  it("names an AWS secret access key the same by its name and beside its key id", () => {
    const byName = [
      `export AWS_SECRET_ACCESS_KEY=${SECRET}`,
      `aws_secret_access_key = ${SECRET}`,
      `{"secret_access_key": "${SECRET}"}`,
    ];
    for (const text of byName) expect(redactText(text).kinds, text).toEqual(["aws_secret_access_key"]);
    const paired = redactText(`${KEY_ID} ${SECRET}`);
    expect(paired.kinds).toContain("aws_secret_access_key");
    expect(paired.text).not.toContain(SECRET);
    // Another access key keeps its own label.
    expect(redactText(`ACCESS_KEY=${SECRET}`).kinds).toEqual(["access_key"]);
  });
});
