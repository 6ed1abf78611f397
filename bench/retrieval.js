// Retrieval benchmark on the embedded default (PGlite, the vector graph in the store process, built-in embedder and
// reranker); --backend pgvector measures pgvector's HNSW index instead.
//
// For each corpus size it loads synthetic notes (bench/retrieval-data.js) straight into a PGlite data directory, builds
// the HNSW index, and measures, as a non-admin principal whose reads run the full access predicate:
//   - p50/p95 of every search mode end to end over MCP (fts_search_context, semantic_search_context,
//     hybrid_search_context with and without reranking), the same searches in the store without transport, and beside
//     each the raw floor: the bare SQL of that leg run straight against PGlite;
//   - over MCP in the same run, the legs as hybrid runs them (full text in any-word mode, and semantic), full text with
//     feedback (fts_search_context's own mode), beside hybrid with and without reranking and without feedback, and where hybrid's time goes (each stage's p50/p95 from
//     explain_query); hybrid's p50 is reported as a multiple of its slower leg's, both for hybrid first on a question
//     (its statistics not kept yet) and for the same call again last (kept, as they were for the legs);
//   - semantic recall@10 of the approximate (HNSW) search against exact search, both under the access predicate;
//   - load time, HNSW build time, index and table sizes, and process memory.
//
// Usage: node bench/retrieval.js [--sizes 10000,100000] [--queries 200] [--json bench/results/retrieval.json]
//          [--ef-search N] [--hnsw-m N] [--ef-construction N] [--build-memory-mb N] [--data-dir DIR] [--backend graph|pgvector]
//          [--full-text-index gin|bm25]
//          [--mcp-only]
// --mcp-only measures over MCP alone (no in-store, raw-SQL or recall figures): the quick run while changing the gateway.
// With DATABASE_URL set (an empty database), the corpus goes to that PostgreSQL server instead, and the store serves
// from it, searching each leg on a connection of its own; it takes --mcp-only, and --data-dir only for the store's
// files beside the database.
// --data-dir keeps the corpus (one size only): it is loaded into DIR when DIR is empty and reused when DIR already
// holds it, so a large corpus is loaded once and measured with several index settings.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import {
  accessPredicate,
  createSqlParams,
  defaultSearchConfig,
  hnswIndexName,
  openSearch,
  openTenantBm25Indexes,
} from "@context-hub/store/testing";
import {
  benchPrincipal,
  builtinDimension,
  builtinEmbedOptions,
  builtinModel,
  loadCorpus,
  makeQueries,
} from "./retrieval-data.js";
import { startRetrievalHub } from "./lib/retrieval-hub.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    queries: { type: "string", default: "200" },
    "ef-search": { type: "string" },
    "hnsw-m": { type: "string" },
    "ef-construction": { type: "string" },
    "build-memory-mb": { type: "string" },
    "data-dir": { type: "string" },
    backend: { type: "string", default: "graph" },
    "full-text-index": { type: "string", default: defaultSearchConfig.bm25Indexes.mode },
    json: { type: "string" },
    "mcp-only": { type: "boolean", default: false },
  },
});
const sizes = values.sizes.split(",").map(Number);
const queryCount = Number(values.queries);
const logger = createLogger("bench", "warn");
if (values["data-dir"] !== undefined && sizes.length !== 1)
  throw new Error("--data-dir keeps one corpus: give exactly one size");
/** A vector-index setting from the command line, or the store's default. */
const setting = (name, fallback) => (values[name] === undefined ? fallback : Number(values[name]));
/** The store's search settings for this run: its defaults, or the index settings given on the command line. */
const searchConfig = {
  ...defaultSearchConfig,
  vectors: {
    ...defaultSearchConfig.vectors,
    efSearch: setting("ef-search", defaultSearchConfig.vectors.efSearch),
    hnswM: setting("hnsw-m", defaultSearchConfig.vectors.hnswM),
    hnswEfConstruction: setting("ef-construction", defaultSearchConfig.vectors.hnswEfConstruction),
    buildMemoryMb: setting("build-memory-mb", defaultSearchConfig.vectors.buildMemoryMb),
  },
  // gin: BM25 in SQL with the caller view's statistics; bm25: the large tenant ranks in its own index.
  bm25Indexes: { ...defaultSearchConfig.bm25Indexes, mode: values["full-text-index"] },
};
if (!["gin", "bm25"].includes(searchConfig.bm25Indexes.mode))
  throw new Error(`--full-text-index must be gin or bm25, not ${searchConfig.bm25Indexes.mode}`);
