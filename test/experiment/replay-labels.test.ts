import { describe, expect, it } from "vitest";
import { replayLabels } from "../../src/core/archive/replay-labels.ts";

describe("replayLabels: a replay's arm from the hook's environment", () => {
  it("takes the orchestrator's values", () => {
    expect(
      replayLabels({
        TAPEDECK_EXPERIMENT_ID: "exp-1",
        TAPEDECK_NATIVE_MEMORY: "off",
        TAPEDECK_RETRIEVAL: "on",
        TAPEDECK_ARM_LABELS: JSON.stringify({ provider: "claude", cli_version: "2.1.332" }),
      }),
    ).toEqual({
      experimentId: "exp-1",
      nativeMemory: "off",
      retrieval: "on",
      labels: { provider: "claude", cli_version: "2.1.332" },
    });
  });

  it("drops what is not bounded, printable and well formed instead of writing it into a manifest", () => {
    const labels = replayLabels({
      TAPEDECK_EXPERIMENT_ID: "x".repeat(129),
      TAPEDECK_NATIVE_MEMORY: "maybe",
      TAPEDECK_RETRIEVAL: "ON",
      TAPEDECK_ARM_LABELS: JSON.stringify({ ok: "yes", bad: "\u001b[31mred", num: 3, long: "y".repeat(513) }),
    });
    expect(labels).toEqual({
      experimentId: null,
      nativeMemory: null,
      retrieval: null,
      labels: { ok: "yes" },
    });
    expect(replayLabels({ TAPEDECK_ARM_LABELS: "[1,2]" }).labels).toBeNull();
    expect(replayLabels({ TAPEDECK_ARM_LABELS: "{not json" }).labels).toBeNull();
    expect(
      replayLabels({
        TAPEDECK_ARM_LABELS: JSON.stringify(
          Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, "v"])),
        ),
      }).labels,
    ).toHaveProperty("k15");
    expect(
      Object.keys(
        replayLabels({
          TAPEDECK_ARM_LABELS: JSON.stringify(
            Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, "v"])),
          ),
        }).labels ?? {},
      ),
    ).toHaveLength(16);
  });
});
