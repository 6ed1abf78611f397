import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ContextHubError, vectorToBytes } from "@context-hub/common";
import { embedderV1, rerankerV1, searchV1, storeV1 } from "@context-hub/proto";
import type { Peers } from "../clients/peers.js";
import { createSearchClient } from "../clients/search-client.js";
import type { Principal } from "../principal.js";
import { feedbackEntries, hybridFeedback } from "./hybrid-feedback.js";
import { runHybridSearch, type HybridSearchRequest } from "./hybrid-search.js";

const principal: Principal = { tenant: "t", subject: "s", groups: [], scopes: ["context:read"] };
const entry = (id: string) => create(storeV1.EntrySchema, { id, preview: `entry ${id}` });
/** A leg's hits as the store returns them: with listings, or ids and scores only when the request said `idsOnly`. */
const hits = (ids: string[], chunk = false, scores?: number[], idsOnly = false) =>
  ids.map((id, index) =>
    create(searchV1.SearchHitSchema, {
      entryId: id,
      ...(idsOnly ? {} : { entry: entry(id) }),
      score: scores?.[index] ?? 1 - index / 10,
      rank: index + 1,
      ...(chunk ? { chunk: { start: 0, end: 5 } } : {}),
    }),
  );

interface FakeOptions {
  /** Full-text results per mode name. */
  fts?: Partial<Record<"MATCH" | "ANY", string[]>> | Error;
  semantic?: string[] | Error;
  /** Reranker order (ids, best first) or a failure. */
  rerank?: string[] | Error;
  /** Each leg's scores, best first (default 1, 0.9, 0.8, …). */
  scores?: { fts?: number[]; semantic?: number[] };
  /** A failure of the listing read. */
  listings?: Error;
  /** The order a feedback re-scoring returns its candidates in (default: as given). */
  rescored?: string[];
}

/** Peers answering from fixed rankings, recording what was asked. */
function fakePeers(options: FakeOptions) {
  const calls = {
    fts: [] as searchV1.FullTextMode[],
    feedback: [] as boolean[],
    rescoring: [] as { relevantIds: string[]; relevantWeights: number[]; withinIds: string[] }[],
    listings: [] as string[][],
    /** The store's and the reranker's calls in the order they were made. */
    order: [] as string[],
    passages: [] as { entryId: string; span?: { start: number; end: number } | undefined }[][],
    rerank: 0,
  };
  const peers = {
    search: {
      async fullTextSearch(request: {
        mode: searchV1.FullTextMode;
        feedback?: { relevantIds?: string[]; relevantWeights?: number[] };
        idsOnly?: boolean;
        withinIds?: string[];
      }) {
        calls.fts.push(request.mode);
        calls.feedback.push(request.feedback !== undefined);
        if (options.fts instanceof Error) throw options.fts;
        const within = request.withinIds ?? [];
        if (within.length > 0) {
          calls.rescoring.push({
            relevantIds: request.feedback?.relevantIds ?? [],
            relevantWeights: request.feedback?.relevantWeights ?? [],
            withinIds: within,
          });
        }
        const ids =
          within.length > 0
            ? (options.rescored ?? within)
            : (options.fts?.[request.mode === searchV1.FullTextMode.ANY ? "ANY" : "MATCH"] ?? []);
        const feedback =
          request.feedback === undefined
            ? {}
            : {
                feedbackDocuments: 2,
                expansionTerms: [
                  { term: "lift", weight: 0.7 },
                  { term: "camber", weight: 0.3 },
                ],
              };
        return create(searchV1.FullTextSearchResponseSchema, {
          hits: hits(ids, false, options.scores?.fts, request.idsOnly === true),
          language: "english",
          ...feedback,
        });
      },
      async semanticSearch(request: { idsOnly?: boolean }) {
        if (options.semantic instanceof Error) throw options.semantic;
        return create(searchV1.SemanticSearchResponseSchema, {
          hits: hits(options.semantic ?? [], true, options.scores?.semantic, request.idsOnly === true),
          strategy: "ann",
        });
      },
      async getListings(request: { ids: string[] }) {
        calls.listings.push(request.ids);
        calls.order.push("listings");
        if (options.listings instanceof Error) throw options.listings;
        // The store leaves out what the caller may no longer see; "gone" stands for such an entry.
        return create(searchV1.GetListingsResponseSchema, {
          entries: request.ids.filter((id) => id !== "gone").map(entry),
        });
      },
      async getPassages(request: { items: { entryId: string; span?: { start: number; end: number } }[] }) {
        calls.passages.push(request.items);
        return create(searchV1.GetPassagesResponseSchema, {
          passages: request.items.map((item) => ({ entryId: item.entryId, text: `passage ${item.entryId}` })),
        });
      },
    },
    embedder: {
      async embedQueries() {
        if (options.semantic instanceof Error) throw options.semantic;
        return create(embedderV1.EmbedQueriesResponseSchema, {
          model: "m",
          dimension: 2,
          vectors: [{ float32Le: vectorToBytes([1, 0]) }],
        });
      },
    },
    reranker: {
      async rerank(request: { passages: { id: string }[] }) {
        calls.rerank++;
        calls.order.push("rerank");
        if (options.rerank instanceof Error) throw options.rerank;
        const order = options.rerank ?? request.passages.map((passage) => passage.id);
        return create(rerankerV1.RerankResponseSchema, {
          results: order.map((id, index) => ({ id, index, score: 1 - index / 10 })),
        });
      },
    },
  };
  return { peers: peers as unknown as Peers, calls };
}

