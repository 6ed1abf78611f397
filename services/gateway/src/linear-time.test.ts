// The gateway's own handling of stored text takes time linear in its length.
import { test } from "node:test";
import { assertLinearGrowthForAll, pathologicalTexts } from "@context-hub/common/testing";
import { entryTitle } from "./entry-titles.js";

test("entryTitle is linear in the entry's text", () => {
  assertLinearGrowthForAll("entryTitle", (text) => entryTitle({ text, preview: "", threadId: "t" }), pathologicalTexts);
});
