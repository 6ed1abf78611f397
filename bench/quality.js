// Retrieval quality on the Cranfield collection (1,400 aeronautics abstracts, 225 queries with graded judgments): every
// document is stored as an entry through store_context_batch on the embedded default, every query runs through each
// search tool, and nDCG@10 and recall@100 are reported for full text (match and any), semantic, hybrid, and hybrid
// with reranking.
//
// Grades follow the collection's README: raw 1→4, 2→3, 3→2, 4→1, -1→0 (not relevant); recall counts raw 1–4.
//
// Usage: node bench/quality.js [--data ../shared/data/cranfield] [--json bench/results/quality.json] [--variants]
//   --variants also scores hybrid fusion settings (k, leg weights) so a change to the defaults can be justified.
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startAllInOne } from "@context-hub/cli";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { data: { type: "string", default: resolve(here, "../../shared/data/cranfield") }, json: { type: "string" }, variants: { type: "boolean", default: false } } });
const log = (message) => process.stderr.write(`${message}\n`);

const readJsonl = (path) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
const docs = readJsonl(resolve(values.data, "docs.jsonl"));
const queries = readJsonl(resolve(values.data, "queries.jsonl"));
const gainOf = { 1: 4, 2: 3, 3: 2, 4: 1, "-1": 0 };
/** query id → (doc id → gain) */
const judgments = new Map();
for (const line of readFileSync(resolve(values.data, "qrels.tsv"), "utf8").split("\n").slice(1)) {
  const [queryId, docId, grade] = line.trim().split("\t");
  if (queryId === undefined || docId === undefined || grade === undefined) continue;
  if (!judgments.has(queryId)) judgments.set(queryId, new Map());
  judgments.get(queryId).set(docId, gainOf[grade] ?? 0);
}

/** nDCG@10 with linear gains and log2 discounts; the ideal ranking sorts every judged document by gain. */
function ndcgAt10(ranked, gains) {
  const dcg = ranked.slice(0, 10).reduce((sum, docId, index) => sum + (gains.get(docId) ?? 0) / Math.log2(index + 2), 0);
  const ideal = [...gains.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

function recallAt100(ranked, gains) {
  const relevant = [...gains.entries()].filter(([, gain]) => gain > 0).map(([docId]) => docId);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, 100));
  return relevant.filter((docId) => top.has(docId)).length / relevant.length;
}

const hub = await startAllInOne({
  env: {
    ...process.env,
    DATABASE_URL: "",
    LOG_LEVEL: "warn",
    CONTEXT_HUB_SUMMARIES: "false",
    CONTEXT_HUB_RATE_READ_PER_MIN: "1000000",
    CONTEXT_HUB_RATE_READ_BURST: "1000000",
    CONTEXT_HUB_RATE_WRITE_PER_MIN: "1000000",
    CONTEXT_HUB_RATE_WRITE_BURST: "1000000",
  },
  port: 0,
  dataDir: "memory://",
});
const client = new Client({ name: "quality", version: "1" });
await client.connect(new StreamableHTTPClientTransport(new URL(hub.url)));
const call = async (name, args) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  return result.structuredContent;
};

try {
  log(`storing ${docs.length} documents…`);
  const docIdOf = new Map();
  const storable = docs.filter((doc) => doc.text.trim() !== "");
  for (let from = 0; from < storable.length; from += 100) {
    const batch = storable.slice(from, from + 100);
    const reply = await call("store_context_batch", { entries: batch.map((doc) => ({ thread_id: "cranfield", source: "user", text: doc.text, metadata: { cranfield_id: doc.id } })) });
    reply.results.forEach((result, index) => docIdOf.set(result.context_id, batch[index].id));
  }
  log(`stored ${docIdOf.size} (documents ${docs.length - storable.length} are empty and cannot be stored); running ${queries.length} queries per tool…`);

  const runs = {
    "full text (match)": (query) => call("fts_search_context", { query, limit: 100 }),
    "full text (any)": (query) => call("fts_search_context", { query, mode: "any", limit: 100 }),
    semantic: (query) => call("semantic_search_context", { query, limit: 100 }),
    hybrid: (query) => call("hybrid_search_context", { query, limit: 100, rerank: false }),
    "hybrid + rerank": (query) => call("hybrid_search_context", { query, limit: 100 }),
  };
  if (values.variants) {
    for (const k of [10, 30, 60, 120]) runs[`hybrid k=${k}`] = (query) => call("hybrid_search_context", { query, limit: 100, rerank: false, rrf_k: k });
    for (const [fts, semantic] of [
      [1, 0.5],
      [1, 0.75],
      [0.75, 1],
      [0.5, 1],
    ])
      runs[`hybrid fts=${fts} semantic=${semantic}`] = (query) => call("hybrid_search_context", { query, limit: 100, rerank: false, fts_weight: fts, semantic_weight: semantic });
    runs["hybrid (fts any)"] = (query) => call("hybrid_search_context", { query, limit: 100, rerank: false, fts_mode: "any" });
    for (const depth of [10, 20, 100]) runs[`hybrid + rerank depth ${depth}`] = (query) => call("hybrid_search_context", { query, limit: 100, rerank_depth: depth });
  }
  const results = {};
  for (const [name, run] of Object.entries(runs)) {
    let ndcg = 0;
    let recall = 0;
    let latency = 0;
    for (const query of queries) {
      const started = performance.now();
      const page = await run(query.text);
      latency += performance.now() - started;
      const ranked = page.results.map((hit) => docIdOf.get(hit.id));
      const gains = judgments.get(query.id) ?? new Map();
      ndcg += ndcgAt10(ranked, gains);
      recall += recallAt100(ranked, gains);
    }
    results[name] = { ndcg10: Number((ndcg / queries.length).toFixed(4)), recall100: Number((recall / queries.length).toFixed(4)), meanMs: Number((latency / queries.length).toFixed(1)) };
    log(`${name.padEnd(34)} nDCG@10 ${results[name].ndcg10.toFixed(4)}  recall@100 ${results[name].recall100.toFixed(4)}  (${results[name].meanMs} ms/query)`);
  }
  console.log(`\nCranfield (${docIdOf.size} documents, ${queries.length} queries)`);
  for (const [name, figures] of Object.entries(results)) console.log(`${name.padEnd(34)} nDCG@10 ${figures.ndcg10.toFixed(4)}  recall@100 ${figures.recall100.toFixed(4)}  ${figures.meanMs} ms/query`);
  if (values.json) {
    mkdirSync(dirname(values.json), { recursive: true });
    writeFileSync(values.json, `${JSON.stringify({ node: process.version, documents: docIdOf.size, queries: queries.length, results }, null, 2)}\n`);
  }
} finally {
  await client.close();
  await hub.close();
}
