// Test collections for the quality bench: documents, queries and judgments read from the normalised files in
// ../shared/data/<name>, with each collection's grade scale turned into nDCG gains, and the two measures it reports.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * Gains per raw grade. Cranfield grades 1 (complete answer) to 4 (minimum interest), and -1 (the query's source
 * paper, not relevant); CISI judgments are binary.
 */
export const collections = {
  cranfield: { label: "Cranfield", gains: { 1: 4, 2: 3, 3: 2, 4: 1, "-1": 0 } },
  cisi: { label: "CISI", gains: { 1: 1 } },
};

/**
 * Semantic-leg nDCG@10 with the built-in embeddings before they were improved (main at the start of this work), the
 * baseline the semantic target is measured against.
 */
export const semanticBaseline = { cranfield: 0.166, cisi: 0.26 };

const readJsonl = (path) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

/**
 * Reads collection `name` from `dir`: its documents, the queries that have judgments (a query without any has no
 * defined nDCG), and per query a map doc id → gain.
 */
export function loadCollection(name, dir) {
  const spec = collections[name];
  if (spec === undefined) throw new Error(`unknown collection ${name}; known: ${Object.keys(collections).join(", ")}`);
  const docs = readJsonl(resolve(dir, "docs.jsonl"));
  const judgments = new Map();
  for (const line of readFileSync(resolve(dir, "qrels.tsv"), "utf8").split("\n").slice(1)) {
    const [queryId, docId, grade] = line.trim().split("\t");
    if (queryId === undefined || docId === undefined || grade === undefined) continue;
    const gain = spec.gains[grade];
    if (gain === undefined) throw new Error(`${name}: grade ${grade} of query ${queryId} has no gain`);
    if (!judgments.has(queryId)) judgments.set(queryId, new Map());
    judgments.get(queryId).set(docId, gain);
  }
  const queries = readJsonl(resolve(dir, "queries.jsonl")).filter((query) => judgments.has(query.id));
  return { name, label: spec.label, docs, queries, judgments };
}

/** nDCG@10 with linear gains and log2 discounts; the ideal ranking sorts every judged document by gain. */
export function ndcgAt10(ranked, gains) {
  const dcg = ranked
    .slice(0, 10)
    .reduce((sum, docId, index) => sum + (gains.get(docId) ?? 0) / Math.log2(index + 2), 0);
  const ideal = [...gains.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Share of the relevant (gain > 0) documents found in the first 100. */
export function recallAt100(ranked, gains) {
  const relevant = [...gains.entries()].filter(([, gain]) => gain > 0).map(([docId]) => docId);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, 100));
  return relevant.filter((docId) => top.has(docId)).length / relevant.length;
}

/** Mean nDCG@10 and recall@100 of `rankingOf(query)` (doc ids, best first) over the collection's queries. */
export async function scoreRankings(collection, rankingOf) {
  let ndcg = 0;
  let recall = 0;
  let ms = 0;
  const times = [];
  for (const query of collection.queries) {
    const started = performance.now();
    const ranked = await rankingOf(query);
    times.push(performance.now() - started);
    ms += times.at(-1);
    const gains = collection.judgments.get(query.id);
    ndcg += ndcgAt10(ranked, gains);
    recall += recallAt100(ranked, gains);
  }
  const count = collection.queries.length;
  const sorted = times.sort((a, b) => a - b);
  const medianMs =
    sorted.length === 0
      ? 0
      : (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
  return {
    ndcg10: Number((ndcg / count).toFixed(4)),
    recall100: Number((recall / count).toFixed(4)),
    meanMs: Number((ms / count).toFixed(1)),
    medianMs: Number(medianMs.toFixed(1)),
  };
}
