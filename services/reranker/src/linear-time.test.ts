// The built-in reranker's scoring takes time linear in the query and passage lengths.
import { test } from "node:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertLinearGrowthForAll, pathologicalTexts, repeatTo } from "@context-hub/common/testing";
import { loadWordVectors } from "@context-hub/text";
import { scoreRelevance } from "./relevance.js";

const vectors = await loadWordVectors(
  process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache"),
);

// Unknown tokens' vectors are cached: a fresh first token per run makes every run pay for its tokens, as a new passage does.
let run = 0;
const fresh = (text: string) => `${run++}${text}`;

test("scoreRelevance is linear in the passages' length", () => {
  assertLinearGrowthForAll(
    "scoreRelevance over one long passage",
    (text) => scoreRelevance("slow query index", [fresh(text)], vectors),
    pathologicalTexts,
  );
  assertLinearGrowthForAll(
    "scoreRelevance over ten passages",
    (text) =>
      scoreRelevance(
        "slow query index",
        Array.from({ length: 10 }, () => fresh(text.slice(0, text.length / 10))),
        vectors,
      ),
    pathologicalTexts,
  );
});

test("scoreRelevance is linear in the query's length, also when the query almost matches everywhere", () => {
  assertLinearGrowthForAll(
    "scoreRelevance of a long query",
    (text) => scoreRelevance(fresh(text), ["slow queries need an index", "a a a a b"], vectors),
    pathologicalTexts,
  );
  assertLinearGrowthForAll(
    "scoreRelevance of a near-repeat query",
    (text) => scoreRelevance(`${text} c`, [`${text} b`], vectors),
    [{ name: "repeated word", generate: (length) => repeatTo("a ", length) }],
  );
});
