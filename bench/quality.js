// Retrieval quality on two public test collections in one run: Cranfield (1,400 aeronautics abstracts, 225 queries,
// graded judgments) and CISI (1,460 library-science abstracts, 50 judged queries, binary judgments). Each collection
// is stored through store_context_batch in a fresh embedded hub of its own, every query runs through each search tool
// over MCP, and nDCG@10 and recall@100 are printed for full text (match and any), semantic, hybrid without reranking
// and hybrid as called by default, beside a plain BM25 computed in the same run (bench/lib/bm25-reference.js). A
// target table follows.
//
// Usage: node bench/quality.js [--data ../shared/data] [--collections cranfield,cisi] [--json out.json] [--variants] [--only "a|b"]
//   --variants also scores hybrid settings (fusion method, rrf k, leg weights, full-text mode, rerank depth) so a
//   change to the defaults can be justified; defaults are chosen on Cranfield and checked on CISI.
//   --only scores just the modes whose names contain one of its "|"-separated parts (mode names hold commas; the targets need them all).
//   --candidates-out writes each query's unreranked hybrid ranking ([doc id, fused score]), which bench/rerank-weights.js reranks
//   offline to choose the built-in reranker's weights.
//   --legs-out writes each query's full-text (any, with fts_search_context's feedback: a full second pass, which hybrid's
//   re-scoring of the legs' candidates approximates) and semantic rankings ([doc id, score]), which
//   bench/fusion-weights.js fuses offline to compare fusion settings.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createBm25Index } from "./lib/bm25-reference.js";
import { loadCollection, scoreRankings, semanticBaseline } from "./lib/quality-data.js";
import { startCollectionHub } from "./lib/quality-hub.js";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    data: { type: "string", default: resolve(here, "../../shared/data") },
    collections: { type: "string", default: "cranfield,cisi" },
    json: { type: "string" },
    "candidates-out": { type: "string" },
    "legs-out": { type: "string" },
    variants: { type: "boolean", default: false },
    only: { type: "string" },
  },
});
const log = (message) => process.stderr.write(`${message}\n`);

/** The modes every run scores; the names are the rows of the tables. */
const modes = {
  "full text (match)": (query) => ["fts_search_context", { query, limit: 100 }],
  "full text (any)": (query) => ["fts_search_context", { query, mode: "any", limit: 100 }],
  "full text (any) + feedback": (query) => ["fts_search_context", { query, mode: "any", limit: 100, feedback: true }],
  semantic: (query) => ["semantic_search_context", { query, limit: 100 }],
  "hybrid, no rerank": (query) => ["hybrid_search_context", { query, limit: 100, rerank: false }],
  "hybrid, no feedback": (query) => ["hybrid_search_context", { query, limit: 100, fts_feedback: false }],
  "hybrid (default)": (query) => ["hybrid_search_context", { query, limit: 100 }],
};

function variantModes() {
  const variants = {};
  const hybrid = (extra) => (query) => ["hybrid_search_context", { query, limit: 100, rerank: false, ...extra }];
  for (const method of ["rrf", "minmax", "zscore"]) variants[`hybrid ${method}`] = hybrid({ fusion_method: method });
  variants["hybrid rrf k=20"] = hybrid({ fusion_method: "rrf", rrf_k: 20 });
  for (const [fts, semantic] of [
    [1, 0.5],
    [0.5, 1],
  ])
    variants[`hybrid zscore fts=${fts} semantic=${semantic}`] = hybrid({
      fusion_method: "zscore",
      fts_weight: fts,
      semantic_weight: semantic,
    });
  for (const weight of [0.25, 1])
    variants[`hybrid + rerank_weight ${weight}`] = (query) => [
      "hybrid_search_context",
      { query, limit: 100, rerank_weight: weight },
    ];
  // Feedback on the full-text leg: its knobs alone, then the hybrid weights with it on.
  const feedback = (extra) => (query) => [
    "fts_search_context",
    { query, mode: "any", limit: 100, feedback: true, ...extra },
  ];
  for (const documents of [5, 20])
    variants[`fts feedback documents=${documents}`] = feedback({ feedback_documents: documents });
  for (const terms of [10, 40]) variants[`fts feedback terms=${terms}`] = feedback({ feedback_terms: terms });
  for (const weight of [0.3, 0.7])
    variants[`fts feedback query_weight=${weight}`] = feedback({ feedback_query_weight: weight });
  for (const semantic of [0.1, 0.2, 0.4, 0.5]) {
    variants[`hybrid feedback semantic=${semantic}, no rerank`] = hybrid({
      fts_feedback: true,
      semantic_weight: semantic,
    });
    variants[`hybrid feedback semantic=${semantic}`] = (query) => [
      "hybrid_search_context",
      { query, limit: 100, fts_feedback: true, semantic_weight: semantic },
    ];
  }
  for (const weight of [0.3, 0.45])
    variants[`hybrid feedback rerank_weight=${weight}`] = (query) => [
      "hybrid_search_context",
      { query, limit: 100, fts_feedback: true, rerank_weight: weight },
    ];
  // Hybrid's leg depth (candidates each leg contributes) and rerank depth at the tools' page of 10.
  for (const [candidates, rerankDepth] of [
    [30, 50],
    [40, 50],
    [50, 50],
    [70, 50],
    [100, 50],
    [50, 20],
  ])
    variants[`hybrid candidates=${candidates} rerank_depth=${rerankDepth}`] = (query) => [
      "hybrid_search_context",
      { query, limit: 10, candidates, rerank_depth: rerankDepth },
    ];
  return variants;
}

