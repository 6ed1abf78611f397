// The store's own handling of caller text takes time linear in its length, on the inputs that make naive code quadratic.
// (Screening written text for instructions has its own checks beside instruction-screen.ts.)
import { test } from "node:test";
import { assertLinearGrowthForAll, pathologicalTexts } from "@context-hub/common/testing";
import { grepText } from "./grep-text.js";
import { toIdQuery } from "../model/id-query.js";
import { buildOutline, resolveRange, toLineStarts } from "./navigation.js";
import { findPassage, toQueryStems } from "./passages.js";
import { toPreview } from "../model/preview.js";
import { parseHeadline, toLexemeQuery, toQueryWords, validateFullTextQuery } from "./text-search.js";

const refusalOrResult = (run: () => unknown) => () => {
  try {
    return run();
  } catch (error) {
    return error;
  }
};

test("grep reports matches with context lines in linear time", () => {
  for (const pattern of [/x/gu, /^/gmu, /\s/g]) {
    assertLinearGrowthForAll(`grepText ${String(pattern)}`, (text) => grepText(text, pattern, { mode: "content", contextLines: 5, maxMatches: 100 }), pathologicalTexts);
    assertLinearGrowthForAll(`grepText ${String(pattern)} counting`, (text) => grepText(text, pattern, { mode: "count", contextLines: 0, maxMatches: 0 }), pathologicalTexts);
  }
});

test("previews, passages, outlines and ranges are linear", () => {
  assertLinearGrowthForAll("toPreview", toPreview, pathologicalTexts);
  assertLinearGrowthForAll("findPassage", (text) => findPassage(text, "slow index query", 400), pathologicalTexts);
  assertLinearGrowthForAll("findPassage of a query as long as the text", (text) => findPassage(text, text, 400), pathologicalTexts);
  assertLinearGrowthForAll("toQueryStems", toQueryStems, pathologicalTexts);
  assertLinearGrowthForAll("buildOutline", (text) => buildOutline(text, []), pathologicalTexts);
  assertLinearGrowthForAll("toLineStarts", toLineStarts, pathologicalTexts);
  assertLinearGrowthForAll("resolveRange by lines", (text) => resolveRange(text, { kind: "lines", start: 1, end: 1_000_000 }, 100_000), pathologicalTexts);
  assertLinearGrowthForAll("resolveRange by node", (text) => refusalOrResult(() => resolveRange(text, { kind: "node", nodeId: "x" }, 100_000))(), pathologicalTexts);
});

test("query parsing is linear, also far past the query length limit", () => {
  assertLinearGrowthForAll("validateFullTextQuery", (text) => refusalOrResult(() => validateFullTextQuery(text))(), pathologicalTexts);
  assertLinearGrowthForAll("toQueryWords", toQueryWords, pathologicalTexts);
  assertLinearGrowthForAll("toLexemeQuery", (text) => toLexemeQuery(text, "prefix"), pathologicalTexts);
  assertLinearGrowthForAll("parseHeadline", parseHeadline, pathologicalTexts);
  assertLinearGrowthForAll("toIdQuery", (text) => refusalOrResult(() => toIdQuery(text, "ids[0]"))(), pathologicalTexts);
});
