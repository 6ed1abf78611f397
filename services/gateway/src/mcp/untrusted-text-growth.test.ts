import { test } from "node:test";
import { assertLinearGrowth, pathologicalTexts } from "@context-hub/common/testing";
import { neutraliseMarkers, renderForModel } from "./untrusted-text.js";

const id = "0190a3b4-1111-7000-8000-000000000001";

// Linear time on hostile input: a tenfold longer text of each pathological kind takes at most ~30× as long (quadratic is 100×).
for (const family of pathologicalTexts) {
  test(`marker neutralisation is linear on ${family.name}`, () => {
    assertLinearGrowth(neutraliseMarkers, family);
  });
}

test("fencing a whole result is linear in the stored text", () => {
  const family = pathologicalTexts.find((candidate) => candidate.name === "unfinished look-alike markers")!;
  assertLinearGrowth((text) => renderForModel({ entries: [{ id, source: "user", text, summary: text.slice(0, 2000), tags: [text.slice(0, 100)] }] }), family);
});
