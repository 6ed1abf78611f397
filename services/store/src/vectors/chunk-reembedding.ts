/**
 * Moving stored chunks from one embedding space to another: what
 * `context-hub reembed` does after an embedding model change. Chunks keep
 * their spans (the chunker's size and overlap decided where a chunk starts
 * and ends when it was written, and the spans are part of the stored entry,
 * not of the model): only each span's vector and the model it is recorded
 * with are replaced. Every batch commits in its own transaction, so an
 * interrupted run leaves each chunk wholly in the old space or wholly in the
 * new one, and a rerun continues with the chunks still in an old space.
 */
import { providerError } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";
import { hnswIndexName } from "./postgres-vector-queries.js";
import { toVectorLiteral } from "./vector-literal.js";

/** An (embedding model, dimension) pair. */
export interface EmbeddingSpace {
  model: string;
  dimension: number;
}

export interface SpaceCount extends EmbeddingSpace {
  chunks: number;
}

/** What a run has to do: the chunks in each space other than the target, and how many are already in it. */
export interface ReembedPlan {
  target: EmbeddingSpace;
  /** Spaces other than the target that hold chunks, most chunks first. */
  from: SpaceCount[];
  /** Chunks to re-embed: the sum over `from`. */
  pending: number;
  /** Chunks already in the target space. */
  done: number;
}

export interface ReembedOptions {
  target: EmbeddingSpace;
  /** The configured provider's name (e.g. "openai"), so errors say which provider failed. */
  provider: string;
  /** Unit-length vectors of the target space, one per text, in order (the provider's batch call). */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Chunks per embedding call and per transaction. */
  batchSize: number;
  /** Called after each committed batch with the number of chunks it moved. */
  onBatch?(moved: number): void;
  /** Stops after the batch in flight commits. */
  signal?: AbortSignal;
}

export interface ReembedResult {
  /** Chunks moved to the target space by this run. */
  reembedded: number;
  batches: number;
  /** Whether the run stopped early on `signal`. */
  interrupted: boolean;
  /** Spaces left without chunks whose HNSW index and registration were removed. */
  removedSpaces: EmbeddingSpace[];
}

interface ChunkRow {
  id: string;
  entry_id: string;
  start_offset: number;
  end_offset: number;
  embedding_model: string;
}

/** The lowest UUID: the keyset cursor's start. */
const firstId = "00000000-0000-0000-0000-000000000000";

function dimensionOf(db: SqlDatabase, column: string): string {
  return db.vectorType === "pgvector" ? `vector_dims(${column})` : `cardinality(${column})`;
}

/** Counts the chunks of every stored space against the target; changes nothing (what `--dry-run` shows). */
export async function planReembedding(db: SqlDatabase, target: EmbeddingSpace): Promise<ReembedPlan> {
  const { rows } = await db.query<{ embedding_model: string; dimension: number; chunks: string | number }>(
    `SELECT c.embedding_model, ${dimensionOf(db, "c.embedding")} AS dimension, count(*) AS chunks FROM chunks c GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2`,
  );
  const spaces = rows.map((row) => ({
    model: row.embedding_model,
    dimension: Number(row.dimension),
    chunks: Number(row.chunks),
  }));
  const isTarget = (space: EmbeddingSpace) => space.model === target.model && space.dimension === target.dimension;
  const from = spaces.filter((space) => !isTarget(space));
  return {
    target,
    from,
    pending: from.reduce((sum, space) => sum + space.chunks, 0),
    done: spaces.filter(isTarget).reduce((sum, space) => sum + space.chunks, 0),
  };
}

/**
 * Re-embeds every chunk outside `target`, batch by batch, in chunk id order.
 * Each batch: read the spans and their entries' texts, embed the span texts
 * in one provider call, then one transaction registers the target space and
 * replaces each chunk's vector and model, but only where the chunk still
 * exists in the space it was read in (an entry updated or deleted meanwhile
 * is left to its new chunks). At the end, spaces left empty lose their HNSW
 * index and their `embedding_spaces` row.
 */
