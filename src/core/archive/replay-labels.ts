// What a replay's hooks learn from the environment the experiment orchestrator gives the agent
// (docs/experiments.md): the arm's identity for the new session's manifest. Anything can be in an
// environment, so each value is bounded and printable, or dropped.
const MAX_VALUE = 512;
const MAX_LABELS = 16;
const SAFE = /^[\x20-\x7e]*$/;

export interface ReplayLabels {
  experimentId: string | null;
  nativeMemory: "on" | "off" | null;
  retrieval: "on" | "off" | null;
  labels: Record<string, string> | null;
}

function bounded(value: string | undefined, max = MAX_VALUE): string | null {
  return value !== undefined && value.length > 0 && value.length <= max && SAFE.test(value) ? value : null;
}

function onOff(value: string | undefined): "on" | "off" | null {
  return value === "on" || value === "off" ? value : null;
}

function labels(value: string | undefined): Record<string, string> | null {
  if (!value || value.length > MAX_LABELS * (MAX_VALUE + 80)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed).slice(0, MAX_LABELS)) {
    const key = bounded(k, 64);
    const val = typeof v === "string" ? bounded(v) : null;
    if (key && val) out[key] = val;
  }
  return Object.keys(out).length > 0 ? out : null;
}

export function replayLabels(env: Record<string, string | undefined>): ReplayLabels {
  return {
    experimentId: bounded(env.TAPEDECK_EXPERIMENT_ID, 128),
    nativeMemory: onOff(env.TAPEDECK_NATIVE_MEMORY),
    retrieval: onOff(env.TAPEDECK_RETRIEVAL),
    labels: labels(env.TAPEDECK_ARM_LABELS),
  };
}
