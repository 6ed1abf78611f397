import { test } from "node:test";
import { assertLinearGrowth, pathologicalTexts } from "@context-hub/common/testing";
import { screenEntry } from "./instruction-screen.js";

// Linear time on hostile input: a tenfold longer text of each pathological kind takes at most ~30× as long (quadratic is 100×).
for (const family of pathologicalTexts) {
  test(`the instruction screen is linear on ${family.name}`, () => {
    assertLinearGrowth((text) => screenEntry({ text, metadata: { note: text.slice(0, 1000) }, tags: [text.slice(0, 200)] }), family);
  });
}
