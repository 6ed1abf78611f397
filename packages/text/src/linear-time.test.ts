// Every text function that reads caller text takes time linear in its length, on the inputs that make naive code quadratic.
import { test } from "node:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertLinearGrowthForAll, headingTexts, pathologicalTexts } from "@context-hub/common/testing";
import { chunkText } from "./chunker.js";
import { answerExtractively } from "./extractive-answer.js";
import { embedText } from "./embedding.js";
import { parseOutline, slugify, toProseBlocks } from "./markdown.js";
import { stripInlineMarkdown } from "./markdown-inline.js";
import { splitSentences } from "./sentences.js";
import { splitIdentifier, tokenize, toStem } from "./tokenizer.js";
import { loadWordVectors } from "./word-vector-cache.js";

test("splitSentences is linear", () => {
  assertLinearGrowthForAll("splitSentences", splitSentences, pathologicalTexts);
});

test("parseOutline is linear", () => {
  assertLinearGrowthForAll("parseOutline", parseOutline, pathologicalTexts);
});

test("toProseBlocks is linear", () => {
  assertLinearGrowthForAll("toProseBlocks", toProseBlocks, pathologicalTexts);
});

test("stripInlineMarkdown is linear", () => {
  assertLinearGrowthForAll("stripInlineMarkdown", stripInlineMarkdown, pathologicalTexts);
});

test("slugify is linear", () => {
  assertLinearGrowthForAll("slugify", slugify, pathologicalTexts);
});

test("chunkText is linear", () => {
  assertLinearGrowthForAll("chunkText", (text) => chunkText(text), pathologicalTexts);
});

test("tokenize, splitIdentifier and toStem are linear", () => {
  assertLinearGrowthForAll("tokenize", (text) => tokenize(text), pathologicalTexts);
  assertLinearGrowthForAll("splitIdentifier", splitIdentifier, pathologicalTexts);
  assertLinearGrowthForAll("toStem", toStem, pathologicalTexts);
});

test("embedText is linear", async () => {
  const vectors = await loadWordVectors(
    process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache"),
  );
  // Unknown tokens' vectors are cached: a fresh prefix per run makes every run pay for its tokens, as a new text does.
  let run = 0;
  assertLinearGrowthForAll("embedText", (text) => embedText(`${run++}${text}`, vectors), pathologicalTexts);
});

test("outlines, prose, stripping, slugs, sentences, chunks and tokens are linear in the number, length and nesting of headings", () => {
  assertLinearGrowthForAll("parseOutline", parseOutline, headingTexts);
  assertLinearGrowthForAll("toProseBlocks", toProseBlocks, headingTexts);
  assertLinearGrowthForAll("stripInlineMarkdown", stripInlineMarkdown, headingTexts);
  assertLinearGrowthForAll("slugify", slugify, headingTexts);
  assertLinearGrowthForAll("splitSentences", splitSentences, headingTexts);
  assertLinearGrowthForAll("chunkText", (text) => chunkText(text), headingTexts);
  assertLinearGrowthForAll("tokenize", (text) => tokenize(text), headingTexts);
});

test("embedText is linear on heading-heavy texts, whose numbered and long headings are full of words seen once", async () => {
  const vectors = await loadWordVectors(
    process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache"),
  );
  // Term vectors are cached per word-vector object: a fresh copy per run pays for every term, as a new text's words do.
  // (A shared cache would make the repeated smaller runs free and the largest, past the cache's size, not.)
  assertLinearGrowthForAll(
    "embedText",
    (text) => embedText(text, { ...vectors }, { lexicalDimensions: 156 }),
    headingTexts,
  );
});

test("answerExtractively is linear in its evidence", () => {
  // The evidence split in passages as the reason tool sends it, with a question whose words recur everywhere.
  const answer = (text: string) => {
    const passages = [text.slice(0, text.length / 2), text.slice(text.length / 2)];
    return answerExtractively("a e x the data in", passages, { maxStatements: 10 });
  };
  assertLinearGrowthForAll("answerExtractively", answer, pathologicalTexts);
});
