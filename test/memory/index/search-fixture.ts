// Two recorded sessions in two providers, indexed by the tests of search: what search.test.ts and the soak
// tier's locked-index test both start from.
import { join } from "node:path";
import { recordEvents } from "../../../src/core/archive/session-store.ts";
import { parseQuery } from "../../../src/memory/index/query.ts";
import { type SearchFilters, searchProject } from "../../../src/memory/index/search.ts";
import { event, identity, spec } from "../../helpers/session.ts";

export function seed(root: string): void {
  const at = (t: string) => () => t;
  recordEvents(
    spec(root, { identity: identity("alpha-1") }),
    [
      event("user_prompt", "a", { prompt: "deploy the staging server" }),
      event("assistant_message", "b", { text: "Deployed staging." }),
    ],
    at("2026-01-01T10:00:00.000Z"),
  );
  recordEvents(
    spec(root, {
      identity: identity("beta-2", "codex"),
      sessionRoot: join(root, ".tapedeck", "codex-sessions"),
    }),
    [event("user_prompt", "a", { prompt: "deploy production now" })],
    at("2026-06-01T10:00:00.000Z"),
  );
}

export function search(root: string, text: string, filters: SearchFilters = {}, limit = 20) {
  return searchProject(root, parseQuery(text), filters, limit);
}
