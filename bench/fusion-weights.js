// Chooses the hybrid fusion defaults by measurement, offline: reads each query's two leg rankings with their scores
// (written by `node bench/quality.js --legs-out <file>`: the full-text leg with fts_search_context's feedback, a full
// second pass that hybrid's re-scoring of both legs' candidates approximates, and the semantic leg), fuses them with the gateway's own fusion functions for a grid of methods and leg weights, and reranks
// the head of the best settings with the built-in reranker over passages cut the way the store cuts them (the window
// where the query's words are densest, 1,200 characters), blending as the gateway does (rerank_weight × rerank score +
// the rest × the fused score rescaled over the head). Prints nDCG@10 per collection in the file; choose on the first
// (Cranfield), check on the others, never per collection.
//
// Usage: node bench/fusion-weights.js --legs <file> [--data ../shared/data] [--depth 50] [--top 3]
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadWordVectors, toDefaultCacheDir } from "@context-hub/text";
import { loadCollection, ndcgAt10 } from "./lib/quality-data.js";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    legs: { type: "string" },
    data: { type: "string", default: resolve(here, "../../shared/data") },
    depth: { type: "string", default: "50" },
    top: { type: "string", default: "3" },
  },
});
if (values.legs === undefined) throw new Error("--legs <file> is required (written by bench/quality.js --legs-out)");
const load = (path) => import(pathToFileURL(resolve(here, path)).href);
const { fuseByNormalisedScore } = await load("../services/gateway/dist/search/score-fusion.js");
const { fuseByReciprocalRank } = await load("../services/gateway/dist/search/rrf.js");
const { scoreRelevance } = await load("../services/reranker/dist/relevance.js");
const { findPassage } = await load("../services/store/dist/passages.js");
const vectors = await loadWordVectors(toDefaultCacheDir(process.env));
const depth = Number(values.depth);
const passageChars = 1_200;

/** Fusion settings to try: each method with the semantic leg at several weights against full text's 1. */
const settings = [];
for (const method of ["minmax", "zscore", "rrf"])
  for (const semantic of [0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1])
    settings.push({ method, fts: 1, semantic, ...(method === "rrf" ? { k: 60 } : {}) });
const rerankWeights = [0, 0.2, 0.3, 0.4, 0.5, 0.6];
const label = (setting) =>
  `${setting.method}${setting.k ? ` k=${setting.k}` : ""} fts ${setting.fts} / semantic ${setting.semantic}`;

function fuse(legs, setting) {
  const lists = [
    { leg: "fts", weight: setting.fts, items: (legs.fts ?? []).map(([id, score]) => ({ id, score })) },
    { leg: "semantic", weight: setting.semantic, items: (legs.semantic ?? []).map(([id, score]) => ({ id, score })) },
  ];
  if (setting.method === "rrf")
    return fuseByReciprocalRank(
      lists.map(({ leg, weight, items }) => ({ leg, weight, ids: items.map((item) => item.id) })),
      setting.k,
    );
  return fuseByNormalisedScore(lists, setting.method);
}

/** nDCG@10 of each rerank weight over `setting`'s fused rankings, the head reranked as the gateway does. */
function rerankedNdcg(collection, textOf, legsOf, setting) {
  const perQuery = collection.queries.map((query) => {
    const fused = fuse(legsOf[query.id] ?? {}, setting);
    const head = fused.slice(0, depth);
    const low = Math.min(...head.map((item) => item.score));
    const high = Math.max(...head.map((item) => item.score));
    const passages = head.map((item) => findPassage(textOf.get(item.id) ?? "", query.text, passageChars).text);
    const rerank = scoreRelevance(query.text, passages, vectors).map((result) => result.score);
    return {
      query,
      fused,
      head,
      rerank,
      rescaled: head.map((item) => (high > low ? (item.score - low) / (high - low) : 1)),
    };
  });
  return rerankWeights.map((weight) => {
    const sum = perQuery.reduce((total, { query, fused, head, rerank, rescaled }) => {
      const order = head
        .map((item, index) => ({
          id: item.id,
          index,
          blended: weight * rerank[index] + (1 - weight) * rescaled[index],
        }))
        .sort((a, b) => b.blended - a.blended || a.index - b.index);
      return (
        total +
        ndcgAt10(
          [...order.map((item) => item.id), ...fused.slice(depth).map((item) => item.id)],
          collection.judgments.get(query.id),
        )
      );
    }, 0);
    return sum / perQuery.length;
  });
}

const all = JSON.parse(readFileSync(values.legs, "utf8"));
const names = Object.keys(all);
const fusedTable = new Map();
const collections = new Map(names.map((name) => [name, loadCollection(name, resolve(values.data, name))]));
for (const name of names) {
  const collection = collections.get(name);
  const row = settings.map((setting) => {
    const sum = collection.queries.reduce(
      (total, query) =>
        total +
        ndcgAt10(
          fuse(all[name][query.id] ?? {}, setting).map((item) => item.id),
          collection.judgments.get(query.id),
        ),
      0,
    );
    return sum / collection.queries.length;
  });
  fusedTable.set(name, row);
}
console.log(`fused, no rerank: nDCG@10 (${names.join(" / ")}); chosen on ${names[0]}`);
const order = settings
  .map((_, index) => index)
  .sort((a, b) => fusedTable.get(names[0])[b] - fusedTable.get(names[0])[a]);
for (const index of order)
  console.log(
    `${label(settings[index]).padEnd(40)} ${names.map((name) => fusedTable.get(name)[index].toFixed(4)).join("  ")}`,
  );

console.log(
  `\nreranked head (depth ${depth}) of the best ${values.top} settings on ${names[0]}, by rerank_weight ${rerankWeights.join(" / ")}:`,
);
for (const index of order.slice(0, Number(values.top))) {
  for (const name of names) {
    const collection = collections.get(name);
    const textOf = new Map(collection.docs.map((doc) => [doc.id, doc.text]));
    const row = rerankedNdcg(collection, textOf, all[name], settings[index]);
    console.log(
      `${label(settings[index]).padEnd(40)} ${name.padEnd(10)} ${row.map((value) => value.toFixed(4)).join("  ")}`,
    );
  }
}