const log = (message) => process.stderr.write(`${message}\n`);
/** What answers semantic search: the store's in-process graph (the embedded default) or pgvector's HNSW index. */
const backend = values.backend;
if (backend !== "graph" && backend !== "pgvector")
  throw new Error(`--backend must be graph or pgvector, not ${backend}`);
/** A PostgreSQL server's empty database to load and serve from; empty: PGlite in the data directory. */
const databaseUrl = process.env.DATABASE_URL ?? "";
if (databaseUrl !== "" && !values["mcp-only"]) throw new Error("with DATABASE_URL, measure with --mcp-only");

const quantile = (samples, q) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const round = (value) => Number(value.toFixed(2));
const summary = (samples) => ({
  p50: round(quantile(samples, 0.5)),
  p95: round(quantile(samples, 0.95)),
  mean: round(samples.reduce((a, b) => a + b, 0) / samples.length),
});
const mb = (bytes) => round(Number(bytes) / 1024 / 1024);

/** Runs `fn` for every query after a warm-up of ten, and returns its latencies in ms. */
async function timeAll(queries, fn) {
  for (const query of queries.slice(0, 10)) await fn(query);
  const samples = [];
  for (const query of queries) {
    const started = performance.now();
    await fn(query);
    samples.push(performance.now() - started);
  }
  return summary(samples);
}

/**
 * Runs every search of `searches` for each query in turn, after a warm-up of ten queries, and returns each one's
 * latencies in ms; `stages` holds the p50/p95 of each stage the searches' replies report in explain.stages_ms.
 */
async function timeInterleaved(queries, searches) {
  for (const query of queries.slice(0, 10)) for (const search of Object.values(searches)) await search(query);
  const samples = Object.fromEntries(Object.keys(searches).map((name) => [name, []]));
  const stages = new Map();
  for (const query of queries) {
    for (const [name, search] of Object.entries(searches)) {
      const started = performance.now();
      const reply = await search(query);
      samples[name].push(performance.now() - started);
      for (const [stage, ms] of Object.entries(reply?.explain?.stages_ms ?? {}))
        stages.set(stage, [...(stages.get(stage) ?? []), ms]);
    }
  }
  return {
    ...Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summary(values)])),
    stages: Object.fromEntries([...stages].map(([stage, values]) => [stage, summary(values)])),
  };
}

const vectorLiteral = (vector) => `[${Array.from(vector, (x) => x.toFixed(6)).join(",")}]`;

/** The bare SQL of each leg, with the same access predicate, as a floor for what the store adds around it. */
function rawLegs(db) {
  return {
    async fts(text) {
      const params = createSqlParams();
      const query = `plainto_tsquery('english', ${params.add(text)})`;
      await db.query(
        `SELECT e.id, ts_rank_cd(e.search_vector, ${query}) AS score FROM entries e
         WHERE e.search_vector @@ ${query} AND ${accessPredicate(benchPrincipal, "e", params)}
         ORDER BY score DESC, e.id DESC LIMIT 11`,
        params.values,
      );
    },
    async ann(vector) {
      await db.transaction(async (tx) => {
        await tx.query(
          "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)",
          [String(searchConfig.vectors.efSearch)],
        );
        const params = createSqlParams();
        const distance = `(c.embedding::vector(${builtinDimension})) <=> ${params.add(vectorLiteral(vector))}::vector(${builtinDimension})`;
        await tx.query(
          `SELECT c.entry_id, ${distance} AS distance FROM chunks c JOIN entries e ON e.id = c.entry_id
           WHERE c.embedding_model = ${params.add(builtinModel)} AND vector_dims(c.embedding) = ${builtinDimension} AND c.tenant = ${params.add(benchPrincipal.tenant)}
             AND ${accessPredicate(benchPrincipal, "e", params)}
           ORDER BY ${distance} LIMIT 33`,
          params.values,
        );
      });
    },
  };
}