const request = (overrides: Partial<HybridSearchRequest> = {}): HybridSearchRequest => ({
  query: "q",
  filter: {},
  limit: 3,
  offset: 0,
  ftsMode: "any",
  fusion: "rrf",
  rrfK: 60,
  weights: { fts: 1, semantic: 1 },
  rerank: false,
  candidates: 100,
  rerankDepth: 50,
  maxDepth: 500,
  ...overrides,
});

describe("hybrid search", () => {
  test("as of an earlier instant only the full-text leg answers, unreranked, and a warning says so", async () => {
    const { peers, calls } = fakePeers({
      fts: { ANY: ["a", "b", "c"] },
      semantic: new Error("the semantic leg must not be asked"),
    });
    const result = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ filter: { as_of: "2023-11-14T22:13:20Z" }, rerank: true }),
    );
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
    assert.deepEqual([calls.passages.length, calls.rerank], [0, 0], "no passages, no reranking");
    assert.deepEqual(result.legs.semantic, { ok: false, candidates: 0 });
    assert.match(result.warnings.join(" "), /vectors are kept for the current version of each entry only/);
    assert.ok(!result.warnings.some((warning) => warning.includes("semantic leg failed")), "skipping is not a failure");
  });

  test("the legs rank ids; the listings of the shown page alone are read, once, and an entry gone since is left out", async () => {
    const { peers, calls } = fakePeers({ fts: { ANY: ["a", "gone", "b", "c", "d"] }, semantic: ["gone", "b"] });
    const result = await runHybridSearch(createSearchClient(peers), principal, request({ limit: 3 }));
    assert.equal(calls.listings.length, 1, "one listing read");
    assert.equal(calls.listings[0]?.length, 3, "for the page only");
    assert.ok(calls.listings[0]?.includes("gone"));
    assert.ok(!result.hits.some((hit) => hit.entry.id === "gone"));
    assert.equal(result.hits.length, 2);
    assert.ok(result.hits.every((hit) => hit.entry.preview === `entry ${hit.entry.id}`));
    assert.ok(result.times.listings !== undefined, "the listing read is a stage of its own");
  });

  test("as of an earlier instant the full-text leg lists the versions current then, and no listing of today is read", async () => {
    const { peers, calls } = fakePeers({ fts: { ANY: ["a", "b"] } });
    const result = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ filter: { as_of: "2023-11-14T22:13:20Z" } }),
    );
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["a", "b"],
    );
    assert.equal(calls.listings.length, 0);
  });

  test("with ftsFeedback the leg's best entries expand the query, which re-scores both legs' candidates, and the words it added are reported", async () => {
    const { peers, calls } = fakePeers({
      fts: { ANY: ["a", "b"] },
      semantic: ["c", "b"],
      scores: { fts: [3, 2] },
      rescored: ["c", "b", "a"],
    });
    const result = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ ftsFeedback: true, weights: { fts: 1, semantic: 0 } }),
    );
    // The leg runs once by the query alone; then one re-scoring call with feedback.
    assert.deepEqual(
      [calls.fts, calls.feedback],
      [
        [searchV1.FullTextMode.ANY, searchV1.FullTextMode.ANY],
        [false, true],
      ],
    );
    assert.deepEqual(calls.rescoring, [
      { relevantIds: ["a", "b"], relevantWeights: [3, 2], withinIds: ["a", "b", "c"] },
    ]);
    // The re-scored ranking is the full-text leg's now: with the semantic leg weighing nothing, its order is the result's.
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["c", "b", "a"],
    );
    assert.equal(result.hits[0]?.scores.fts?.rank, 1);
    assert.ok(result.times.feedback !== undefined, "feedback is a stage of its own");
    assert.deepEqual(result.ftsFeedback, {
      documents: 2,
      terms: [
        { term: "lift", weight: 0.7 },
        { term: "camber", weight: 0.3 },
      ],
    });
    const plain = fakePeers({ fts: { ANY: ["a"] } });
    assert.equal(
      (await runHybridSearch(createSearchClient(plain.peers), principal, request({ ftsFeedback: false }))).ftsFeedback,
      null,
    );
    assert.deepEqual(plain.calls.feedback, [false]);
  });

  test("feedback takes the leg's best entries that the semantic leg corroborates, else the leg's own best", async () => {
    const ranked = (ids: string[]) => ids.map((id, index) => ({ id, score: 100 - index }));
    const fts = ranked(Array.from({ length: 30 }, (_, index) => `f${index}`));
    const { corroborationPool, corroboratingDepth, relevantDocuments } = hybridFeedback;
    // Corroborated: inside the leg's pool and inside the semantic leg's depth. f20 lies past the pool, f5 past the depth.
    const semantic = ranked([
      "f12",
      "s1",
      "f3",
      `f${corroborationPool + 5}`,
      "f1",
      ...Array.from({ length: corroboratingDepth - 5 }, (_, index) => `filler${index}`),
      "f5",
    ]);
    assert.deepEqual(feedbackEntries(fts, semantic), [
      { id: "f1", score: 99 },
      { id: "f3", score: 97 },
      { id: "f12", score: 88 },
    ]);
    // Fewer than the minimum corroborated, or no semantic leg: the leg's own best, as a plain first pass.
    const ownBest = fts.slice(0, relevantDocuments);
    assert.deepEqual(feedbackEntries(fts, ranked(["f1", "f3"])), ownBest);
    assert.deepEqual(feedbackEntries(fts, []), ownBest);
    // Never more than relevantDocuments, the best first.
    assert.deepEqual(feedbackEntries(fts, fts), ownBest);

    const corroborated = fakePeers({
      fts: { ANY: ["a", "b", "c", "d", "e"] },
      semantic: ["e", "x", "c", "a"],
      scores: { fts: [5, 4, 3, 2, 1] },
    });
    await runHybridSearch(
      createSearchClient(corroborated.peers),
      principal,
      request({ ftsFeedback: true, rerank: false }),
    );
    assert.deepEqual(
      corroborated.calls.rescoring.map((call) => [call.relevantIds, call.relevantWeights]),
      [
        [
          ["a", "c", "e"],
          [5, 3, 1],
        ],
      ],
    );
  });

  test("a failed feedback call leaves the legs fused without it, with a warning", async () => {
    const { peers } = fakePeers({ fts: { ANY: ["a", "b"] }, semantic: ["b"] });
    const failing = {
      ...peers,
      search: {
        ...peers.search,
        async fullTextSearch(request: Parameters<Peers["search"]["fullTextSearch"]>[0]) {
          if (request.feedback !== undefined) throw new ContextHubError("STORE_UNAVAILABLE", "store down");
          return peers.search.fullTextSearch(request);
        },
      },
    } as unknown as Peers;
    const result = await runHybridSearch(createSearchClient(failing), principal, request({ ftsFeedback: true }));
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["b", "a"],
    );
    assert.equal(result.ftsFeedback, null);
    assert.match(
      result.warnings.join(" "),
      /feedback on the full-text leg failed, so the legs are fused without it \(STORE_UNAVAILABLE: store down\)/,
    );
  });

  test("fuses both legs by reciprocal rank and reports every leg's rank", async () => {
    const { peers } = fakePeers({ fts: { ANY: ["a", "b", "c"] }, semantic: ["c", "a", "d"] });
    const result = await runHybridSearch(createSearchClient(peers), principal, request({ limit: 4 }));
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["a", "c", "b", "d"],
    );
    const [first] = result.hits;
    assert.deepEqual([first?.scores.fts?.rank, first?.scores.semantic?.rank, first?.rank], [1, 2, 1]);
    assert.deepEqual(result.hits[3]?.scores.fts, null);
    assert.deepEqual(result.hits[1]?.chunk, { start: 0, end: 5 }, "the semantic leg's best chunk is kept");
    assert.equal(result.hasMore, false);
  });

  test("the full-text leg runs once, in the mode asked for, with no second pass", async () => {
    const few = fakePeers({ fts: { MATCH: ["a"], ANY: ["a", "x", "y"] } });
    const result = await runHybridSearch(createSearchClient(few.peers), principal, request());
    assert.deepEqual(few.calls.fts, [searchV1.FullTextMode.ANY]);
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["a", "x", "y"],
    );
    const match = fakePeers({ fts: { MATCH: ["a"], ANY: ["a", "x", "y"] } });
    const precise = await runHybridSearch(createSearchClient(match.peers), principal, request({ ftsMode: "match" }));
    assert.deepEqual(match.calls.fts, [searchV1.FullTextMode.MATCH], "too few every-word hits do not widen the search");
    assert.deepEqual(
      precise.hits.map((hit) => hit.entry.id),
      ["a"],
    );
  });

  test("the reranker reorders the head over passages (best chunk when known); the tail keeps fused order", async () => {
    const { peers, calls } = fakePeers({
      fts: { ANY: ["a", "b", "c", "e"] },
      semantic: ["c"],
      rerank: ["b", "a", "c"],
    });
    const result = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ limit: 4, rerank: true, rerankWeight: 1, rerankDepth: 3 }),
    );
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["b", "a", "c", "e"],
    );
    assert.deepEqual(
      calls.passages[0]?.map((item) => [item.entryId, item.span === undefined ? null : item.span.end]),
      [
        ["c", 5],
        ["a", null],
        ["b", null],
      ],
    );
    assert.deepEqual(result.hits[0]?.scores.rerank, { rank: 1, score: 1 });
    assert.equal(result.hits[3]?.scores.rerank, null);
    assert.deepEqual(result.legs.rerank, { ok: true, reranked: 3 });
  });

  test("the reranked head's listings are read while the reranker scores it: a page within the head costs no read after", async () => {
    const { peers, calls } = fakePeers({ fts: { ANY: ["a", "gone", "b", "c", "e"] }, semantic: ["c"], rerank: ["b"] });
    const result = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ limit: 3, rerank: true, rerankWeight: 1, rerankDepth: 4 }),
    );
    assert.deepEqual(calls.order, ["listings", "rerank"], "the read is asked for before the reranker");
    assert.deepEqual([...(calls.listings[0] ?? [])].sort(), ["a", "b", "c", "gone"], "the head's listings, once");
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["b", "c", "a"],
      "the entry hidden since it was ranked is left out",
    );
    assert.ok(result.hits.every((hit) => hit.entry.preview === `entry ${hit.entry.id}`));
    assert.ok(result.times.listings !== undefined);
  });

  test("a page reaching past the reranked head reads the rest of its listings afterwards", async () => {
    const { peers, calls } = fakePeers({ fts: { ANY: ["a", "b", "c", "d", "e"] } });
    const result = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ limit: 4, rerank: true, rerankDepth: 2 }),
    );
    assert.deepEqual(calls.listings, [
      ["a", "b"],
      ["c", "d"],
    ]);
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["a", "b", "c", "d"],
    );
  });

  test("a listing read that fails fails the search, whether or not the reranker answered", async () => {
    for (const rerank of [undefined, new Error("reranker down")]) {
      const { peers } = fakePeers({ fts: { ANY: ["a", "b"] }, listings: new Error("store down"), rerank });
      await assert.rejects(
        runHybridSearch(createSearchClient(peers), principal, request({ rerank: true })),
        /store down|internal/i,
      );
    }
  });

  test("pages are cut from one ranking", async () => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    const { peers } = fakePeers({ fts: { ANY: ids }, semantic: ids });
    const first = await runHybridSearch(createSearchClient(peers), principal, request({ limit: 3, rerank: true }));
    const second = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ limit: 3, offset: 3, rerank: true }),
    );
    assert.deepEqual(
      [...first.hits, ...second.hits].map((hit) => hit.entry.id),
      ids,
    );
    assert.deepEqual(
      second.hits.map((hit) => hit.rank),
      [4, 5, 6],
    );
    assert.equal(first.hasMore, true);
    assert.equal(second.hasMore, false);
  });

  test("a failed leg degrades with a warning naming it; both failing fails the search", async () => {
    const embedderDown = fakePeers({
      fts: { ANY: ["a", "b", "c"] },
      semantic: new ContextHubError("EMBEDDER_UNAVAILABLE", "embedder is unavailable"),
    });
    const withoutSemantic = await runHybridSearch(createSearchClient(embedderDown.peers), principal, request());
    assert.deepEqual(
      withoutSemantic.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
    assert.deepEqual([withoutSemantic.legs.fts.ok, withoutSemantic.legs.semantic.ok], [true, false]);
    assert.match(
      withoutSemantic.warnings.join(" "),
      /semantic leg failed.* \(EMBEDDER_UNAVAILABLE: embedder is unavailable\)/,
    );

    const rerankerDown = fakePeers({
      fts: { ANY: ["a", "b", "c"] },
      rerank: new ContextHubError("RERANKER_UNAVAILABLE", "reranker is unavailable"),
    });
    const fusedOnly = await runHybridSearch(
      createSearchClient(rerankerDown.peers),
      principal,
      request({ rerank: true }),
    );
    assert.deepEqual(
      fusedOnly.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
    assert.match(
      fusedOnly.warnings.join(" "),
      /reranking failed, so results are in fused order \(RERANKER_UNAVAILABLE/,
    );
    assert.equal(fusedOnly.legs.rerank.ok, false);

    const ftsDown = fakePeers({ fts: new Error("socket hang up"), semantic: ["d"] });
    const semanticOnly = await runHybridSearch(createSearchClient(ftsDown.peers), principal, request());
    assert.match(
      semanticOnly.warnings.join(" "),
      /full-text leg failed.* \(an internal error\)/,
      "an unexpected error shows no detail",
    );

    const bothDown = fakePeers({
      fts: new ContextHubError("STORE_UNAVAILABLE", "store is unavailable"),
      semantic: new ContextHubError("EMBEDDER_UNAVAILABLE", "embedder is unavailable"),
    });
    await assert.rejects(
      runHybridSearch(createSearchClient(bothDown.peers), principal, request()),
      (error: unknown) => error instanceof ContextHubError && error.code === "STORE_UNAVAILABLE",
    );
  });

  test("min-max fusion keeps how far ahead a leg's best hit is, where reciprocal rank calls it a tie", async () => {
    const options = {
      fts: { ANY: ["b", "a", "c"] },
      semantic: ["a", "b", "c"],
      scores: { fts: [10, 1, 0], semantic: [0.9, 0.89, 0.1] },
    };
    const byRank = await runHybridSearch(
      createSearchClient(fakePeers(options).peers),
      principal,
      request({ fusion: "rrf" }),
    );
    assert.deepEqual(
      byRank.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
      "equal rank sums tie, and the smaller id wins",
    );
    const byScore = await runHybridSearch(
      createSearchClient(fakePeers(options).peers),
      principal,
      request({ fusion: "minmax" }),
    );
    assert.deepEqual(
      byScore.hits.map((hit) => hit.entry.id),
      ["b", "a", "c"],
    );
    const [b, a] = byScore.hits;
    // b: full text 10 → 1, semantic 0.89 → 0.9875; a: full text 1 → 0.1, semantic 0.9 → 1; each weighted 1/2.
    assert.ok(Math.abs((b?.scores.fused ?? 0) - (1 + 0.9875) / 2) < 1e-9, String(b?.scores.fused));
    assert.ok(
      Math.abs((b?.contributions.fts ?? 0) - 0.5) < 1e-9 &&
        Math.abs((b?.contributions.semantic ?? 0) - 0.9875 / 2) < 1e-9,
    );
    assert.ok(Math.abs((a?.contributions.fts ?? 0) - 0.05) < 1e-9);
    assert.ok(
      Math.abs((byRank.hits[0]?.contributions.fts ?? 0) - 1 / 62) < 1e-12,
      "under rrf a leg contributes weight / (k + rank)",
    );
  });

  test("min_score leaves out fused results below it before the page is cut, and counts them", async () => {
    const options = {
      fts: { ANY: ["a", "b", "c", "d"] },
      semantic: ["a", "b", "c", "d"],
      scores: { fts: [4, 3, 2, 1], semantic: [0.9, 0.6, 0.3, 0] },
    };
    const all = await runHybridSearch(
      createSearchClient(fakePeers(options).peers),
      principal,
      request({ fusion: "minmax", limit: 10 }),
    );
    assert.deepEqual(
      all.hits.map((hit) => Number(hit.score.toFixed(4))),
      [1, 0.6667, 0.3333, 0],
    );
    assert.equal(all.droppedBelowMinScore, 0);
    const floored = await runHybridSearch(
      createSearchClient(fakePeers(options).peers),
      principal,
      request({ fusion: "minmax", limit: 1, offset: 1, minScore: 0.5 }),
    );
    assert.deepEqual(
      floored.hits.map((hit) => [hit.entry.id, hit.rank]),
      [["b", 2]],
    );
    assert.equal(floored.droppedBelowMinScore, 2);
    assert.equal(floored.hasMore, false, "nothing above the floor is left after this page");
    assert.equal(floored.floorOn, "fused");
  });

  test("with reranking, min_score is on the rerank score, and results the reranker did not score are left out", async () => {
    const { peers } = fakePeers({ fts: { ANY: ["a", "b", "c", "d", "e"] }, rerank: ["c", "a", "b"] });
    const result = await runHybridSearch(
      createSearchClient(peers),
      principal,
      request({ rerank: true, rerankWeight: 1, rerankDepth: 3, limit: 10, minScore: 0.85 }),
    );
    // Rerank scores: c 1, a 0.9, b 0.8; d and e were not reranked.
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["c", "a"],
    );
    assert.equal(result.droppedBelowMinScore, 3);
    assert.equal(result.floorOn, "rerank");
  });

  test("every stage that ran is timed for explain_query", async () => {
    const { peers } = fakePeers({ fts: { ANY: ["a", "b"] }, semantic: ["b"] });
    const result = await runHybridSearch(createSearchClient(peers), principal, request({ rerank: true }));
    assert.deepEqual(Object.keys(result.times).sort(), [
      "embed",
      "fts",
      "fusion",
      "listings",
      "passages",
      "rerank",
      "semantic",
    ]);
    for (const ms of Object.values(result.times)) assert.ok(Number.isFinite(ms) && ms >= 0);
    const unreranked = await runHybridSearch(
      createSearchClient(fakePeers({ fts: { ANY: ["a"] } }).peers),
      principal,
      request({ rerank: false }),
    );
    assert.ok(!("rerank" in unreranked.times) && !("passages" in unreranked.times));
  });

  test("a reranked result's score blends the rerank score with its fused score rescaled over the head", async () => {
    // Fused (rrf) head a > b > c; the reranker prefers c (1), then b (0.9), then a (0.8).
    const options = { fts: { ANY: ["a", "b", "c"] }, rerank: ["c", "b", "a"] };
    const half = await runHybridSearch(
      createSearchClient(fakePeers(options).peers),
      principal,
      request({ rerank: true, rerankWeight: 0.5 }),
    );
    // a: 0.5·0.8 + 0.5·1 = 0.9; b: 0.5·0.9 + 0.5·r_b; c: 0.5·1 + 0.5·0 = 0.5.
    const fusedOf = (id: string) => half.hits.find((hit) => hit.entry.id === id)!.scores.fused!;
    const rB = (fusedOf("b") - fusedOf("c")) / (fusedOf("a") - fusedOf("c"));
    assert.deepEqual(
      half.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
    assert.ok(
      Math.abs(half.hits[0]!.score - 0.9) < 1e-9 &&
        Math.abs(half.hits[1]!.score - (0.45 + 0.5 * rB)) < 1e-9 &&
        Math.abs(half.hits[2]!.score - 0.5) < 1e-9,
    );
    assert.deepEqual(
      half.hits[2]?.scores.rerank,
      { rank: 1, score: 1 },
      "the reranker's own rank and score stay visible",
    );
    const alone = await runHybridSearch(
      createSearchClient(fakePeers(options).peers),
      principal,
      request({ rerank: true, rerankWeight: 1 }),
    );
    assert.deepEqual(
      alone.hits.map((hit) => hit.entry.id),
      ["c", "b", "a"],
    );
    const fusedOnly = await runHybridSearch(
      createSearchClient(fakePeers(options).peers),
      principal,
      request({ rerank: true, rerankWeight: 0 }),
    );
    assert.deepEqual(
      fusedOnly.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
  });
});