export async function reembedChunks(db: SqlDatabase, options: ReembedOptions): Promise<ReembedResult> {
  const { target, batchSize } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new Error(`batch size must be a positive whole number (got ${batchSize})`);
  const vectorCast = db.vectorType === "pgvector" ? "vector" : "real[]";
  let after = firstId;
  let reembedded = 0;
  let batches = 0;
  let interrupted = false;
  for (;;) {
    if (options.signal?.aborted === true) {
      interrupted = true;
      break;
    }
    const { rows: chunks } = await db.query<ChunkRow>(
      `SELECT c.id, c.entry_id, c.start_offset, c.end_offset, c.embedding_model FROM chunks c
       WHERE c.id > $1 AND NOT (c.embedding_model = $2 AND ${dimensionOf(db, "c.embedding")} = $3)
       ORDER BY c.id LIMIT $4`,
      [after, target.model, target.dimension, batchSize],
    );
    if (chunks.length === 0) break;
    after = chunks[chunks.length - 1]!.id;
    const entryIds = [...new Set(chunks.map((chunk) => chunk.entry_id))];
    const { rows: entries } = await db.query<{ id: string; text: string }>(
      "SELECT id, text FROM entries WHERE id = ANY($1::uuid[])",
      [entryIds],
    );
    const texts = new Map(entries.map((entry) => [entry.id, entry.text]));
    // A chunk whose entry vanished between the two reads goes with it (ON DELETE CASCADE); nothing to embed.
    const live = chunks.filter((chunk) => texts.has(chunk.entry_id));
    if (live.length === 0) continue;
    // Offsets are UTF-16 code units, as the embedder's chunker made them; JavaScript slices the same way.
    const vectors = await options.embed(
      live.map((chunk) => texts.get(chunk.entry_id)!.slice(chunk.start_offset, chunk.end_offset)),
    );
    const source = { provider: options.provider, operation: "embeddings", model: target.model };
    if (vectors.length !== live.length)
      throw providerError(source, `${vectors.length} vectors for ${live.length} texts`);
    vectors.forEach((vector, index) => {
      if (vector.length !== target.dimension)
        throw providerError(
          source,
          `vector ${index} of the batch has ${vector.length} dimensions, expected ${target.dimension}`,
        );
    });
    const moved = await db.transaction(async (tx) => {
      // The registration trigger fires on INSERT only, and this is an UPDATE.
      await tx.query(
        "INSERT INTO embedding_spaces (embedding_model, dimension) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [target.model, target.dimension],
      );
      const result = await tx.query(
        `UPDATE chunks c SET embedding_model = $1, embedding = u.embedding::${vectorCast}
         FROM unnest($2::uuid[], $3::text[], $4::text[]) AS u (id, embedding, old_model)
         WHERE c.id = u.id AND c.embedding_model = u.old_model`,
        [
          target.model,
          live.map((chunk) => chunk.id),
          vectors.map((vector) => toVectorLiteral(db.vectorType, vector)),
          live.map((chunk) => chunk.embedding_model),
        ],
      );
      return result.rowCount;
    });
    reembedded += moved;
    batches += 1;
    options.onBatch?.(chunks.length);
  }
  const removedSpaces = interrupted ? [] : await removeEmptySpaces(db, target);
  return { reembedded, batches, interrupted, removedSpaces };
}

/** Drops the HNSW index and the registration of every space other than `target` that holds no chunk any more. */
export async function removeEmptySpaces(db: SqlDatabase, target: EmbeddingSpace): Promise<EmbeddingSpace[]> {
  const { rows } = await db.query<{ embedding_model: string; dimension: number }>(
    `SELECT s.embedding_model, s.dimension FROM embedding_spaces s
     WHERE NOT (s.embedding_model = $1 AND s.dimension = $2)
       AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.embedding_model = s.embedding_model AND ${dimensionOf(db, "c.embedding")} = s.dimension)`,
    [target.model, target.dimension],
  );
  const removed: EmbeddingSpace[] = [];
  for (const row of rows) {
    const space = { model: row.embedding_model, dimension: Number(row.dimension) };
    await db.transaction(async (tx) => {
      if (db.vectorType === "pgvector") {
        const { rows: ddl } = await tx.query<{ drop: string }>(
          "SELECT format('DROP INDEX IF EXISTS %I', $1::text) AS drop",
          [hnswIndexName(space.model, space.dimension)],
        );
        await tx.query(ddl[0]!.drop);
      }
      await tx.query("DELETE FROM embedding_spaces WHERE embedding_model = $1 AND dimension = $2", [
        space.model,
        space.dimension,
      ]);
    });
    removed.push(space);
  }
  return removed;
}