async function measureInProcess(dataDir, queries) {
  const db = await openDatabase({ url: "", dataDir, poolMax: 1 }, logger);
  try {
    const exact = await openSearch(
      db,
      { ...searchConfig, vectors: { ...searchConfig.vectors, exactBelowChunks: 100_000_000, buildIndexes: false } },
      logger,
    );
    const rssBefore = process.memoryUsage().rss;
    const buildStarted = performance.now();
    // The graph is built from the stored chunks as the store opens it, and saved beside PGlite's files for the server to load.
    const ann =
      backend === "graph"
        ? await openSearch(
            db,
            { ...searchConfig, vectors: { ...searchConfig.vectors, exactBelowChunks: 0 } },
            logger,
            "apply",
            { kind: "graph", qdrant: undefined },
            join(dataDir, "vector-graphs"),
          )
        : await openSearch(
            db,
            { ...searchConfig, vectors: { ...searchConfig.vectors, exactBelowChunks: 0, buildIndexes: false } },
            logger,
          );
    await ann.vectors.buildIndex(builtinModel, builtinDimension);
    const buildMs = performance.now() - buildStarted;
    const rssAfter = process.memoryUsage().rss;
    const { rows: sizeRows } = await db.query(
      `SELECT pg_relation_size(to_regclass($1)) AS hnsw, pg_relation_size('entries_search_idx') AS gin,
              pg_total_relation_size('entries') AS entries, pg_total_relation_size('chunks') AS chunks, (SELECT count(*) FROM chunks) AS chunk_count`,
      [hnswIndexName(builtinModel, builtinDimension)],
    );
    const sizes = sizeRows[0];

    const { loadWordVectors, embedText, toDefaultCacheDir } = await import("@context-hub/text");
    const vectors = await loadWordVectors(toDefaultCacheDir(process.env));
    const queryVectors = new Map(
      queries.map((query) => [query, Array.from(embedText(query, vectors, builtinEmbedOptions))]),
    );
    const raw = rawLegs(db);
    const search = {
      fts: (service, text, mode = "match") =>
        service.fullText(benchPrincipal, {
          query: text,
          mode,
          language: "",
          filter: undefined,
          limit: 10,
          offset: 0,
          highlight: false,
        }),
    };
    const semantic = (service, text) =>
      service.semantic(benchPrincipal, {
        model: builtinModel,
        vector: queryVectors.get(text),
        filter: undefined,
        limit: 10,
        offset: 0,
      });

    const result = {
      hnsw: {
        buildMs: round(buildMs),
        indexMb: mb(sizes.hnsw),
        rssGrowthMb: mb(rssAfter - rssBefore),
        rssMb: mb(rssAfter),
      },
      storage: {
        entriesMb: mb(sizes.entries),
        chunksMb: mb(sizes.chunks),
        ginMb: mb(sizes.gin),
        chunks: Number(sizes.chunk_count),
      },
      store: {
        fts_match: await timeAll(queries, (text) => search.fts(ann.service, text)),
        fts_any: await timeAll(queries, (text) => search.fts(ann.service, text, "any")),
        semantic_ann: await timeAll(queries, (text) => semantic(ann.service, text)),
      },
      floor: {
        fts_match: await timeAll(queries, (text) => raw.fts(text)),
        // pgvector's bare index scan; the graph has no SQL of its own to time.
        semantic_ann:
          backend === "graph" ? undefined : await timeAll(queries, (text) => raw.ann(queryVectors.get(text))),
      },
    };
    // Recall@10 of the approximate search against the exact one, both under the access predicate, for several ef_search values.
    // The exact scans are the slow part at a million chunks, so they run once: the ground truth, timed (no warm-up).
    const truth = new Map();
    const exactSamples = [];
    for (const query of queries) {
      const started = performance.now();
      const hits = (await semantic(exact.service, query)).hits;
      exactSamples.push(performance.now() - started);
      truth.set(
        query,
        hits.map((hit) => hit.entry.id),
      );
    }
    result.store.semantic_exact = summary(exactSamples);
    result.recall = [];
    // A graph's search expansion is set when it is built, so the graph is measured at the store's setting only.
    const efSearches = [...new Set([100, 200, 400, 1000, searchConfig.vectors.efSearch])].sort((a, b) => a - b);
    for (const efSearch of backend === "graph" ? [searchConfig.vectors.efSearch] : efSearches) {
      const tuned =
        backend === "graph"
          ? ann
          : await openSearch(
              db,
              {
                ...searchConfig,
                vectors: { ...searchConfig.vectors, efSearch, exactBelowChunks: 0, buildIndexes: false },
              },
              logger,
            );
      let found = 0;
      let expected = 0;
      let served = 0;
      for (const query of queries) {
        const approximate = await semantic(tuned.service, query);
        if (approximate.strategy === "ann") served++;
        const got = new Set(approximate.hits.map((hit) => hit.entry.id));
        expected += truth.get(query).length;
        found += truth.get(query).filter((id) => got.has(id)).length;
      }
      result.recall.push({
        efSearch,
        at10: round(found / expected),
        servedByIndex: served,
        latency: await timeAll(queries, (text) => semantic(tuned.service, text)),
      });
      if (tuned !== ann) await tuned.close();
    }
    result.index = {
      backend,
      m: searchConfig.vectors.hnswM,
      efConstruction: searchConfig.vectors.hnswEfConstruction,
      efSearch: searchConfig.vectors.efSearch,
    };
    await ann.close();
    await exact.close();
    return result;
  } finally {
    await db.close();
  }
}

