import { test } from "node:test";
import {
  assertLinearGrowth,
  assertLinearGrowthForAll,
  markerTexts,
  pathologicalTexts,
} from "@context-hub/common/testing";
import { neutraliseMarkers, renderForModel } from "./untrusted-text.js";

const id = "0190a3b4-1111-7000-8000-000000000001";

test("marker neutralisation takes time linear in its text, on every pathological input", () => {
  assertLinearGrowthForAll("neutraliseMarkers", neutraliseMarkers, [...pathologicalTexts, ...markerTexts]);
});

test("fencing a whole result takes time linear in the stored text", () => {
  const family = markerTexts.find((candidate) => candidate.name === "unfinished look-alike markers")!;
  assertLinearGrowth(
    "renderForModel",
    (text) =>
      renderForModel({
        entries: [{ id, source: "user", text, summary: text.slice(0, 2000), tags: [text.slice(0, 100)] }],
      }),
    family.generate,
  );
});
