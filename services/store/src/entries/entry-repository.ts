/**
 * The entry repository in SQL: its write transactions, whose statements
 * live in write-scope/, and its reads (entry-reads.ts).
 */
import { currentRequestId } from "../audit/audit.js";
import type { SqlDatabase } from "../db/sql-database.js";
import { findRecordedCall } from "../idempotency/idempotency-repository.js";
import type { CommittedChunk } from "../vectors/vector-index.js";
import type { EntryRepository } from "./entry-ports.js";
import { entryStatistics, getByIds, listEntries, listThreads, replySizes, withheldStates } from "./entry-reads.js";
import { resolveIds } from "./entry-rows.js";
import { createDatabaseSearchVectors, type SearchVectors } from "./search-vectors.js";
import { findDuplicate } from "./write-scope/duplicate-query.js";
import { createWriteScope } from "./write-scope/write-scope.js";

export interface EntryRepositoryOptions {
  /** Told of the chunks a write transaction inserted, once it has committed (see VectorIndex.chunksCommitted). */
  onChunksCommitted?: ((chunks: readonly CommittedChunk[]) => void) | undefined;
  /** Where long texts' full-text vectors are computed before their transactions; by default a statement of their own on `db`. */
  searchVectors?: SearchVectors | undefined;
}

/** The entry repository over a migrated database. */
export function createEntryRepository(db: SqlDatabase, options: EntryRepositoryOptions = {}): EntryRepository {
  const searchVectors = options.searchVectors ?? createDatabaseSearchVectors(db);
  return {
    findDuplicate: (principal, key) => findDuplicate(db, principal, key),

    async transaction(fn) {
      let inserted: CommittedChunk[] = [];
      const result = await db.transaction(async (tx) => {
        // Anew for every attempt, so a retried transaction reports only the chunks of the attempt that committed.
        inserted = [];
        const scope = createWriteScope(db, tx, inserted);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
      if (inserted.length > 0) options.onChunksCommitted?.(inserted);
      return result;
    },

    findCall: (principal, key, notBefore) => findRecordedCall(db, principal, key, notBefore),

    searchVectorOf: (text) => searchVectors.vectorOf(text),

    resolveIds: (principal, queries, maxMatches) => resolveIds(db, principal, queries, maxMatches),

    replySizes: (principal, ids, includeImages, includeQuarantined) =>
      replySizes(db, principal, ids, includeImages, includeQuarantined),
    getByIds: (principal, ids, includeImages, includeQuarantined) =>
      getByIds(db, principal, ids, includeImages, includeQuarantined),
    withheldStates: (principal, ids) => withheldStates(db, principal, ids),
    list: (principal, filter, page) => listEntries(db, principal, filter, page),
    listThreads: (principal, page) => listThreads(db, principal, page),
    statistics: (principal, threadId, days) => entryStatistics(db, principal, threadId, days),
  };
}
