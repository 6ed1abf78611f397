import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ContextHubError, vectorToBytes } from "@context-hub/common";
import { embedderV1, rerankerV1, searchV1, storeV1 } from "@context-hub/proto";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";
import { runHybridSearch, type HybridSearchRequest } from "./hybrid-search.js";

const principal: Principal = { tenant: "t", subject: "s", groups: [], scopes: ["context:read"] };
const entry = (id: string) => create(storeV1.EntrySchema, { id, preview: `entry ${id}` });
const hits = (ids: string[], chunk = false) =>
  ids.map((id, index) => create(searchV1.SearchHitSchema, { entry: entry(id), score: 1 - index / 10, rank: index + 1, ...(chunk ? { chunk: { start: 0, end: 5 } } : {}) }));

interface FakeOptions {
  /** Full-text results per mode name. */
  fts?: Partial<Record<"MATCH" | "ANY", string[]>> | Error;
  semantic?: string[] | Error;
  /** Reranker order (ids, best first) or a failure. */
  rerank?: string[] | Error;
}

/** Peers answering from fixed rankings, recording what was asked. */
function fakePeers(options: FakeOptions) {
  const calls = { fts: [] as searchV1.FullTextMode[], passages: [] as { entryId: string; span?: { start: number; end: number } | undefined }[][], rerank: 0 };
  const peers = {
    search: {
      async fullTextSearch(request: { mode: searchV1.FullTextMode }) {
        calls.fts.push(request.mode);
        if (options.fts instanceof Error) throw options.fts;
        const ids = options.fts?.[request.mode === searchV1.FullTextMode.ANY ? "ANY" : "MATCH"] ?? [];
        return create(searchV1.FullTextSearchResponseSchema, { hits: hits(ids), language: "english" });
      },
      async semanticSearch() {
        if (options.semantic instanceof Error) throw options.semantic;
        return create(searchV1.SemanticSearchResponseSchema, { hits: hits(options.semantic ?? [], true), strategy: "ann" });
      },
      async getPassages(request: { items: { entryId: string; span?: { start: number; end: number } }[] }) {
        calls.passages.push(request.items);
        return create(searchV1.GetPassagesResponseSchema, { passages: request.items.map((item) => ({ entryId: item.entryId, text: `passage ${item.entryId}` })) });
      },
    },
    embedder: {
      async embedQueries() {
        if (options.semantic instanceof Error) throw options.semantic;
        return create(embedderV1.EmbedQueriesResponseSchema, { model: "m", dimension: 2, vectors: [{ float32Le: vectorToBytes([1, 0]) }] });
      },
    },
    reranker: {
      async rerank(request: { passages: { id: string }[] }) {
        calls.rerank++;
        if (options.rerank instanceof Error) throw options.rerank;
        const order = options.rerank ?? request.passages.map((passage) => passage.id);
        return create(rerankerV1.RerankResponseSchema, { results: order.map((id, index) => ({ id, index, score: 10 - index })) });
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
  ftsMode: "auto",
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
    const { peers, calls } = fakePeers({ fts: { MATCH: ["a", "b", "c"] }, semantic: new Error("the semantic leg must not be asked") });
    const result = await runHybridSearch(peers, principal, request({ filter: { asOf: { seconds: 1_700_000_000n, nanos: 0 } }, rerank: true }));
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
    assert.deepEqual([calls.passages.length, calls.rerank], [0, 0], "no passages, no reranking");
    assert.deepEqual(result.legs.semantic, { ok: false, candidates: 0 });
    assert.match(result.warnings.join(" "), /vectors are kept for the current version of each entry only/);
    assert.ok(!result.warnings.some((warning) => warning.includes("semantic leg failed")), "skipping is not a failure");
  });

  test("fuses both legs by reciprocal rank and reports every leg's rank", async () => {
    const { peers } = fakePeers({ fts: { MATCH: ["a", "b", "c"] }, semantic: ["c", "a", "d"] });
    const result = await runHybridSearch(peers, principal, request({ limit: 4 }));
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

  test("auto mode widens to any word only when every word finds too few", async () => {
    const enough = fakePeers({ fts: { MATCH: ["a", "b", "c"], ANY: ["x"] } });
    await runHybridSearch(enough.peers, principal, request());
    assert.deepEqual(enough.calls.fts, [searchV1.FullTextMode.MATCH]);
    const few = fakePeers({ fts: { MATCH: ["a"], ANY: ["a", "x", "y"] } });
    const result = await runHybridSearch(few.peers, principal, request());
    assert.deepEqual(few.calls.fts, [searchV1.FullTextMode.MATCH, searchV1.FullTextMode.ANY]);
    assert.deepEqual(
      result.hits.map((hit) => hit.entry.id),
      ["a", "x", "y"],
    );
  });

  test("the reranker reorders the head over passages (best chunk when known); the tail keeps fused order", async () => {
    const { peers, calls } = fakePeers({ fts: { MATCH: ["a", "b", "c", "e"] }, semantic: ["c"], rerank: ["b", "a", "c"] });
    const result = await runHybridSearch(peers, principal, request({ limit: 4, rerank: true, rerankDepth: 3 }));
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
    assert.deepEqual(result.hits[0]?.scores.rerank, { rank: 1, score: 10 });
    assert.equal(result.hits[3]?.scores.rerank, null);
    assert.deepEqual(result.legs.rerank, { ok: true, reranked: 3 });
  });

  test("pages are cut from one ranking", async () => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    const { peers } = fakePeers({ fts: { MATCH: ids }, semantic: ids });
    const first = await runHybridSearch(peers, principal, request({ limit: 3, rerank: true }));
    const second = await runHybridSearch(peers, principal, request({ limit: 3, offset: 3, rerank: true }));
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
    const embedderDown = fakePeers({ fts: { MATCH: ["a", "b", "c"] }, semantic: new ContextHubError("EMBEDDER_UNAVAILABLE", "embedder is unavailable") });
    const withoutSemantic = await runHybridSearch(embedderDown.peers, principal, request());
    assert.deepEqual(
      withoutSemantic.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
    assert.deepEqual([withoutSemantic.legs.fts.ok, withoutSemantic.legs.semantic.ok], [true, false]);
    assert.match(withoutSemantic.warnings.join(" "), /semantic leg failed.* \(EMBEDDER_UNAVAILABLE: embedder is unavailable\)/);

    const rerankerDown = fakePeers({ fts: { MATCH: ["a", "b", "c"] }, rerank: new ContextHubError("RERANKER_UNAVAILABLE", "reranker is unavailable") });
    const fusedOnly = await runHybridSearch(rerankerDown.peers, principal, request({ rerank: true }));
    assert.deepEqual(
      fusedOnly.hits.map((hit) => hit.entry.id),
      ["a", "b", "c"],
    );
    assert.match(fusedOnly.warnings.join(" "), /reranking failed, so results are in fused order \(RERANKER_UNAVAILABLE/);
    assert.equal(fusedOnly.legs.rerank.ok, false);

    const ftsDown = fakePeers({ fts: new Error("socket hang up"), semantic: ["d"] });
    const semanticOnly = await runHybridSearch(ftsDown.peers, principal, request());
    assert.match(semanticOnly.warnings.join(" "), /full-text leg failed.* \(an internal error\)/, "an unexpected error shows no detail");

    const bothDown = fakePeers({ fts: new ContextHubError("STORE_UNAVAILABLE", "store is unavailable"), semantic: new ContextHubError("EMBEDDER_UNAVAILABLE", "embedder is unavailable") });
    await assert.rejects(runHybridSearch(bothDown.peers, principal, request()), (error: unknown) => error instanceof ContextHubError && error.code === "STORE_UNAVAILABLE");
  });
});
