// What Antigravity's token figures mean (core/read/usage-facts.ts): there are none (docs/antigravity.md).
import { PLAIN_USAGE_FACTS, type UsageFacts } from "../../core/read/usage-facts.ts";

export const antigravityUsageFacts: UsageFacts = {
  ...PLAIN_USAGE_FACTS,
  records_usage: false,
  gaps: [{ text: "its hooks carry no token counts: its sessions' usage is unknown" }],
};