async function measureOverMcp(dataDir, queries) {
  const { client, close } = await startRetrievalHub(dataDir, {
    DATABASE_URL: databaseUrl,
    STORE_HNSW_EF_SEARCH: String(searchConfig.vectors.efSearch),
    STORE_HNSW_M: String(searchConfig.vectors.hnswM),
    STORE_HNSW_EF_CONSTRUCTION: String(searchConfig.vectors.hnswEfConstruction),
    STORE_HNSW_BUILD_MEMORY_MB: String(searchConfig.vectors.buildMemoryMb),
    STORE_VECTOR_BACKEND: backend,
    STORE_FULL_TEXT_INDEX: searchConfig.bm25Indexes.mode,
  });
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
    return result.structuredContent;
  };
  try {
    // A store with many chunks serves before its vector graph has caught up (exact scans meanwhile): measure the graph.
    if (backend === "graph") {
      const began = performance.now();
      while ((await call("semantic_search_context", { query: queries[0] })).strategy !== "ann") {
        if (performance.now() - began > 1_800_000) throw new Error("the vector graph did not catch up within 30 min");
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      log(`  vector graph ready after ${((performance.now() - began) / 1000).toFixed(1)} s of serving`);
    }
    // Every query goes through each search in turn, so a change in the machine's load falls on all of them alike and
    // the ratios between them hold within the run.
    const { stages, ...latencies } = await timeInterleaved(queries, {
      // The gateway's fixed cost: a search whose SQL finds nothing (MCP over HTTP, auth, validation, gRPC, rendering).
      noop: () => call("fts_search_context", { query: "zzzqqqxxx" }),
      // Hybrid as a caller gets it by default, first, so that no other search of the same question has left its
      // statistics kept (other questions' may, as in use); explain_query adds each stage's time to the reply.
      hybrid_search_context: (query) => call("hybrid_search_context", { query, explain_query: true }),
      fts_search_context: (query) => call("fts_search_context", { query }),
      // The legs as hybrid runs them, one tool each: full text over any word and semantic; and full text's own feedback mode.
      fts_any: (query) => call("fts_search_context", { query, mode: "any" }),
      fts_any_feedback: (query) => call("fts_search_context", { query, mode: "any", feedback: true }),
      semantic_search_context: (query) => call("semantic_search_context", { query }),
      hybrid_without_rerank: (query) => call("hybrid_search_context", { query, rerank: false }),
      // What feedback adds to hybrid: the same call with the full-text leg ranked by the query alone.
      hybrid_without_feedback: (query) => call("hybrid_search_context", { query, fts_feedback: false }),
      // Deep reading: the same hybrid with three passages of each result, and deep_search's passage ranking.
      hybrid_passages: (query) => call("hybrid_search_context", { query, passages_per_entry: 3 }),
      deep_search: (query) => call("deep_search", { query }),
      // The default hybrid again, last: the question's statistics are kept by now, as they were for the legs above.
      hybrid_again: (query) => call("hybrid_search_context", { query }),
    });
    return { ...latencies, hybrid_stages: stages };
  } finally {
    await close();
  }
}

