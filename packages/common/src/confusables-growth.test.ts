import { test } from "node:test";
import { assertLinearGrowth, pathologicalTexts } from "./testing/index.js";
import { toConfusableSkeleton } from "./confusables.js";

// Linear time on hostile input: a tenfold longer text of each pathological kind takes at most ~30× as long (quadratic is 100×).
for (const family of pathologicalTexts) {
  test(`the confusable skeleton is linear on ${family.name}`, () => {
    assertLinearGrowth(toConfusableSkeleton, family);
  });
}
