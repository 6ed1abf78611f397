/**
 * The duplicate rule of a write, as SQL: used alone (a lookup before
 * generation, outside or inside a transaction) and inside the guarded insert.
 */
import { createSqlParams, type SqlExecutor, type SqlParams } from "../../db/sql-database.js";
import { accessPredicate } from "../../filters/access-predicate.js";
import type { DuplicateKey, Source } from "../../model/entry-model.js";
import type { Principal } from "../../model/principal.js";

const opposite: Record<Source, Source> = { user: "agent", agent: "user" };

/**
 * The duplicate rule as one statement: the caller's latest entry in the
 * thread with this source, provided its hash matches and no entry of the
 * other source that the caller may see came after it (ties on created_at are
 * broken by id, which is time-ordered). A memory's mirror entry is never a
 * duplicate: nothing folds into it.
 */
export async function findDuplicate(
  executor: SqlExecutor,
  principal: Principal,
  key: DuplicateKey,
): Promise<string | undefined> {
  const params = createSqlParams();
  const { rows } = await executor.query<{ id: string }>(duplicateQuery(params, principal, key), params.values);
  return rows[0]?.id;
}

/** The statement of `findDuplicate`, selecting the duplicate's `id` (no row when there is none), for use alone or inside another statement. */
export function duplicateQuery(params: SqlParams, principal: Principal, key: DuplicateKey): string {
  const tenant = params.add(principal.tenant);
  const threadId = params.add(key.threadId);
  // The candidate is the caller's own entry in the caller's tenant, which the predicate always admits;
  // only the later entries of the other source need it.
  const laterAccess = accessPredicate(principal, "o", params);
  return `SELECT candidate.id FROM (
       SELECT e.id, e.content_hash, e.created_at FROM entries e
       WHERE e.tenant = ${tenant} AND e.thread_id = ${threadId} AND e.source = ${params.add(key.source)}
         AND e.owner = ${params.add(principal.subject)} AND e.memory_id IS NULL
       ORDER BY e.created_at DESC, e.id DESC
       LIMIT 1
     ) candidate
     WHERE candidate.content_hash = ${params.add(key.contentHash)}
       AND NOT EXISTS (
         SELECT 1 FROM entries o
         WHERE o.tenant = ${tenant} AND o.thread_id = ${threadId} AND o.source = ${params.add(opposite[key.source])}
           AND (o.created_at, o.id) > (candidate.created_at, candidate.id) AND ${laterAccess})`;
}
