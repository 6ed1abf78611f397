/**
 * The entry write scope: every statement a write runs inside its one
 * transaction, assembled from the modules beside this one (locks, inserts,
 * folds, updates, versions and tombstones) and the statements of
 * idempotency, grants, review and audit.
 */
import { createAuditStatements } from "../../audit/audit-repository.js";
import type { SqlDatabase, SqlExecutor } from "../../db/sql-database.js";
import { createIdempotencyStatements } from "../../idempotency/idempotency-repository.js";
import type { CommittedChunk } from "../../vectors/vector-index.js";
import type { EntryWriteScope } from "../entry-ports.js";
import { resolveIds } from "../entry-rows.js";
import { createGrantStatements } from "../grant-repository.js";
import { createReviewStatements } from "../review-repository.js";
import { findDuplicate } from "./duplicate-query.js";
import { foldEntry } from "./entry-fold.js";
import { insertEntry } from "./entry-insert.js";
import { lockEntries, lockEntry, lockMirror, lockThreads } from "./entry-locks.js";
import { updateEntry } from "./entry-update.js";
import { deleteThread, deleteWithTombstones, keptVersion, storedText } from "./versions-and-tombstones.js";
import type { WriteContext } from "./write-context.js";

/**
 * The write statements of one transaction. Every chunk it inserts is added to
 * `inserted` (id, model, vector), for the repository to report once the
 * transaction has committed.
 */
export function createWriteScope(db: SqlDatabase, tx: SqlExecutor, inserted: CommittedChunk[]): EntryWriteScope {
  const context: WriteContext = { tx, vectorType: db.vectorType, inserted };
  const audit = createAuditStatements(tx);

  return {
    idempotency: createIdempotencyStatements(tx),
    grants: createGrantStatements(tx),
    audit,
    review: createReviewStatements(tx),

    async savepoint(fn) {
      await tx.query("SAVEPOINT item");
      const mark = audit.pending();
      try {
        const value = await fn();
        await tx.query("RELEASE SAVEPOINT item");
        return value;
      } catch (error) {
        await tx.query("ROLLBACK TO SAVEPOINT item");
        audit.discardAfter(mark);
        throw error;
      }
    },

    lockThreads: (principal, threadIds) => lockThreads(tx, principal, threadIds),
    findDuplicate: (principal, key) => findDuplicate(tx, principal, key),
    fold: (principal, id, write, decideTrust) => foldEntry(context, principal, id, write, decideTrust),

    async insert(principal, write, generated, trust) {
      const outcome = await insertEntry(context, principal, write, generated, trust, false);
      if (!("inserted" in outcome)) throw new Error("an unguarded insert found a duplicate");
      return outcome.inserted;
    },

    async insertMirror(principal, memory, write, generated, trust) {
      // The mirror is its memory's owner's, whoever puts the value (a writer the namespace's grants let in).
      const owner = { ...principal, subject: memory.owner };
      const outcome = await insertEntry(context, owner, write, generated, trust, false, memory.id);
      if (!("inserted" in outcome)) throw new Error("an unguarded insert found a duplicate");
      return outcome.inserted;
    },

    insertUnlessDuplicate: (principal, write, generated, trust) =>
      insertEntry(context, principal, write, generated, trust, true),
    keptVersion: (id, version) => keptVersion(tx, id, version),
    storedText: (id) => storedText(tx, id),
    resolveIds: (principal, queries, maxMatches) => resolveIds(tx, principal, queries, maxMatches),
    lockEntries: (principal, ids) => lockEntries(tx, principal, ids),
    lockEntry: (principal, id) => lockEntry(tx, principal, id),
    lockMirror: (principal, memoryId) => lockMirror(tx, principal, memoryId),
    update: (principal, entry, change, meta) => updateEntry(context, principal, entry, change, meta),
    delete: async (principal, id, reason) => (await deleteWithTombstones(tx, principal, [id], reason)).length > 0,
    deleteThread: (principal, threadId, reason) => deleteThread(tx, principal, threadId, reason),
  };
}
