import { accessPredicate } from "../filters/access-predicate.js";
import { createSqlParams, type SqlExecutor } from "../db/sql-database.js";
import { resolveIds } from "./entry-rows.js";
import type { ReviewStatements } from "../model/review-ports.js";
import type { JsonObject } from "../model/entry-model.js";
import { reviewOpenStates, type TrustState } from "../model/trust.js";
import { applyMemoryReview, lockReviewedMemory, mirroredMemoryId } from "./memory-review-statements.js";
import { memoryNotReviewable } from "./memory-mirror.js";

/** The review statements of one transaction; every read composes the access predicate in review mode. */
export function createReviewStatements(tx: SqlExecutor): ReviewStatements {
  return {
    async resolve(principal, query, maxMatches) {
      const [matches = []] = await resolveIds(tx, principal, [query], maxMatches, "review");
      return matches;
    },

    async lock(principal, id) {
      // A mirror's memory is locked before the mirror, in the order its put and delete lock them.
      const memoryId = await mirroredMemoryId(tx, principal, id);
      const memory = memoryId === undefined ? undefined : await lockReviewedMemory(tx, principal, memoryId);
      const params = createSqlParams();
      const { rows } = await tx.query<{
        id: string;
        owner: string;
        updated_by: string;
        version: number;
        trust_state: TrustState;
        content_hash: string;
        memory_id: string | null;
        metadata: JsonObject;
      }>(
        `SELECT e.id, e.owner, coalesce(e.updated_by, e.owner) AS updated_by, e.version, e.trust_state, e.content_hash, e.memory_id, e.metadata
         FROM entries e WHERE e.id = ${params.add(id)} AND ${accessPredicate(principal, "e", params, "review")}
         FOR UPDATE`,
        params.values,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      if (row.memory_id !== null) {
        // A review of a mirror judges its memory's current revision, which the mirror shows: only one that waits for a reviewer.
        if (!reviewOpenStates.includes(row.trust_state))
          throw memoryNotReviewable(row.id, row.metadata, row.trust_state);
        if (memory === undefined || memory.id !== row.memory_id || memory.state !== row.trust_state)
          throw new Error(`the mirror entry ${row.id} and its memory ${row.memory_id} have drifted apart`);
      }
      return {
        id: row.id,
        owner: row.owner,
        updatedBy: row.updated_by,
        version: row.version,
        state: row.trust_state,
        contentHash: row.content_hash,
        memory: row.memory_id === null ? undefined : memory,
      };
    },

    async apply(principal, id, version, state, note) {
      const params = createSqlParams();
      const { rows } = await tx.query<{ reviewed_at: Date }>(
        `UPDATE entries e SET trust_state = ${params.add(state)}, reviewed_by = ${params.add(principal.subject)}, reviewed_at = now(), review_note = ${params.add(note)}
         WHERE e.id = ${params.add(id)} AND e.version = ${params.add(version)} AND ${accessPredicate(principal, "e", params, "review")}
         RETURNING e.reviewed_at`,
        params.values,
      );
      return rows[0]?.reviewed_at;
    },

    applyMemory: (principal, memory, state, note, reviewedAt) =>
      applyMemoryReview(tx, principal, memory, state, note, reviewedAt),
  };
}
