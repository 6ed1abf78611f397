import type { Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";
import { createEntryRepository } from "../entries/entry-repository.js";
import { createGraphVectorIndex } from "../vectors/graph-vector-index.js";
import { createGrepRunner } from "./grep-runner.js";
import { createPostgresVectorIndex } from "../vectors/postgres-vector-index.js";
import { createQdrantCollections } from "../vectors/qdrant-collections.js";
import type { VectorBackendConfig } from "../vectors/qdrant-config.js";
import { createQdrantVectorIndex } from "../vectors/qdrant-vector-index.js";
import { createSearchService } from "./search.js";
import type { SearchService } from "./search-model.js";
import type { SearchConfig } from "./search-config.js";
import { createSearchRepository } from "./search-repository.js";
import { createStatisticsMaintenance, type StatisticsMaintenance } from "./search-statistics.js";
import { createOutlineWork, inlineOutlineWork, type OutlineWorkOptions } from "./outline-work.js";
import { applyTextSearchLanguage } from "./text-search-language.js";
import { openTenantBm25Indexes, type TenantBm25Indexes } from "./bm25-indexes.js";
import type { VectorIndex } from "../vectors/vector-index.js";
import { createVectorOutboxRelay, setVectorOutbox, type VectorOutboxRelay } from "../vectors/vector-outbox.js";

/** Search, ready to serve, with what must be released when the store stops. */
export interface OpenSearch {
  service: SearchService;
  vectors: VectorIndex;
  /** The relay feeding Qdrant from the outbox (Qdrant backend only). */
  relay: VectorOutboxRelay | undefined;
  /** The language the full-text index uses. */
  language: string;
  /** Tenants' own BM25 indexes (`engine` says whether they are in use). */
  bm25Indexes: TenantBm25Indexes;
  close(): Promise<void>;
}

/**
 * The vector index `backend` names, over PostgreSQL's own vectors (whose HNSW indexes refresh `statistics` when
 * built): PostgreSQL's alone with the outbox off, the graph over them, or Qdrant fed by the outbox relay.
 */
async function createVectorBackend(
  db: SqlDatabase,
  config: SearchConfig,
  logger: Logger,
  backend: VectorBackendConfig,
  graphDirectory: string | undefined,
  statistics: Pick<StatisticsMaintenance, "refresh">,
): Promise<{ vectors: VectorIndex; relay: VectorOutboxRelay | undefined }> {
  // With the graph backend PostgreSQL builds no HNSW index of its own: its exact scan is the graph's fallback.
  const postgresSettings = backend.kind === "graph" ? { ...config.vectors, buildIndexes: false } : config.vectors;
  const postgresVectors = createPostgresVectorIndex({
    db,
    logger,
    settings: postgresSettings,
    onIndexBuilt: () => statistics.refresh(),
  });
  let vectors: VectorIndex = postgresVectors;
  let relay: VectorOutboxRelay | undefined;
  if (backend.qdrant === undefined) {
    if (await setVectorOutbox(db, false))
      logger.info("the vector outbox is off: semantic search runs on PostgreSQL's vectors");
    if (backend.kind === "graph")
      vectors = createGraphVectorIndex({
        db,
        logger,
        settings: config.vectors,
        directory: graphDirectory,
        fallback: postgresVectors,
      });
  } else {
    const qdrant = backend.qdrant;
    const collections = createQdrantCollections(qdrant, logger);
    vectors = createQdrantVectorIndex({ db, logger, collections, settings: qdrant, fallback: postgresVectors });
    relay = createVectorOutboxRelay(db, collections, logger, {
      batch: qdrant.relayBatch,
      idleMs: qdrant.relayIdleMs,
      maxBackoffMs: qdrant.relayMaxBackoffMs,
    });
  }
  return { vectors, relay };
}

/**
 * Readies search over a migrated database before the store serves: brings
 * the full-text index to the configured language (rebuilding it when that
 * changed, or refusing in `verify` mode), builds the HNSW index of every
 * stored embedding space that lacks one (PGlite: now; a server: in the
 * background), and starts the grep workers on demand. With the graph
 * backend it loads the saved graphs from `graphDirectory` (undefined: kept in
 * memory only) and catches them up with the stored chunks. With the Qdrant
 * backend it also readies the collections and starts the outbox relay; with
 * pgvector it makes sure the outbox is off (no triggers, nothing queued).
 * With `textWork`, outlines of long texts are parsed in worker threads under
 * its budget (see `OutlineWork`).
 */
export async function openSearch(
  db: SqlDatabase,
  config: SearchConfig,
  logger: Logger,
  migrations: "apply" | "verify" = "apply",
  backend: VectorBackendConfig = { kind: "pgvector", qdrant: undefined },
  graphDirectory: string | undefined = undefined,
  textWork: OutlineWorkOptions | undefined = undefined,
): Promise<OpenSearch> {
  const language = await applyTextSearchLanguage(db, config.language, migrations, logger);
  const bm25Indexes = await openTenantBm25Indexes(db, config.bm25Indexes, config.bm25, logger, migrations);
  const repository = createSearchRepository(
    db,
    {
      bm25: config.bm25,
      statisticsTtlMs: config.bm25StatisticsTtlMs,
      candidates: config.bm25Candidates,
      termsOneByOne: config.bm25TermsOneByOne,
      statisticsSample: config.statisticsSample,
    },
    bm25Indexes,
  );
  const builtin = await repository.builtinLanguages();
  const offered =
    config.queryLanguages.length === 0 ? builtin : config.queryLanguages.filter((name) => builtin.includes(name));
  const allowed = [...new Set([language, ...offered])].sort();
  const statistics = createStatisticsMaintenance(db, logger);
  await statistics.refresh();
  const { vectors, relay } = await createVectorBackend(db, config, logger, backend, graphDirectory, statistics);
  await vectors.prepare();
  await relay?.start();
  const grep = createGrepRunner({ maxWorkers: config.grepWorkers });
  // Outlines of long texts are parsed in worker threads under the store's text budget (the calling thread without one: tests).
  const outlines = textWork === undefined ? inlineOutlineWork : createOutlineWork(textWork);
  const service = createSearchService({
    repository,
    entries: createEntryRepository(db),
    vectors,
    grep,
    languages: { configured: language, allowed },
    outlines,
  });
  return {
    service,
    vectors,
    relay,
    language,
    bm25Indexes,
    async close() {
      await bm25Indexes.close();
      await relay?.stop();
      await statistics.close();
      await grep.close();
      await outlines.close();
      await vectors.close();
    },
  };
}
