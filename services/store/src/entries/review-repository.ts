import { accessPredicate } from "../filters/access-predicate.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import { entryColumns, resolveIds, toStoredEntry } from "./entry-rows.js";
import type { ReviewRepository, ReviewStatements } from "../model/review-ports.js";
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

/** The review queue over a migrated database. */
export function createReviewRepository(db: SqlDatabase): ReviewRepository {
  return {
    async listQueue(principal, request) {
      const params = createSqlParams();
      const conditions = [
        accessPredicate(principal, "e", params, "review"),
        `e.trust_state = ANY(${params.add([...request.states])}::text[])`,
        // A memory's mirror waits for a reviewer only while its value is quarantined or rejected, whoever may read it.
        `(e.memory_id IS NULL OR e.trust_state = ANY(${params.add([...reviewOpenStates])}::text[]))`,
      ];
      if (request.threadId !== undefined) conditions.push(`e.thread_id = ${params.add(request.threadId)}`);
      const { rows } = await db.query<Parameters<typeof toStoredEntry>[0]>(
        `SELECT ${entryColumns}, e.text FROM entries e
         WHERE ${conditions.join(" AND ")}
         ORDER BY (e.trust_state = 'quarantined') DESC, e.created_at DESC, e.id DESC
         LIMIT ${params.add(request.limit + 1)} OFFSET ${params.add(request.offset)}`,
        params.values,
      );
      return {
        entries: rows.slice(0, request.limit).map((row) => toStoredEntry(row, undefined)),
        hasMore: rows.length > request.limit,
      };
    },
  };
}