/** Loads the corpus into a fresh data directory, or finds it already loaded there (`--data-dir`). */
async function prepareCorpus(dataDir, size) {
  // The store's own files (the vector graph) stay in the data directory whichever database holds the entries.
  mkdirSync(dataDir, { recursive: true });
  const db = await openDatabase({ url: databaseUrl, dataDir, poolMax: 1 }, logger);
  try {
    const corpus = await loadOrReuse(db, dataDir, size);
    if (searchConfig.bm25Indexes.mode === "bm25") {
      // The store would build it in the background after it starts; built here, the timings are the index's own.
      const started = performance.now();
      const indexes = await openTenantBm25Indexes(db, searchConfig.bm25Indexes, searchConfig.bm25, logger);
      await indexes.maintain();
      await indexes.close();
      corpus.bm25IndexMs = round(performance.now() - started);
      log(`${size} entries: tenants' BM25 indexes ready after ${corpus.bm25IndexMs} ms`);
    }
    return corpus;
  } finally {
    await db.close();
  }
}

async function loadOrReuse(db, dataDir, size) {
  if (databaseUrl !== "") {
    const { rows } = await db.query("SELECT count(*)::int AS entries FROM entries");
    if (rows[0].entries !== 0) throw new Error(`DATABASE_URL's database already holds ${rows[0].entries} entries`);
  }
  if (databaseUrl !== "" || !existsSync(join(dataDir, "entries-loaded"))) {
    const load = await loadCorpus(db, size, { log });
    // A server's database is loaded afresh every run; a data directory remembers that it holds the corpus.
    if (databaseUrl === "") writeFileSync(join(dataDir, "entries-loaded"), `${size}\n`);
    return { ms: round(load.loadMs), embedMs: round(load.embedMs), threads: load.threads, reused: false };
  }
  const { rows } = await db.query(
    "SELECT count(*)::int AS entries, count(DISTINCT thread_id)::int AS threads FROM entries",
  );
  if (rows[0].entries !== size) throw new Error(`${dataDir} holds ${rows[0].entries} entries, not ${size}`);
  return { ms: 0, embedMs: 0, threads: rows[0].threads, reused: true };
}

const results = {};
for (const size of sizes) {
  const kept = values["data-dir"];
  const root = kept ?? mkdtempSync(join(tmpdir(), "context-hub-bench-retrieval-"));
  const dataDir = kept ?? join(root, "data");
  try {
    log(
      `${size} entries: ${kept !== undefined && existsSync(join(dataDir, "entries-loaded")) ? "reusing the corpus in" : "loading into"} ${dataDir}…`,
    );
    const load = await prepareCorpus(dataDir, size);
    log(
      `${size} entries: ${load.reused ? "reused" : `loaded in ${(load.ms / 1000).toFixed(1)} s (embedding ${(load.embedMs / 1000).toFixed(1)} s)`}; measuring the store…`,
    );
    const queries = makeQueries(queryCount, 11);
    const inProcess = values["mcp-only"] ? undefined : await measureInProcess(dataDir, queries);
    log(`${size} entries: measuring over MCP…`);
    const mcp = await measureOverMcp(dataDir, queries);
    results[size] = {
      load,
      ...inProcess,
      mcp,
      uptime: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
    };
    log(JSON.stringify(results[size], null, 2));
  } finally {
    if (kept === undefined) rmSync(root, { recursive: true, force: true });
  }
}

