/**
 * What every statement of one write transaction shares, and the small
 * pieces of SQL several of them bind the same way.
 */
import type { SqlExecutor, SqlParams, VectorType } from "../../db/sql-database.js";
import type { EntryAck, TextWrite } from "../../model/entry-model.js";
import type { TrustState } from "../../model/trust.js";
import type { CommittedChunk } from "../../vectors/vector-index.js";

/** One write transaction as its statements see it. */
export interface WriteContext {
  tx: SqlExecutor;
  /** The chunk embeddings' column type: pgvector's `vector`, or `real[]` where the database has no pgvector. */
  vectorType: VectorType;
  /** Every chunk the transaction inserted (id, model, vector), reported by the repository once it has committed. */
  inserted: CommittedChunk[];
}

/** The columns of an entry a write acknowledges, as `ackColumns` selects them. */
export interface AckRow {
  id: string;
  version: number;
  content_hash: string;
  created_at: Date;
  updated_at: Date;
  trust_state: TrustState;
  trust_reasons: string[];
}

/** The RETURNING list of a write to `entries e` that acknowledges it. */
export const ackColumns = "e.id, e.version, e.content_hash, e.created_at, e.updated_at, e.trust_state, e.trust_reasons";

/** The acknowledgement of a written row; `previouslyDeleted` is set by the insert, the only write that can know it. */
export function toAck(row: AckRow, deduplicated: boolean): EntryAck {
  return {
    id: row.id,
    version: row.version,
    contentHash: row.content_hash,
    deduplicated,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    previouslyDeleted: false,
    trust: { state: row.trust_state, reasons: row.trust_reasons },
  };
}

/** A timestamp parameter for a possibly open end of a valid-time interval. */
export const toTimestampParam = (date: Date | undefined): string | null => date?.toISOString() ?? null;

/**
 * The SQL for a written text's full-text vector: the one computed before the
 * transaction when there is one, else NULL, which the table's trigger fills
 * with `entry_search_vector` of the text (migration 10), parsing it once.
 */
export function searchVectorOf(params: SqlParams, write: TextWrite): string {
  return `${write.searchVector === undefined ? "NULL" : params.add(write.searchVector)}::tsvector`;
}
