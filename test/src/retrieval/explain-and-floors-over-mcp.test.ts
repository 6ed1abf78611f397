// explain_query and min_score on every ranked search tool, over the real MCP surface: what each result and each reply
// says about its ranking, floors applied before the page is cut with the dropped count, and clear refusals of bad
// values that change nothing.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, failureLine } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";

interface ExplainedLeg {
  rank: number;
  score: number;
  contribution: number | null;
}
interface Hit {
  id: string;
  rank: number;
  score: number;
  scores: {
    fts: { rank: number; score: number } | null;
    semantic: { rank: number; score: number } | null;
    fused: number | null;
    rerank: { rank: number; score: number } | null;
  };
  explain?: {
    fts: ExplainedLeg | null;
    semantic: ExplainedLeg | null;
    fused: number | null;
    rerank: { rank: number; score: number } | null;
  };
}
interface Page {
  results: Hit[];
  count: number;
  has_more: boolean;
  dropped_below_min_score: number;
  explain?: {
    ranked_by: string;
    fusion_method: string | null;
    rrf_k: number | null;
    weights: { fts: number; semantic: number } | null;
    fts_mode: string | null;
    fts_feedback?: { documents: number; terms: { term: string; weight: number }[] } | null;
    stages_ms: Record<string, number>;
  };
}

const texts = [
  "Boundary layer transition on a swept wing at supersonic speeds was measured in the wind tunnel.",
  "The boundary layer thickens downstream of the shock, and transition moves forward with heating.",
  "Heat transfer to a blunt body in hypersonic flow depends on the nose radius.",
  "Panel flutter of thin plates was observed at high dynamic pressure.",
  "Wing flutter margins shrink when the structure is heated by boundary layer friction.",
  "A survey of buckling loads for cylindrical shells under axial compression.",
  "Laminar boundary layer profiles over a flat plate with suction.",
  "The quarterly budget for the cafeteria was approved without changes.",
];
const query = "boundary layer transition on heated wings";

