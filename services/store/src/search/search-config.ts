import { z } from "zod";
import { envBoolean, envDecimal, envEnum, envInteger, envString } from "@context-hub/common";
import { defaultVectorIndexSettings, type PostgresVectorIndexSettings } from "../vectors/postgres-vector-index.js";
import type { ViewSampleSettings } from "./view-sample.js";
import { languageNamePattern } from "./text-search.js";

/** The store's search settings (environment variables in docs/retrieval.md). */
export interface SearchConfig {
  /** The text-search configuration the full-text index is built with (changing it rebuilds the index at start-up). */
  language: string;
  /** Configurations a query may ask for instead; empty means every built-in configuration of the database. */
  queryLanguages: string[];
  vectors: PostgresVectorIndexSettings;
  /** Most grep worker threads running at once. */
  grepWorkers: number;
  /** BM25's parameters for full-text ranking. */
  bm25: Bm25Parameters;
  /** How long a caller view's entry count, average length and document frequencies are reused by full-text ranking (0: counted for every query). */
  bm25StatisticsTtlMs: number;
  /** Most entries a pruned any-word ranking scores first, and matches below which it is not pruned (see bm25-pruning.ts); 0 ranks every match. */
  bm25Candidates: number;
  /**
   * Most distinct terms a ranking scores one at a time, each frequency read by a single-term ts_rank (bm25-sql.ts,
   * termFrequencySql); a query with more unnests every candidate's vector, which costs less past about eight terms
   * (docs/performance.md). 0: always unnested.
   */
  bm25TermsOneByOne: number;
  /** When a large view's full-text statistics are estimated from a sample of it (view-sample.ts). */
  statisticsSample: ViewSampleSettings;
  /** Tenants' own BM25 indexes (see bm25-indexes.ts). */
  bm25Indexes: Bm25IndexSettings;
}

/** Which full-text index ranks a large tenant's any-word searches. */
export type FullTextIndexMode = "auto" | "bm25" | "gin";

/** When tenants get their own BM25 index (pg_textsearch), ranking inside itself. */
export interface Bm25IndexSettings {
  /** `bm25`: required (start fails without pg_textsearch); `auto`: when the database has it; `gin`: never. */
  mode: FullTextIndexMode;
  /** A tenant gets its own index once it holds this many searchable entries. */
  minEntries: number;
  /** How often the store looks for tenants that reached `minEntries` (0: only at start-up). */
  checkMs: number;
  /** Count every tenant's entries outright below this many rows in `entries`; past it, ask the planner's statistics. */
  countAllBelow?: number | undefined;
}

/** BM25's term-frequency saturation `k1` and length normalisation `b` (0 = none, 1 = full). */
export interface Bm25Parameters {
  k1: number;
  b: number;
}

const languageList = envString("").refine(
  (value) => value.split(",").every((name) => name.trim() === "" || languageNamePattern.test(name.trim())),
  {
    message: "expected a comma-separated list of text-search configuration names, e.g. english,simple,german",
  },
);

/** The search variables of the store's environment, merged into its config schema. */
export const searchEnvSchema = {
  STORE_SEARCH_LANGUAGE: envString("english").refine((value) => languageNamePattern.test(value), {
    message: "expected a text-search configuration name, e.g. english",
  }),
  STORE_SEARCH_QUERY_LANGUAGES: languageList,
  STORE_VECTOR_EXACT_BELOW: envInteger(defaultVectorIndexSettings.exactBelowChunks, 0, 10_000_000),
  STORE_HNSW_EF_SEARCH: envInteger(defaultVectorIndexSettings.efSearch, 1, 1_000),
  STORE_HNSW_M: envInteger(defaultVectorIndexSettings.hnswM, 2, 100),
  STORE_HNSW_EF_CONSTRUCTION: envInteger(defaultVectorIndexSettings.hnswEfConstruction, 4, 1_000),
  STORE_HNSW_BUILD_MEMORY_MB: envInteger(defaultVectorIndexSettings.buildMemoryMb, 16, 4_096),
  STORE_HNSW_BUILD: envBoolean(defaultVectorIndexSettings.buildIndexes),
  STORE_VECTOR_GRAPH_START_WAIT_MS: envInteger(defaultVectorIndexSettings.graphStartWaitMs, 0, 3_600_000),
  STORE_GREP_WORKERS: envInteger(2, 1, 64),
  STORE_BM25_K1: envDecimal(1.2, 0, 10),
  STORE_BM25_B: envDecimal(0.75, 0, 1),
  STORE_BM25_STATISTICS_SECONDS: envInteger(10, 0, 3_600),
  STORE_BM25_CANDIDATES: envInteger(4_000, 0, 1_000_000),
  STORE_STATISTICS_SAMPLE_ENTRIES: envInteger(1_000, 0, 1_000_000),
  STORE_STATISTICS_SAMPLE_ABOVE: envInteger(20_000, 1, 1_000_000_000),
  STORE_FULL_TEXT_INDEX: envEnum(["gin", "bm25", "auto"] as const, "gin"),
  STORE_BM25_INDEX_MIN_ENTRIES: envInteger(10_000, 1, 1_000_000_000),
  STORE_BM25_INDEX_CHECK_SECONDS: envInteger(300, 0, 86_400),
};

type SearchEnv = { [K in keyof typeof searchEnvSchema]: z.infer<(typeof searchEnvSchema)[K]> };

/** The search settings from parsed environment variables. */
export function toSearchConfig(env: SearchEnv): SearchConfig {
  return {
    language: env.STORE_SEARCH_LANGUAGE,
    queryLanguages: env.STORE_SEARCH_QUERY_LANGUAGES.split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
    vectors: {
      exactBelowChunks: env.STORE_VECTOR_EXACT_BELOW,
      efSearch: env.STORE_HNSW_EF_SEARCH,
      hnswM: env.STORE_HNSW_M,
      hnswEfConstruction: env.STORE_HNSW_EF_CONSTRUCTION,
      buildMemoryMb: env.STORE_HNSW_BUILD_MEMORY_MB,
      buildIndexes: env.STORE_HNSW_BUILD,
      graphStartWaitMs: env.STORE_VECTOR_GRAPH_START_WAIT_MS,
    },
    grepWorkers: env.STORE_GREP_WORKERS,
    bm25: { k1: env.STORE_BM25_K1, b: env.STORE_BM25_B },
    bm25StatisticsTtlMs: env.STORE_BM25_STATISTICS_SECONDS * 1000,
    bm25Candidates: env.STORE_BM25_CANDIDATES,
    bm25TermsOneByOne: 6,
    statisticsSample: { entries: env.STORE_STATISTICS_SAMPLE_ENTRIES, above: env.STORE_STATISTICS_SAMPLE_ABOVE },
    bm25Indexes: {
      mode: env.STORE_FULL_TEXT_INDEX,
      minEntries: env.STORE_BM25_INDEX_MIN_ENTRIES,
      checkMs: env.STORE_BM25_INDEX_CHECK_SECONDS * 1000,
    },
  };
}

/** The settings a store has when its environment sets none of the search variables. */
export const defaultSearchConfig: SearchConfig = toSearchConfig(z.object(searchEnvSchema).parse({}));