const line = (label, value, floor) =>
  `${label.padEnd(34)} p50 ${String(value.p50).padStart(8)} ms  p95 ${String(value.p95).padStart(8)} ms${floor ? `   (raw SQL floor p50 ${floor.p50} / p95 ${floor.p95} ms)` : ""}`;
for (const [size, result] of Object.entries(results)) {
  const queries = queryCount;
  const { mcp, floor = {} } = result;
  console.log(
    `\n== ${size} entries (${result.storage?.chunks ?? "?"} chunks, ${result.load.threads} threads, 2 tenants; full-text index ${searchConfig.bm25Indexes.mode}; load average ${result.uptime}) ==`,
  );
  console.log(line("MCP no-op search (matches nothing)", mcp.noop));
  console.log(line("MCP fts_search_context", mcp.fts_search_context, floor.fts_match));
  console.log(line("MCP fts_search_context (any)", mcp.fts_any));
  console.log(line("MCP fts_search_context (any, feedback)", mcp.fts_any_feedback));
  console.log(line("MCP semantic_search_context", mcp.semantic_search_context, floor.semantic_ann));
  console.log(line("MCP hybrid_search_context (rerank)", mcp.hybrid_search_context));
  console.log(line("MCP hybrid_search_context (rerank, again)", mcp.hybrid_again));
  console.log(line("MCP hybrid_search_context (no rerank)", mcp.hybrid_without_rerank));
  console.log(line("MCP hybrid_search_context (no feedback)", mcp.hybrid_without_feedback));
  console.log(line("MCP hybrid_search_context (passages_per_entry 3)", mcp.hybrid_passages));
  console.log(line("MCP deep_search (defaults)", mcp.deep_search));
  // Hybrid's legs are plain any-word full text and semantic; its feedback re-scores their candidates afterwards.
  const slower = Math.max(mcp.fts_any.p50, mcp.semantic_search_context.p50);
  console.log(
    `hybrid p50 / slower leg's p50 (${slower} ms): rerank ×${(mcp.hybrid_search_context.p50 / slower).toFixed(2)}, again ×${(mcp.hybrid_again.p50 / slower).toFixed(2)}, no rerank ×${(mcp.hybrid_without_rerank.p50 / slower).toFixed(2)}`,
  );
  console.log(
    `hybrid (rerank) stages from explain_query, p50 / p95 ms: ${Object.entries(mcp.hybrid_stages)
      .map(([stage, value]) => `${stage} ${value.p50} / ${value.p95}`)
      .join(", ")}`,
  );
  if (result.store === undefined) continue;
  console.log(line("store full text (match)", result.store.fts_match, floor.fts_match));
  console.log(line("store full text (any)", result.store.fts_any));
  console.log(
    line(`store semantic (${backend === "graph" ? "graph" : "HNSW"})`, result.store.semantic_ann, floor.semantic_ann),
  );
  console.log(line("store semantic (exact)", result.store.semantic_exact));
  console.log(
    `${backend === "graph" ? "graph in the store process" : "pgvector HNSW"} m=${result.index.m}, ef_construction=${result.index.efConstruction}; the store's ef_search is ${result.index.efSearch}`,
  );
  for (const row of result.recall)
    console.log(
      `  ef_search ${String(row.efSearch).padStart(4)}: recall@10 vs exact (ACL filtered) ${row.at10.toFixed(3)}, store semantic p50 ${row.latency.p50} / p95 ${row.latency.p95} ms (${row.servedByIndex}/${queries} served by the index)`,
    );
  console.log(
    `${backend === "graph" ? "graph" : "HNSW"} build ${(result.hnsw.buildMs / 1000).toFixed(1)} s, index ${backend === "graph" ? "(in memory)" : `${result.hnsw.indexMb} MB`}, RSS +${result.hnsw.rssGrowthMb} MB (process ${result.hnsw.rssMb} MB); entries ${result.storage.entriesMb} MB, chunks ${result.storage.chunksMb} MB, GIN ${result.storage.ginMb} MB; load ${result.load.reused ? "reused" : `${(result.load.ms / 1000).toFixed(1)} s`}`,
  );
}
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(
    values.json,
    `${JSON.stringify({ node: process.version, sizes, queries: queryCount, results }, null, 2)}\n`,
  );
}