describe("explain_query and min_score over MCP", () => {
  let hub: AllInOne;
  let client: Client;
  const search = (tool: string, args: Record<string, unknown>) =>
    callOk<Page>(client, tool, { query, thread_id: "aero", ...args });

  before(async () => {
    hub = await startMemoryHub({ CONTEXT_HUB_SUMMARIES: "false" });
    client = await connectMcpClient(hub.url);
    await callOk(client, "store_context_batch", {
      entries: texts.map((text) => ({ thread_id: "aero", source: "user", text })),
    });
  });

  after(async () => {
    await client?.close();
    await hub?.close();
  });

  test("results stay small by default: no explain object on the reply or on any result", async () => {
    for (const tool of ["fts_search_context", "semantic_search_context", "hybrid_search_context"]) {
      const page = await search(tool, tool === "fts_search_context" ? { mode: "any" } : {});
      assert.ok(page.count > 0, tool);
      assert.equal(page.explain, undefined, tool);
      assert.ok(
        page.results.every((hit) => hit.explain === undefined),
        tool,
      );
      assert.equal(page.dropped_below_min_score, 0, tool);
    }
  });

  test("hybrid explains each result's legs, their share of the fused score, the rerank score, and times every stage", async () => {
    const page = await search("hybrid_search_context", { explain_query: true, limit: 5 });
    assert.deepEqual(
      [page.explain?.ranked_by, page.explain?.fusion_method, page.explain?.fts_mode, page.explain?.rrf_k],
      ["rerank", "minmax", "any", null],
    );
    const stages = page.explain?.stages_ms ?? {};
    // Hybrid ranks with feedback by default: the expanded query re-scoring the candidates is a stage of its own.
    assert.deepEqual(Object.keys(stages).sort(), [
      "embed",
      "feedback",
      "fts",
      "fusion",
      "listings",
      "passages",
      "rerank",
      "semantic",
      "total",
    ]);
    for (const [stage, ms] of Object.entries(stages))
      assert.ok(Number.isFinite(ms) && ms >= 0 && ms <= stages.total! + 0.1, `${stage}: ${ms} ms`);
    for (const hit of page.results) {
      const explain = hit.explain!;
      assert.ok(
        explain.rerank !== null && explain.rerank.score >= 0 && explain.rerank.score <= 1,
        "the built-in reranker scores in [0, 1]",
      );
      assert.ok(hit.score >= 0 && hit.score <= 1, "so does the blend of rerank and fused scores");
      const shares = (explain.fts?.contribution ?? 0) + (explain.semantic?.contribution ?? 0);
      assert.ok(
        Math.abs(shares - (explain.fused ?? -1)) < 1e-9,
        `the legs' shares add up to the fused score (${shares} vs ${explain.fused})`,
      );
      assert.deepEqual(
        explain.fts === null ? null : { rank: explain.fts.rank, score: explain.fts.score },
        hit.scores.fts,
      );
    }
    const rrf = await search("hybrid_search_context", {
      explain_query: true,
      fusion_method: "rrf",
      rrf_k: 20,
      rerank: false,
      limit: 3,
    });
    assert.deepEqual([rrf.explain?.ranked_by, rrf.explain?.fusion_method, rrf.explain?.rrf_k], ["fused", "rrf", 20]);
    assert.ok(!("rerank" in (rrf.explain?.stages_ms ?? {})));
    const top = rrf.results[0]!;
    assert.ok(
      Math.abs(
        (top.explain?.fts?.contribution ?? 0) - (top.explain?.fts === null ? 0 : 1 / (20 + top.explain!.fts.rank)),
      ) < 1e-12,
    );
  });

  test("single-leg tools explain their leg and time it", async () => {
    const fts = await search("fts_search_context", { mode: "any", explain_query: true });
    assert.deepEqual(
      [fts.explain?.ranked_by, fts.explain?.fts_mode, Object.keys(fts.explain?.stages_ms ?? {}).sort()],
      ["fts", "any", ["fts", "total"]],
    );
    assert.deepEqual(fts.results[0]?.explain, {
      fts: { rank: 1, score: fts.results[0]!.score, contribution: null },
      semantic: null,
      fused: null,
      rerank: null,
    });
    const semantic = await search("semantic_search_context", { explain_query: true });
    assert.deepEqual(
      [semantic.explain?.ranked_by, Object.keys(semantic.explain?.stages_ms ?? {}).sort()],
      ["semantic", ["embed", "semantic", "total"]],
    );
    assert.equal(semantic.results[0]?.explain?.semantic?.score, semantic.results[0]?.score);
  });

  test("feedback shows the words it added to the query, bounded by feedback_terms, on full text and on hybrid's full-text leg", async () => {
    const fts = await search("fts_search_context", {
      mode: "any",
      feedback: true,
      feedback_documents: 3,
      feedback_terms: 4,
      explain_query: true,
    });
    const feedback = fts.explain?.fts_feedback;
    assert.equal(feedback?.documents, 3);
    assert.ok(
      feedback !== undefined && feedback !== null && feedback.terms.length > 0 && feedback.terms.length <= 4,
      JSON.stringify(feedback),
    );
    assert.ok(
      Math.abs(feedback.terms.reduce((sum, term) => sum + term.weight, 0) - 1) < 1e-9,
      "the expansion's weights sum to 1",
    );
    assert.ok(
      feedback.terms.every((term, index) => index === 0 || term.weight <= feedback.terms[index - 1]!.weight),
      "heaviest first",
    );
    const plain = await search("fts_search_context", { mode: "any", explain_query: true });
    assert.equal(plain.explain?.fts_feedback, null, "no feedback asked, none shown");
    const hybrid = await search("hybrid_search_context", { fts_feedback: true, explain_query: true, limit: 5 });
    assert.ok((hybrid.explain?.fts_feedback?.terms.length ?? 0) > 0, JSON.stringify(hybrid.explain));
    const without = await search("hybrid_search_context", { fts_feedback: false, explain_query: true, limit: 5 });
    assert.equal(without.explain?.fts_feedback, null);
  });

  test("feedback is refused with prefix mode and its knobs without it, naming the argument", async () => {
    for (const [tool, args, message] of [
      ["fts_search_context", { mode: "prefix", feedback: true }, /feedback is not available with mode prefix/],
      ["fts_search_context", { mode: "any", feedback_terms: 5 }, /apply only with feedback: true/],
      ["fts_search_context", { mode: "any", feedback: true, feedback_documents: 51 }, /feedback_documents/],
      [
        "hybrid_search_context",
        { fts_mode: "prefix", fts_feedback: true },
        /fts_feedback is not available with fts_mode prefix/,
      ],
    ] as const) {
      const result = await callTool(client, tool, { query, ...args });
      assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.match(failureLine(result), message);
    }
  });

  for (const [tool, extra] of [
    ["fts_search_context", { mode: "any" }],
    ["semantic_search_context", {}],
    ["hybrid_search_context", { rerank: false }],
    ["hybrid_search_context", {}],
  ] as const) {
    test(`min_score on ${tool}${"rerank" in extra ? " without reranking" : ""} leaves out exactly the results below it, before the page is cut`, async () => {
      const all = await search(tool, { ...extra, limit: 20 });
      assert.ok(all.count >= 4, `${tool} finds enough to cut (${all.count})`);
      // Cut after the first result (from the second on) whose score is above the next one's: ties stay together.
      const cut =
        all.results.findIndex(
          (hit, index) => index >= 1 && index + 1 < all.results.length && hit.score > all.results[index + 1]!.score,
        ) + 1;
      assert.ok(cut >= 2, `${tool} has two distinct scores to cut between`);
      const floor = (all.results[cut - 1]!.score + all.results[cut]!.score) / 2;
      const floored = await search(tool, { ...extra, limit: 20, min_score: floor });
      assert.deepEqual(
        floored.results.map((hit) => hit.id),
        all.results.slice(0, cut).map((hit) => hit.id),
      );
      assert.equal(floored.has_more, false);
      // Hybrid counts every fused candidate below the floor; a single-leg tool, those of the page (here all it found).
      assert.equal(floored.dropped_below_min_score, all.count - cut);
      const secondPage = await search(tool, { ...extra, limit: 1, offset: 1, min_score: floor });
      assert.deepEqual(
        secondPage.results.map((hit) => [hit.id, hit.rank]),
        [[all.results[1]!.id, 2]],
      );
      const none = await search(tool, { ...extra, min_score: 1e9 });
      assert.deepEqual([none.count, none.has_more], [0, false]);
      assert.ok(none.dropped_below_min_score > 0);
    });
  }

  test("bad values are refused with a message naming the argument", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["hybrid_search_context", { fusion_method: "borda" }, /fusion_method/],
      ["hybrid_search_context", { min_score: "high" }, /min_score/],
      ["fts_search_context", { explain_query: "yes" }, /explain_query/],
      ["semantic_search_context", { min_score: null }, /min_score/],
    ];
    for (const [tool, args, pattern] of cases) {
      const result = await callTool(client, tool, { query, ...args });
      assert.match(failureLine(result), pattern, `${tool} ${JSON.stringify(args)}`);
    }
  });
});
