/**
 * A memory's review in SQL, inside the review's transaction: the memory a
 * mirror entry names, locked before its mirror (as a put and a delete lock
 * it), and the reviewer's verdict written to its current revision — the
 * `memories` row and its `memory_versions` row, which records who reviewed
 * it, when and with what note. The review's access check is made on the
 * mirror entry (review mode), which has the memory's owner, namespace,
 * visibility and trust; these statements follow it.
 */
import { createSqlParams, type SqlExecutor } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import type { ReviewedMemory } from "../model/review-ports.js";
import type { Principal } from "../model/principal.js";
import type { TrustState } from "../model/trust.js";

/** The memory entry `entryId` mirrors, if the reviewer may review that entry: its id, unlocked. */
export async function mirroredMemoryId(
  tx: SqlExecutor,
  principal: Principal,
  entryId: string,
): Promise<string | undefined> {
  const params = createSqlParams();
  const { rows } = await tx.query<{ memory_id: string | null }>(
    `SELECT e.memory_id FROM entries e WHERE e.id = ${params.add(entryId)} AND ${accessPredicate(principal, "e", params, "review")}`,
    params.values,
  );
  return rows[0]?.memory_id ?? undefined;
}

/** Locks live memory `memoryId` of the reviewer's tenant until the transaction ends. */
export async function lockReviewedMemory(
  tx: SqlExecutor,
  principal: Principal,
  memoryId: string,
): Promise<ReviewedMemory | undefined> {
  const { rows } = await tx.query<{
    id: string;
    namespace: string;
    key: string;
    owner: string;
    version: number;
    content_hash: string;
    updated_by: string;
    trust: TrustState;
  }>(
    `SELECT m.id, m.namespace, m.key, m.owner, m.version, m.content_hash, m.updated_by, m.trust FROM memories m
     WHERE m.id = $1 AND m.tenant = $2 AND m.deleted_at IS NULL FOR UPDATE`,
    [memoryId, principal.tenant],
  );
  const row = rows[0];
  return row === undefined
    ? undefined
    : {
        id: row.id,
        namespace: row.namespace,
        key: row.key,
        owner: row.owner,
        version: row.version,
        contentHash: row.content_hash,
        updatedBy: row.updated_by,
        state: row.trust,
      };
}

/**
 * Sets the trust of the locked memory's current revision to `state` and
 * records the review on that revision (who, when, the note). False when the
 * memory is no longer at `memory.version`.
 */
export async function applyMemoryReview(
  tx: SqlExecutor,
  principal: Principal,
  memory: ReviewedMemory,
  state: TrustState,
  note: string,
  reviewedAt: Date,
): Promise<boolean> {
  const updated = await tx.query<{ id: string }>(
    `UPDATE memories m SET trust = $3 WHERE m.id = $1 AND m.version = $2 AND m.tenant = $4 AND m.deleted_at IS NULL RETURNING m.id`,
    [memory.id, memory.version, state, principal.tenant],
  );
  if (updated.rows.length === 0) return false;
  const revision = await tx.query<{ version: number }>(
    `UPDATE memory_versions v SET trust = $3, reviewed_by = $4, reviewed_at = $5::timestamptz, review_note = $6
     WHERE v.memory_id = $1 AND v.version = $2 RETURNING v.version`,
    [memory.id, memory.version, state, principal.subject, reviewedAt.toISOString(), note],
  );
  return revision.rows.length === 1;
}
