import { test } from "node:test";
import { assertLinearGrowthForAll, markerTexts, pathologicalTexts } from "@context-hub/common/testing";
import { screenEntry } from "./instruction-screen.js";

test("the instruction screen takes time linear in the entry, on every pathological input in text, metadata and tags", () => {
  assertLinearGrowthForAll(
    "screenEntry",
    (text) => screenEntry({ text, metadata: { note: text.slice(0, 1000) }, tags: [text.slice(0, 200)] }),
    [...pathologicalTexts, ...markerTexts],
  );
});
