// The store's own handling of caller text takes time linear in its length, on the inputs that make naive code quadratic.
// (Screening written text for instructions has its own checks beside instruction-screen.ts.)
import { test } from "node:test";
import { assertLinearGrowthForAll, headingTexts, pathologicalTexts, resultOrError } from "@context-hub/common/testing";
import { parseOutline } from "@context-hub/text";
import { grepText } from "./grep-text.js";
import { toIdQuery } from "../model/id-query.js";
import { buildOutline, resolveRange, toLineStarts } from "./navigation.js";
import { moveInOutline } from "./outline-moves.js";
import { findPassage, findPassages, outlineNodeFinder, toQueryStems } from "./passages.js";
import { toPreview } from "../model/preview.js";
import { parseHeadline, toLexemeQuery, toQueryWords, validateFullTextQuery } from "./text-search.js";

const refusalOrResult = (run: () => unknown) => () => resultOrError(run);

test("grep reports matches with context lines in linear time", () => {
  for (const pattern of [/x/gu, /^/gmu, /\s/g]) {
    assertLinearGrowthForAll(
      `grepText ${String(pattern)}`,
      (text) => grepText(text, pattern, { mode: "content", contextLines: 5, maxMatches: 100 }),
      pathologicalTexts,
    );
    assertLinearGrowthForAll(
      `grepText ${String(pattern)} counting`,
      (text) => grepText(text, pattern, { mode: "count", contextLines: 0, maxMatches: 0 }),
      pathologicalTexts,
    );
  }
});

test("previews, passages, outlines and ranges are linear", () => {
  assertLinearGrowthForAll("toPreview", toPreview, pathologicalTexts);
  assertLinearGrowthForAll("findPassage", (text) => findPassage(text, "slow index query", 400), pathologicalTexts);
  assertLinearGrowthForAll(
    "findPassage of a query as long as the text",
    (text) => findPassage(text, text, 400),
    pathologicalTexts,
  );
  assertLinearGrowthForAll(
    "findPassages, five per text",
    (text) => findPassages(text, "slow index query", 400, 5),
    pathologicalTexts,
  );
  assertLinearGrowthForAll(
    "findPassages of a query as long as the text",
    (text) => findPassages(text, text, 400, 5),
    pathologicalTexts,
  );
  assertLinearGrowthForAll("outlineNodeFinder", (text) => outlineNodeFinder(text, text.length)(text.length - 1), [
    ...pathologicalTexts,
    ...headingTexts,
  ]);
  assertLinearGrowthForAll("toQueryStems", toQueryStems, pathologicalTexts);
  assertLinearGrowthForAll("buildOutline", (text) => buildOutline(text, []), pathologicalTexts);
  assertLinearGrowthForAll("toLineStarts", toLineStarts, pathologicalTexts);
  assertLinearGrowthForAll(
    "resolveRange by lines",
    (text) => resolveRange(text, { kind: "lines", start: 1, end: 1_000_000 }, 100_000),
    pathologicalTexts,
  );
  assertLinearGrowthForAll(
    "resolveRange by node",
    (text) => refusalOrResult(() => resolveRange(text, { kind: "node", nodeId: "x" }, 100_000))(),
    pathologicalTexts,
  );
});

test("query parsing is linear, also far past the query length limit", () => {
  assertLinearGrowthForAll(
    "validateFullTextQuery",
    (text) => refusalOrResult(() => validateFullTextQuery(text))(),
    pathologicalTexts,
  );
  assertLinearGrowthForAll("toQueryWords", toQueryWords, pathologicalTexts);
  assertLinearGrowthForAll("toLexemeQuery", (text) => toLexemeQuery(text, "prefix"), pathologicalTexts);
  assertLinearGrowthForAll("parseHeadline", parseHeadline, pathologicalTexts);
  assertLinearGrowthForAll(
    "toIdQuery",
    (text) => refusalOrResult(() => toIdQuery(text, "ids[0]"))(),
    pathologicalTexts,
  );
});

test("outlines and node ranges are linear in the number, length and nesting of headings", () => {
  const page = { offset: 0, maxNodes: 200, maxBytes: 256 * 1024 };
  assertLinearGrowthForAll("buildOutline", (text) => buildOutline(text, []), headingTexts);
  // Every node with a stored summary, read a page at a time from the middle, as navigate_context does.
  assertLinearGrowthForAll(
    "buildOutline with summaries, one page",
    (text) => {
      const sections = parseOutline(text);
      const summaries = sections.map((section) => ({
        nodeId: section.nodeId,
        heading: section.heading,
        level: section.level,
        span: { start: section.start, end: section.end },
        summary: "A summary.",
      }));
      return buildOutline(text, summaries, 0, { ...page, offset: Math.floor(sections.length / 2) });
    },
    headingTexts,
  );
  assertLinearGrowthForAll("buildOutline to depth 2", (text) => buildOutline(text, [], 2, page), headingTexts);
  // From the middle node, where a text of many same-level headings gives it the most siblings to page through.
  for (const move of ["siblings", "next", "parent"] as const)
    assertLinearGrowthForAll(
      `moveInOutline ${move}, one page`,
      (text) => {
        const sections = parseOutline(text);
        const middle = sections[Math.floor(sections.length / 2)];
        return middle === undefined ? undefined : moveInOutline(text, [], { nodeId: middle.nodeId, move }, page);
      },
      headingTexts,
    );
  assertLinearGrowthForAll(
    "resolveRange of the last node",
    (text) => {
      const last = parseOutline(text).at(-1);
      return last === undefined ? undefined : resolveRange(text, { kind: "node", nodeId: last.nodeId }, 100_000);
    },
    headingTexts,
  );
});
