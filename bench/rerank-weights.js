// Chooses the built-in reranker's signal weights by measurement: reads each query's unreranked hybrid ranking (written
// by `node bench/quality.js --candidates-out <file>`), builds each head candidate's passage the way the store does
// (the window where the query's words are densest, 1,200 characters), scores the signals once with the reranker's
// scoreRelevance, and prints nDCG@10 for a grid of weights, and for blends of the rerank score with the fused score
// rescaled over the head (the gateway's rerank_weight), on every collection in the file. Choose on Cranfield, check
// on CISI.
//
// Usage: node bench/rerank-weights.js --candidates <file> [--data ../shared/data] [--depth 50] [--old <relevance.js>]
//   --old scores the same candidates with another build of relevance.js (the reranker before a change) for comparison.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadWordVectors, toDefaultCacheDir } from "@context-hub/text";
import { loadCollection, ndcgAt10 } from "./lib/quality-data.js";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    candidates: { type: "string" },
    data: { type: "string", default: resolve(here, "../../shared/data") },
    depth: { type: "string", default: "50" },
    old: { type: "string" },
  },
});
if (values.candidates === undefined)
  throw new Error("--candidates <file> is required (written by bench/quality.js --candidates-out)");
const { scoreRelevance, relevanceWeights } = await import(
  pathToFileURL(resolve(here, "../services/reranker/dist/relevance.js")).href
);
const { findPassage } = await import(pathToFileURL(resolve(here, "../services/store/dist/search/passages.js")).href);
const old = values.old === undefined ? undefined : await import(pathToFileURL(resolve(values.old)).href);
const vectors = await loadWordVectors(toDefaultCacheDir(process.env));
const depth = Number(values.depth);
const passageChars = 1_200;
const signals = ["bm25", "proximity", "phrase", "semantic"];

/** Weight settings to try: a grid over the four signals in steps of 0.05, summing to 1. */
function weightGrid() {
  const grid = [];
  for (let bm25 = 0.2; bm25 <= 0.9001; bm25 += 0.05)
    for (let proximity = 0; proximity <= 0.3001; proximity += 0.05)
      for (let phrase = 0; phrase <= 0.2001; phrase += 0.05) {
        const semantic = 1 - bm25 - proximity - phrase;
        if (semantic < -1e-9) continue;
        grid.push({ bm25, proximity, phrase, semantic: Math.max(0, semantic) });
      }
  return grid.map((weights) =>
    Object.fromEntries(Object.entries(weights).map(([key, value]) => [key, Number(value.toFixed(2))])),
  );
}

const all = JSON.parse(readFileSync(values.candidates, "utf8"));
const grid = weightGrid();
const table = new Map();
for (const [name, rankings] of Object.entries(all)) {
  const collection = loadCollection(name, resolve(values.data, name));
  const textOf = new Map(collection.docs.map((doc) => [doc.id, doc.text]));
  const perQuery = collection.queries.map((query) => {
    const listed = rankings[query.id] ?? [];
    const ranked = listed.map((item) => (Array.isArray(item) ? item[0] : item));
    const fused = listed.map((item) => (Array.isArray(item) ? item[1] : undefined));
    const head = ranked.slice(0, depth);
    const headFused = fused.slice(0, depth);
    const low = Math.min(...headFused);
    const high = Math.max(...headFused);
    const rescaledFused = headFused.map((score) => (high > low ? (score - low) / (high - low) : 1));
    const passages = head.map((docId) => findPassage(textOf.get(docId) ?? "", query.text, passageChars).text);
    return {
      gains: collection.judgments.get(query.id),
      ranked,
      head,
      rescaledFused,
      breakdown: scoreRelevance(query.text, passages, vectors),
      old: old?.scoreRelevance(query.text, passages, vectors).map((result) => result.score),
    };
  });
  const meanNdcg = (scoreOf) =>
    perQuery.reduce((sum, query) => {
      const scores = query.head.map((_, index) => scoreOf(query, index));
      const order = query.head
        .map((docId, index) => ({ docId, index, score: scores[index] }))
        .sort((a, b) => b.score - a.score || a.index - b.index);
      return sum + ndcgAt10([...order.map((item) => item.docId), ...query.ranked.slice(depth)], query.gains);
    }, 0) / perQuery.length;
  const results = { "fused order (no rerank)": meanNdcg((_, index) => -index) };
  if (old !== undefined) results["previous reranker"] = meanNdcg((query, index) => query.old[index]);
  for (const signal of signals) results[`${signal} alone`] = meanNdcg((query, index) => query.breakdown[index][signal]);
  results[`default ${JSON.stringify(relevanceWeights)}`] = meanNdcg((query, index) => query.breakdown[index].score);
  const hasScores = perQuery.every((query) => query.rescaledFused.every(Number.isFinite));
  if (hasScores)
    for (const blend of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]) {
      results[`rerank_weight ${blend} (default signal weights)`] = meanNdcg(
        (query, index) => blend * query.breakdown[index].score + (1 - blend) * query.rescaledFused[index],
      );
      for (const weights of grid) {
        const key = `${JSON.stringify(weights)} rerank_weight ${blend}`;
        results[key] = meanNdcg(
          (query, index) =>
            blend * signals.reduce((sum, signal) => sum + weights[signal] * query.breakdown[index][signal], 0) +
            (1 - blend) * query.rescaledFused[index],
        );
      }
    }
  for (const weights of grid) {
    const key = JSON.stringify(weights);
    results[key] = meanNdcg((query, index) =>
      signals.reduce((sum, signal) => sum + weights[signal] * query.breakdown[index][signal], 0),
    );
  }
  table.set(name, results);
}

const names = [...table.keys()];
const first = table.get(names[0]);
console.log(`rerank depth ${depth}; nDCG@10 per collection (chosen on ${names[0]})`);
const fixedRows = Object.keys(first).filter((key) => !key.startsWith("{"));
for (const key of fixedRows)
  console.log(`${key.padEnd(80)} ${names.map((name) => table.get(name)[key].toFixed(4)).join("  ")}`);
console.log(`best ten weightings on ${names[0]}:`);
const ranked = Object.keys(first)
  .filter((key) => key.startsWith("{"))
  .sort((a, b) => first[b] - first[a]);
for (const key of ranked.slice(0, 10))
  console.log(`${key.padEnd(80)} ${names.map((name) => table.get(name)[key].toFixed(4)).join("  ")}`);
