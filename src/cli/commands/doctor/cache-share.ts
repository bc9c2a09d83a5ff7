// A new agent CLI version whose cache-read share of input fell by more than half on this project (the usage
// cache's cells, src/usage/version-share.ts): a prompt-cache regression costs input at full price, and no
// report of the agent's own says so.
import { USAGE_FACTS } from "../../../providers/usage-facts.ts";
import { collectProject } from "../../../usage/cache.ts";
import { dropText, versionShares } from "../../../usage/version-share.ts";
import { providerName } from "../../providers.ts";
import { check, type DoctorCheck } from "./check.ts";

/** A warning per provider with a drop, by provider; none for most projects. */
export function checkCacheShare(project: string): Map<string, DoctorCheck> {
  const out = new Map<string, DoctorCheck>();
  let drops: ReturnType<typeof versionShares>["drops"];
  try {
    drops = versionShares(collectProject(project, { facts: USAGE_FACTS }).sessions).drops;
  } catch {
    return out; // derived figures: a doctor never fails on them
  }
  for (const d of drops) {
    const prior = out.get(d.provider);
    const text = dropText(d, providerName(d.provider));
    out.set(
      d.provider,
      prior
        ? { ...prior, message: `${prior.message}; ${text}` }
        : check("cache reads", "warn", text, [
            `tapedeck usage daily --breakdown version --provider ${d.provider}`,
          ]),
    );
  }
  return out;
}
