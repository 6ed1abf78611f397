/** Building blocks of the retrieval tests: a store with search in the same process, entries with chosen vectors, and clients. */
import { contentHash, createGrpcClient, vectorToBytes, type GrpcClient } from "@context-hub/common";
import { commonV1, searchV1 } from "@context-hub/proto";
import { openDatabase, type DatabaseOptions, type SqlDatabase } from "@context-hub/store";
import { defaultSearchConfig, openSearch, type OpenSearch, type SearchConfig } from "@context-hub/store/testing";
import {
  logger,
  startTestStore,
  type NewEntryInit,
  type PrincipalInit,
  type StartedStore,
  type StoreClient,
} from "../store/store-fixtures.js";

export type SearchClient = GrpcClient<typeof searchV1.SearchService>;

/** A database the retrieval suite runs against, and how to get a fresh one. */
export interface RetrievalTarget {
  name: string;
  createDatabase(): Promise<{ options: DatabaseOptions; dispose(): Promise<void> }>;
}

/** Everything the suite drives: a started store (StoreService + SearchService over gRPC) and search in-process on the same database. */
export interface RetrievalHarness {
  db: SqlDatabase;
  store: StartedStore;
  client: StoreClient;
  searchClient: SearchClient;
  /** In-process search over the same database, with `exactBelowChunks: 0` so the approximate index answers whenever it exists. */
  search: OpenSearch;
  close(): Promise<void>;
}

/** Search settings that send every semantic search to the HNSW index once it is built. */
export const annFirstConfig: SearchConfig = {
  ...defaultSearchConfig,
  vectors: { ...defaultSearchConfig.vectors, exactBelowChunks: 0, buildIndexes: false },
};

export async function startRetrievalHarness(target: RetrievalTarget): Promise<RetrievalHarness> {
  const database = await target.createDatabase();
  const db = await openDatabase(database.options, logger);
  const store = await startTestStore(database.options, db);
  const searchClient = createGrpcClient(searchV1.SearchService, {
    address: `127.0.0.1:${store.service.port}`,
    peer: "store",
    deadlineMs: 60_000,
  });
  const search = await openSearch(db, annFirstConfig, logger);
  return {
    db,
    store,
    client: store.client,
    searchClient,
    search,
    async close() {
      searchClient.close();
      await search.close();
      await store.close();
      await db.close();
      await database.dispose();
    },
  };
}

export const testModel = "retrieval-test-model";
export const dimension = 8;

/** A unit vector along axis `axis`, tilted towards axis `towards` by `tilt` (so its cosine to the pure axis is known). */
export function direction(axis: number, towards = (axis + 1) % dimension, tilt = 0): number[] {
  const vector = Array.from({ length: dimension }, () => 0);
  vector[axis] = Math.cos(tilt);
  vector[towards] = (vector[towards] ?? 0) + Math.sin(tilt);
  return vector;
}

/**
 * Commits `text` with one chunk per vector (the text cut into equal spans),
 * so a test chooses exactly where each chunk sits in vector space.
 */
export async function commitWithVectors(
  client: StoreClient,
  caller: PrincipalInit,
  threadId: string,
  text: string,
  vectors: number[][],
  overrides: Partial<NewEntryInit> = {},
): Promise<string> {
  const step = Math.floor(text.length / vectors.length);
  const chunks = vectors.map((vector, ordinal) => ({
    ordinal,
    span: { start: ordinal * step, end: ordinal === vectors.length - 1 ? text.length : (ordinal + 1) * step },
    vector: vectorToBytes(vector),
  }));
  const reply = await client.commit({
    principal: caller,
    entry: { threadId, source: commonV1.Source.USER, text, ...overrides },
    generated: {
      embeddingModel: testModel,
      embeddingDimension: vectors[0]?.length ?? dimension,
      chunks,
      summary: "",
      nodeSummaries: [],
      textHash: contentHash(text),
    },
  });
  if (reply.ack === undefined) throw new Error("commit returned no acknowledgement");
  return reply.ack.id;
}
