/**
 * What a running store is built on, for operators and for the gateway's
 * start-up checks: the vector backend answering semantic search, the index
 * ranking large tenants' full text, the schema version, the database kind
 * and every embedding space that holds vectors.
 */
import type { DatabaseKind, SqlDatabase } from "./db/sql-database.js";
import { latestSchemaVersion } from "./db/migrations/index.js";

export interface EmbeddingSpaceInfo {
  embeddingModel: string;
  dimension: number;
  /** Chunks whose vectors were made in this space (counted now). */
  chunkCount: number;
}

export interface StoreDescription {
  vectorBackend: string;
  schemaVersion: number;
  database: DatabaseKind;
  embeddingSpaces: EmbeddingSpaceInfo[];
  /** `bm25` when tenants get their own BM25 index (pg_textsearch), else `gin`. */
  fullTextIndex: string;
}

export interface DescribeService {
  describe(): Promise<StoreDescription>;
}

export function createDescribeService(
  db: SqlDatabase,
  vectorBackend: () => string,
  fullTextIndex: () => string = () => "gin",
): DescribeService {
  return {
    async describe() {
      const dimensionOf = db.vectorType === "pgvector" ? "vector_dims(c.embedding)" : "cardinality(c.embedding)";
      const { rows } = await db.query<{ embedding_model: string; dimension: number; chunk_count: string | number }>(
        `SELECT s.embedding_model, s.dimension, (SELECT count(*) FROM chunks c WHERE c.embedding_model = s.embedding_model AND ${dimensionOf} = s.dimension) AS chunk_count
           FROM embedding_spaces s ORDER BY s.first_seen_at, s.embedding_model`,
      );
      return {
        vectorBackend: vectorBackend(),
        fullTextIndex: fullTextIndex(),
        schemaVersion: latestSchemaVersion,
        database: db.kind,
        embeddingSpaces: rows.map((row) => ({
          embeddingModel: row.embedding_model,
          dimension: Number(row.dimension),
          chunkCount: Number(row.chunk_count),
        })),
      };
    },
  };
}
