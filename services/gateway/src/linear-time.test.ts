// The gateway's own handling of stored text and of request headers takes time linear in its length.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertLinearGrowthForAll,
  framedRun,
  headingTexts,
  markerTexts,
  pathologicalTexts,
  repeatTo,
  resultOrError,
  type TextGenerator,
} from "@context-hub/common/testing";
import { presentedCredential } from "./auth/authenticate.js";
import { entryTitle } from "./entry-titles.js";
import { findQuote } from "./search/cited-answer.js";
import { isPublishableUri } from "./mcp/published-resources.js";
import { parseResourceUri } from "./mcp/resources.js";
import { estimateTokens } from "./workflow/start-budget.js";

test("entryTitle is linear in the entry's text", () => {
  assertLinearGrowthForAll("entryTitle", (text) => entryTitle({ text, preview: "", threadId: "t" }), [
    ...pathologicalTexts,
    ...headingTexts,
  ]);
});

test("start_here's token estimate is linear in the text it counts (stored values, summaries and events)", () => {
  assertLinearGrowthForAll("estimateTokens", estimateTokens, [
    ...pathologicalTexts,
    ...markerTexts,
    { name: "a run of hex digits", generate: (length) => repeatTo("0123456789abcdef", length) },
    { name: "UUID-like runs", generate: (length) => repeatTo("01234567-89ab-cdef-0123-", length) },
    { name: "spaces then a newline", generate: (length) => framedRun("", " ", "\n", length) },
  ]);
});

/**
 * Authorization headers an unauthenticated caller can send: runs of spaces and tabs where the scheme, the gap or the
 * token should be, a scheme followed by spaces and no token, a token followed by spaces and a second word, many
 * scheme-token pairs, and schemes cut short. Node's HTTP parser bounds a real header far below these lengths; the
 * parsing itself must not depend on that.
 */
const authorizationHeaders: readonly TextGenerator[] = [
  { name: "spaces", generate: (length) => repeatTo(" ", length) },
  { name: "Bearer then spaces and no token", generate: (length) => framedRun("Bearer", " ", "", length) },
  { name: "API-Key then tabs and no token", generate: (length) => framedRun("API-Key", "\t", "", length) },
  {
    name: "Bearer, spaces, a token, spaces, a second word",
    generate: (length) =>
      `Bearer ${framedRun("", " ", "", Math.floor(length / 2) - 7)}x${framedRun("", " ", "y", length - Math.floor(length / 2) - 1)}`,
  },
  { name: "Bearer then words and spaces", generate: (length) => framedRun("Bearer", " x", "", length) },
  { name: "Bearer repeated", generate: (length) => repeatTo("Bearer ", length) },
  { name: "a scheme cut short, repeated", generate: (length) => repeatTo("API-Ke", length) },
  { name: "one token as long as the header", generate: (length) => framedRun("Bearer ", "k", "", length) },
  { name: "spaces then a token", generate: (length) => framedRun("Bearer", " ", "chk_x", length) },
  ...pathologicalTexts,
];

test("reading the Authorization header is linear in its length, whatever it holds", () => {
  assertLinearGrowthForAll(
    "presentedCredential",
    (authorization) => presentedCredential({ authorization, apiKey: undefined }),
    authorizationHeaders,
  );
  assertLinearGrowthForAll(
    "presentedCredential of X-API-Key",
    (apiKey) => presentedCredential({ authorization: undefined, apiKey }),
    authorizationHeaders,
  );
});

test("the hostile headers are read as the scheme says", () => {
  const header = (name: string) =>
    (authorizationHeaders.find((generator) => generator.name === name) as TextGenerator).generate(10_000);
  assert.equal(
    presentedCredential({ authorization: header("Bearer then spaces and no token"), apiKey: undefined }),
    "",
  );
  assert.equal(
    presentedCredential({ authorization: header("Bearer, spaces, a token, spaces, a second word"), apiKey: undefined }),
    "",
  );
  assert.equal(
    presentedCredential({ authorization: header("one token as long as the header"), apiKey: undefined }),
    "k".repeat(10_000 - 7),
  );
  assert.equal(presentedCredential({ authorization: header("spaces then a token"), apiKey: undefined }), "chk_x");
});

test("a citation's quote is looked for in its passage in time linear in the passage", () => {
  // A quote that is nearly everywhere and found nowhere, and one found at the very end.
  assertLinearGrowthForAll("findQuote (absent)", (text) => findQuote(text, "a a a a a a a a a a a a a a b"), [
    ...pathologicalTexts,
    { name: "runs of a and spaces", generate: (length) => repeatTo("a ", length) },
  ]);
  assertLinearGrowthForAll("findQuote (at the end)", (text) => findQuote(`${text} the end.`, "the end"), [
    ...pathologicalTexts,
    ...markerTexts,
  ]);
});

test("a quote's wrapping (spaces, quotation marks, dots) is trimmed in time linear in the quote", () => {
  assertLinearGrowthForAll("findQuote (a long quote)", (quote) => findQuote("the end.", quote), [
    ...pathologicalTexts,
    ...markerTexts,
  ]);
});

test("resources/read parses a URI in time linear in its length, whatever follows the entries root", () => {
  const root = "context-hub://entries/";
  const id = "01900000-0000-7000-8000-00000000abcd";
  assertLinearGrowthForAll("parseResourceUri", (uri) => resultOrError(() => parseResourceUri(uri)), [
    ...pathologicalTexts.map((generator) => ({
      name: `the root, then ${generator.name}`,
      generate: (length: number) => `${root}${generator.generate(Math.max(0, length - root.length))}`,
    })),
    {
      name: "an id, then a run of hex digits",
      generate: (length) => framedRun(`${root}${id}/artifacts/`, "ab", "", length),
    },
    {
      name: "an id, then a run of digits",
      generate: (length) => framedRun(`${root}${id}/versions/`, "9", "", length),
    },
    { name: "slashes after the root", generate: (length) => framedRun(root, "/artifacts", "", length) },
  ]);
  // Any other URI is looked up among the caller's publications once its scheme is read.
  assertLinearGrowthForAll("isPublishableUri", isPublishableUri, [
    ...pathologicalTexts,
    { name: "a scheme that never ends", generate: (length) => repeatTo("a+.-", length) },
  ]);
});
