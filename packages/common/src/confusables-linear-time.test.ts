import { test } from "node:test";
import { assertLinearGrowthForAll, markerTexts, pathologicalTexts } from "./testing/index.js";
import { toConfusableSkeleton } from "./confusables.js";

test("the confusable skeleton takes time linear in its text, on every pathological input", () => {
  assertLinearGrowthForAll("toConfusableSkeleton", toConfusableSkeleton, [...pathologicalTexts, ...markerTexts]);
});