async function measureCollection(collection) {
  const { call, storable, docIdOf, close } = await startCollectionHub(collection, log);
  try {
    const results = {};
    const reference = createBm25Index(storable);
    results["BM25 reference"] = await scoreRankings(collection, (query) => reference.search(query.text, 100));
    log(`${collection.label}: ${"BM25 reference".padEnd(40)} nDCG@10 ${results["BM25 reference"].ndcg10.toFixed(4)}`);
    const runs = Object.fromEntries(
      Object.entries({ ...modes, ...(values.variants ? variantModes() : {}) }).filter(
        ([name]) => values.only === undefined || values.only.split("|").some((part) => name.includes(part)),
      ),
    );
    const candidates = {};
    const legs = {};
    const legOf = { "full text (any) + feedback": "fts", semantic: "semantic" };
    for (const [name, request] of Object.entries(runs)) {
      results[name] = await scoreRankings(collection, async (query) => {
        const page = await call(...request(query.text));
        const ranked = page.results.map((hit) => docIdOf.get(hit.id));
        if (name === "hybrid, no rerank")
          candidates[query.id] = page.results.map((hit) => [docIdOf.get(hit.id), hit.scores.fused]);
        if (legOf[name] !== undefined)
          (legs[query.id] ??= {})[legOf[name]] = page.results.map((hit) => [docIdOf.get(hit.id), hit.score]);
        return ranked;
      });
      log(
        `${collection.label}: ${name.padEnd(40)} nDCG@10 ${results[name].ndcg10.toFixed(4)}  recall@100 ${results[name].recall100.toFixed(4)}  (${results[name].meanMs} ms/query, median ${results[name].medianMs})`,
      );
    }
    return { documents: docIdOf.size, queries: collection.queries.length, results, candidates, legs };
  } finally {
    await close();
  }
}

/** The targets of a collection's figures: [description, measured, bar, met]. */
function targetsOf(name, results) {
  const reference = results["BM25 reference"].ndcg10;
  const any = results["full text (any)"].ndcg10;
  const semantic = results.semantic.ndcg10;
  const hybrid = results["hybrid (default)"].ndcg10;
  // Feedback ranks the full-text leg alone too, so it counts as a single leg.
  const bestLeg = Math.max(
    results["full text (match)"].ndcg10,
    any,
    results["full text (any) + feedback"]?.ndcg10 ?? 0,
    semantic,
  );
  const baseline = semanticBaseline[name];
  const rows = [
    ["full text (any) ≥ reference", any, reference],
    ["hybrid (default) ≥ 1.05 × reference", hybrid, 1.05 * reference],
    ["hybrid (default) ≥ best single leg + 0.01", hybrid, bestLeg + 0.01],
  ];
  if (baseline > 0) rows.push([`semantic ≥ 1.25 × baseline ${baseline}`, semantic, 1.25 * baseline]);
  return rows.map(([description, measured, bar]) => ({
    description,
    measured,
    bar: Number(bar.toFixed(4)),
    met: measured >= bar,
  }));
}

const report = { node: process.version, collections: {} };
const candidatesOut = {};
const legsOut = {};
for (const name of values.collections.split(",").map((item) => item.trim())) {
  const collection = loadCollection(name, resolve(values.data, name));
  const measured = await measureCollection(collection);
  const { candidates, legs, ...figures } = measured;
  report.collections[name] = {
    ...figures,
    targets: values.only === undefined ? targetsOf(name, measured.results) : [],
  };
  if (values["candidates-out"]) candidatesOut[name] = candidates;
  if (values["legs-out"]) legsOut[name] = legs;
}
if (values["candidates-out"]) writeFileSync(values["candidates-out"], `${JSON.stringify(candidatesOut)}\n`);
if (values["legs-out"]) writeFileSync(values["legs-out"], `${JSON.stringify(legsOut)}\n`);

for (const [name, figures] of Object.entries(report.collections)) {
  const label = loadCollection(name, resolve(values.data, name)).label;
  console.log(`\n${label} (${figures.documents} documents, ${figures.queries} judged queries)`);
  console.log(`${"".padEnd(40)} nDCG@10  recall@100  ms/query (mean, median)`);
  for (const [mode, result] of Object.entries(figures.results)) {
    console.log(
      `${mode.padEnd(40)} ${result.ndcg10.toFixed(4)}   ${result.recall100.toFixed(4)}      ${result.meanMs}, ${result.medianMs}`,
    );
  }
  console.log(`targets (${label})`);
  for (const target of figures.targets)
    console.log(
      `  ${target.met ? "met    " : "NOT MET"} ${target.description.padEnd(44)} ${target.measured.toFixed(4)} vs ${target.bar.toFixed(4)}`,
    );
  const baseline = semanticBaseline[name];
  if (figures.results.semantic !== undefined)
    console.log(
      `  semantic ${figures.results.semantic.ndcg10.toFixed(4)} against the recorded baseline ${baseline > 0 ? baseline : "(none recorded)"}`,
    );
}
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
}
