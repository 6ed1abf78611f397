/**
 * Rebuilds the Qdrant collections from the chunks in PostgreSQL (the source
 * of truth), for `context-hub reindex`. Chunks are read in id order in
 * batches and upserted with their current payload; after each batch the last
 * id is saved in `search_settings`, so an interrupted run resumes where it
 * stopped, and running it again only rewrites the same points. The outbox is
 * turned on first, so writes made during the run reach Qdrant through the
 * relay. Documented in docs/vector-backends.md.
 */
import type { SqlDatabase } from "../db/sql-database.js";
import { readChunkPoints, type QdrantCollections } from "./qdrant-collections.js";
import { setVectorOutbox } from "./vector-outbox.js";

export interface ReindexProgress {
  /** Chunks written to Qdrant so far, including those of an earlier, interrupted run. */
  done: number;
  /** Chunks in PostgreSQL when the run started. */
  total: number;
  /** Chunks written by this run. */
  written: number;
}

export interface ReindexOptions {
  /** Chunks per batch (one read, one upsert per embedding space). */
  batch: number;
  /** Drop every embedding space's collection first (a fresh run only; a resumed run keeps what it wrote). */
  recreate: boolean;
  /** Ignore a saved position and start from the first chunk. */
  restart: boolean;
  onProgress?: (progress: ReindexProgress) => void;
}

export interface ReindexResult {
  written: number;
  total: number;
  /** Whether the run continued an interrupted one. */
  resumed: boolean;
}

const cursorKey = "qdrant_reindex_cursor";

/** Writes every chunk in PostgreSQL to its space's Qdrant collection, resumably. */
export async function reindexQdrant(
  db: SqlDatabase,
  collections: QdrantCollections,
  options: ReindexOptions,
): Promise<ReindexResult> {
  await setVectorOutbox(db, true);
  const saved = options.restart
    ? undefined
    : (await db.query<{ value: string }>("SELECT value FROM search_settings WHERE key = $1", [cursorKey])).rows[0]
        ?.value;
  if (saved === undefined && options.recreate) {
    const { rows } = await db.query<{ embedding_model: string; dimension: number }>(
      "SELECT embedding_model, dimension FROM embedding_spaces ORDER BY first_seen_at",
    );
    for (const space of rows) await collections.drop(space.embedding_model, space.dimension);
  }
  const { rows: counts } = await db.query<{ total: number; done: number }>(
    "SELECT count(*)::integer AS total, count(*) FILTER (WHERE $1::uuid IS NOT NULL AND c.id <= $1::uuid)::integer AS done FROM chunks c",
    [saved ?? null],
  );
  const total = counts[0]?.total ?? 0;
  let done = counts[0]?.done ?? 0;
  let cursor = saved;
  let written = 0;
  options.onProgress?.({ done, total, written });
  for (;;) {
    const points =
      cursor === undefined
        ? await readChunkPoints(db, "TRUE", [options.batch], " ORDER BY c.id LIMIT $1")
        : await readChunkPoints(db, "c.id > $1::uuid", [cursor, options.batch], " ORDER BY c.id LIMIT $2");
    if (points.length === 0) break;
    await collections.upsert(points);
    cursor = points[points.length - 1]?.id;
    await db.query(
      `INSERT INTO search_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
      [cursorKey, cursor],
    );
    written += points.length;
    done += points.length;
    options.onProgress?.({ done: Math.min(done, Math.max(total, done)), total: Math.max(total, done), written });
  }
  await db.query("DELETE FROM search_settings WHERE key = $1", [cursorKey]);
  return { written, total: Math.max(total, done), resumed: saved !== undefined };
}
