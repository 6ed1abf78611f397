import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { isContextHubError } from "@context-hub/common";
import { rerankerV1, searchV1, storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import type { Peers } from "./peers.js";
import { createSearchClient } from "./search-client.js";

const principal: Principal = { tenant: "acme", subject: "a1", groups: [], scopes: ["context:read"] };

/** Peers whose search and reranker answer with fixed replies and record what they were asked, and with what options. */
function peersAnswering(replies: {
  fullText?: searchV1.FullTextSearchResponse;
  passages?: searchV1.GetPassagesResponse;
  rerank?: rerankerV1.RerankResponse;
}) {
  const asked: { method: string; request: Record<string, unknown>; options?: unknown }[] = [];
  const peers = {
    search: {
      fullTextSearch: async (request: Record<string, unknown>) => {
        asked.push({ method: "fullTextSearch", request });
        return replies.fullText ?? create(searchV1.FullTextSearchResponseSchema);
      },
      getPassages: async (request: Record<string, unknown>) => {
        asked.push({ method: "getPassages", request });
        return replies.passages ?? create(searchV1.GetPassagesResponseSchema);
      },
    },
    reranker: {
      rerank: async (request: Record<string, unknown>, options: unknown) => {
        asked.push({ method: "rerank", request, options });
        return replies.rerank ?? create(rerankerV1.RerankResponseSchema);
      },
    },
  } as unknown as Peers;
  return { client: createSearchClient(peers), asked };
}

test("a full-text request reaches the store in its mode, filters and feedback, and its reply comes back as plain hits", async () => {
  const { client, asked } = peersAnswering({
    fullText: create(searchV1.FullTextSearchResponseSchema, {
      hits: [
        {
          entryId: "e1",
          entry: { id: "e1", threadId: "t1", preview: "wing lift", trustState: storeV1.TrustState.VERIFIED },
          rank: 1,
          score: 2.5,
          highlights: [{ text: "wing **lift**", matches: [{ start: 5, end: 9 }] }],
        },
      ],
      hasMore: true,
      language: "english",
      feedbackDocuments: 3,
      expansionTerms: [{ term: "camber", weight: 0.4 }],
    }),
  });
  const result = await client.fullText(principal, {
    query: "lift",
    mode: "phrase",
    filter: { as_of: "2026-01-31T12:00:00Z", include_quarantined: true, tags: ["aero"] },
    limit: 10,
    offset: 20,
    highlight: true,
    feedback: { documents: 5, terms: 7 },
  });
  const request = asked[0]!.request as {
    mode: searchV1.FullTextMode;
    language: string;
    filter: { asOf: Parameters<typeof timestampDate>[0]; includeQuarantined: boolean; tagsAny: string[] };
    feedback: { documents: number; terms: number; queryWeight?: number };
  };
  assert.equal(request.mode, searchV1.FullTextMode.PHRASE);
  assert.equal(request.language, "", "no language: the store's own");
  assert.equal(timestampDate(request.filter.asOf).toISOString(), "2026-01-31T12:00:00.000Z");
  assert.deepEqual([request.filter.includeQuarantined, request.filter.tagsAny], [true, ["aero"]]);
  assert.deepEqual([request.feedback.documents, request.feedback.terms], [5, 7]);
  assert.ok(!("queryWeight" in request.feedback), "a query weight left out lets the store choose");

  assert.deepEqual(
    { ...result, hits: result.hits.map(({ entry: _entry, ...hit }) => hit) },
    {
      hits: [
        {
          entryId: "e1",
          rank: 1,
          score: 2.5,
          chunk: undefined,
          highlights: [{ text: "wing **lift**", matches: [{ start: 5, end: 9 }] }],
        },
      ],
      hasMore: true,
      language: "english",
      warnings: [],
      feedback: { documents: 3, terms: [{ term: "camber", weight: 0.4 }] },
    },
  );
  const listing = result.hits[0]!.entry!.listing();
  assert.deepEqual(
    [listing.id, listing.thread_id, listing.preview, listing.trust_state],
    ["e1", "t1", "wing lift", "verified"],
  );

  await client.fullText(principal, {
    query: "lift",
    mode: "any",
    filter: {},
    limit: 1,
    offset: 0,
    feedback: { queryWeight: 1 },
  });
  assert.equal((asked[1]!.request as { feedback: { queryWeight: number } }).feedback.queryWeight, 1);
  assert.equal((asked[1]!.request as { mode: searchV1.FullTextMode }).mode, searchV1.FullTextMode.ANY);
});

test("a hit's listing is built only when it is shown: a trust state this build does not know fails the listing, not the search", async () => {
  const { client } = peersAnswering({
    fullText: create(searchV1.FullTextSearchResponseSchema, {
      hits: [{ entryId: "e1", entry: { id: "e1", trustState: 42 as storeV1.TrustState }, rank: 1, score: 1 }],
    }),
  });
  const result = await client.fullText(principal, { query: "q", mode: "match", filter: {}, limit: 1, offset: 0 });
  assert.equal(result.hits[0]!.entry!.id, "e1");
  assert.throws(
    () => result.hits[0]!.entry!.listing(),
    (error: unknown) => isContextHubError(error) && /trust_state 42 is not a known trust state/.test(error.message),
  );
});

test("passages carry a span only where one is given, and the reranker is asked for every passage under the deadline", async () => {
  const { client, asked } = peersAnswering({
    passages: create(searchV1.GetPassagesResponseSchema, {
      passages: [{ entryId: "e1", text: "p1", span: { start: 3, end: 5 }, nodeId: "setup" }],
    }),
    rerank: create(rerankerV1.RerankResponseSchema, {
      results: [
        { id: "e2", score: 0.9 },
        { id: "e1", score: 0.2 },
      ],
    }),
  });
  const passages = await client.passages(principal, {
    query: "q",
    items: [{ entryId: "e1", span: { start: 3, end: 8 } }, { entryId: "e2" }],
    maxChars: 1_200,
  });
  assert.deepEqual(passages, [{ entryId: "e1", text: "p1", span: { start: 3, end: 5 }, nodeId: "setup" }]);
  assert.equal((asked[0]!.request as { perItem: number }).perItem, 0, "one passage per item unless asked for more");
  assert.deepEqual((asked[0]!.request as { items: unknown[] }).items, [
    { entryId: "e1", span: { start: 3, end: 8 } },
    { entryId: "e2" },
  ]);
  const scores = await client.rerank("q", [{ id: "e1", text: "p1" }], 1_234);
  assert.deepEqual(scores, [
    { id: "e2", score: 0.9 },
    { id: "e1", score: 0.2 },
  ]);
  assert.deepEqual(asked[1], {
    method: "rerank",
    request: { query: "q", passages: [{ id: "e1", text: "p1" }], topN: 0 },
    options: { deadlineMs: 1_234 },
  });
});
