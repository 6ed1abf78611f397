/**
 * Building blocks of the vector-index contract suite: a store (its services,
 * SearchService among them, over gRPC) on a fresh PGlite database, answering
 * semantic search with pgvector, with the graph in the store process, or with Qdrant (the stand-in, or the real
 * Qdrant at QDRANT_URL) behind a proxy that can cut the link.
 */
import { randomBytes } from "node:crypto";
import { createGrpcClient, metricsRegistry, type GrpcClient, type RunningService } from "@context-hub/common";
import { searchV1 } from "@context-hub/proto";
import { loadStoreConfig, openDatabase, startStore, type SqlDatabase } from "@context-hub/store";
import { collectionName, createQdrantClient } from "@context-hub/store/testing";
import { dimension, testModel } from "../retrieval/retrieval-fixtures.js";
import { logger, type StoreClient } from "../store/store-fixtures.js";
import { createStoreClient } from "../support/store-client.js";
import { startOutageProxy, startQdrantTarget, type OutageProxy, type QdrantTarget } from "../support/qdrant-server.js";

export type SearchClient = GrpcClient<typeof searchV1.SearchService>;

/** The retrieval fixtures' model and dimension, since entries are committed through their helper. */
export const vectorModel = testModel;
export const vectorDimension = dimension;

/** What the suite drives, whichever backend answers. */
export interface VectorHarness {
  backend: "pgvector" | "graph" | "qdrant";
  db: SqlDatabase;
  client: StoreClient;
  searchClient: SearchClient;
  /** Resolves once the index reflects every committed write (pgvector: at once; Qdrant: the outbox is delivered). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface QdrantHarness extends VectorHarness {
  backend: "qdrant";
  qdrant: QdrantTarget;
  proxy: OutageProxy;
  /** A client straight to Qdrant (not through the proxy), for looking at points. */
  direct: ReturnType<typeof createQdrantClient>;
  collection: string;
  /** Restarts the store on the same database (the relay with it), its environment changed by `overrides`. */
  restartStore(overrides?: Record<string, string>): Promise<void>;
}

interface StartedService {
  service: RunningService;
  client: StoreClient;
  searchClient: SearchClient;
  close(): Promise<void>;
}

async function startService(env: Record<string, string>, db: SqlDatabase): Promise<StartedService> {
  const config = loadStoreConfig({
    STORE_PORT: "0",
    STORE_OPS_PORT: "-1",
    STORE_DATA_DIR: "memory://",
    LOG_LEVEL: "silent",
    ...env,
  });
  const service = await startStore(config, logger, { database: db });
  const address = `127.0.0.1:${service.port}`;
  const client = createStoreClient({ address, peer: "store", deadlineMs: 60_000 });
  const searchClient = createGrpcClient(searchV1.SearchService, { address, peer: "store", deadlineMs: 60_000 });
  return {
    service,
    client,
    searchClient,
    async close() {
      client.close();
      searchClient.close();
      await service.close();
    },
  };
}

/** A store over an in-memory PGlite whose vectors need no outside service; `settle` has nothing to wait for. */
async function startPgliteHarness(backend: "pgvector" | "graph", env: Record<string, string>): Promise<VectorHarness> {
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  const started = await startService(env, db);
  return {
    backend,
    db,
    client: started.client,
    searchClient: started.searchClient,
    // pgvector indexes in the commit; the graph is told of every chunk as its commit returns, before the reply leaves the store.
    settle: async () => undefined,
    async close() {
      await started.close();
      await db.close();
    },
  };
}

export const startPgvectorHarness = () => startPgliteHarness("pgvector", {});

/**
 * A store on the graph backend. `STORE_VECTOR_EXACT_BELOW=0`, so the graph answers every search however few chunks
 * there are (a real store compares exactly below 2,000 chunks).
 */
export const startGraphHarness = (overrides: Record<string, string> = {}) =>
  startPgliteHarness("graph", { STORE_VECTOR_BACKEND: "graph", STORE_VECTOR_EXACT_BELOW: "0", ...overrides });

/** Polls a condition (of the database or the metrics: no event announces it) until it holds. */
export async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Until the outbox is empty: every committed change has reached the index. Counts rows itself, so the relay's gauges stay the relay's. */
export async function waitForOutboxDrained(db: SqlDatabase, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    "delivering the vector outbox",
    async () => {
      const { rows } = await db.query<{ pending: number }>("SELECT count(*)::integer AS pending FROM vector_outbox");
      return rows[0]?.pending === 0;
    },
    timeoutMs,
  );
}

/** A store on Qdrant; `overrides` changes its environment (e.g. a relay that waits long between rounds). */
export async function startQdrantHarness(overrides: Record<string, string> = {}): Promise<QdrantHarness> {
  const qdrant = await startQdrantTarget();
  const proxy = await startOutageProxy(qdrant.url);
  // A prefix of its own, so runs against a shared real Qdrant never meet.
  const prefix = `context_hub_test_${randomBytes(4).toString("hex")}`;
  const env = {
    STORE_VECTOR_BACKEND: "qdrant",
    STORE_QDRANT_URL: proxy.url,
    STORE_QDRANT_API_KEY: qdrant.apiKey,
    STORE_QDRANT_COLLECTION: prefix,
    STORE_QDRANT_TIMEOUT_MS: "2000",
    STORE_QDRANT_RELAY_IDLE_MS: "10",
    STORE_QDRANT_RELAY_MAX_BACKOFF_MS: "400",
    // Small pages, so the suite exercises paging past hits that fail the re-check.
    STORE_QDRANT_SEARCH_PAGE: "8",
    ...overrides,
  };
  const config = loadStoreConfig(env).vectors;
  if (config.qdrant === undefined) throw new Error("the Qdrant settings did not load");
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  let started = await startService(env, db);
  const direct = createQdrantClient({ ...config.qdrant, url: qdrant.url });
  const harness: QdrantHarness = {
    backend: "qdrant",
    db,
    qdrant,
    proxy,
    direct,
    collection: collectionName(prefix, vectorModel, vectorDimension),
    client: started.client,
    searchClient: started.searchClient,
    settle: () => waitForOutboxDrained(db),
    async restartStore(overrides = {}) {
      await started.close();
      started = await startService({ ...env, ...overrides }, db);
      harness.client = started.client;
      harness.searchClient = started.searchClient;
    },
    async close() {
      await started.close();
      await db.close();
      for (const { name } of (await direct.getCollections()).collections)
        if (name.startsWith(prefix)) await direct.deleteCollection(name);
      await proxy.close();
      await qdrant.close();
    },
  };
  return harness;
}

/** The current value of a gauge in the shared registry. */
export async function gaugeValue(name: string): Promise<number> {
  const metric = metricsRegistry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values[0]?.value ?? 0;
}

/** A unit vector along `axis`, tilted towards `towards` by `tilt` radians (so its cosine to the pure axis is cos(tilt)). */
export function direction(axis: number, towards = (axis + 1) % vectorDimension, tilt = 0): number[] {
  const vector = Array.from({ length: vectorDimension }, () => 0);
  vector[axis] = Math.cos(tilt);
  vector[towards] = (vector[towards] ?? 0) + Math.sin(tilt);
  return vector;
}
