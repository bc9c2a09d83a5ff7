// `memory search` finds an item by the label of its set (`promote --title`), which the word index does not
// hold (issue 41, item 9): before, a promotion titled "Deploy notes" could not be searched by that title.
import { afterEach, describe, expect, it } from "vitest";
import { openMemory } from "../../../src/memory/store/store.ts";
import { itemMaker, storeMemory } from "../../helpers/memory-item.ts";
import { useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-search-label-");
const item = itemMaker({ seq_to: (n) => n });
const opened: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

describe("memory search", () => {
  it("finds an item by its set's label, after the items whose words match", () => {
    const labelled = { ...item("Rotation", "The key rotates on Fridays."), label: "Deploy notes" };
    const worded = item("Deploy script", "npm run deploy from main.");
    const root = storeMemory(project(), [labelled, worded, item("Lint", "biome formats.")]);
    const store = openMemory(root, { readonly: true })!;
    opened.push(store);
    expect(store.search("deploy notes", { limit: 10 }).map((h) => h.id)).toEqual([labelled.id]);
    expect(store.search("deploy", { limit: 10 }).map((h) => h.id)).toEqual([worded.id, labelled.id]);
    expect(store.search("notes", { limit: 10 })[0]!.snippet).toContain("Deploy notes");
  });
});
