/**
 * Named memories in SQL. Every statement that reads a memory composes the
 * access predicate over the `memories` row, with the namespace standing in
 * for the thread, so thread grants reach memories as they reach entries.
 */
import { currentRequestId } from "../audit/audit.js";
import type { AuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import type { EntryWriteScope } from "../entries/entry-ports.js";
import { createWriteScope as createEntryWriteScope } from "../entries/write-scope/write-scope.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { findRecordedCall } from "../idempotency/idempotency-repository.js";
import type { IdempotencyStatements, RecordedCall } from "../idempotency/idempotency.js";
import type { Visibility } from "../model/entry-values.js";
import { createUuidV7 } from "../model/ids.js";
import type { Principal } from "../model/principal.js";
import type { PartTrust } from "../screen/part-screen.js";
import type { CommittedChunk } from "../vectors/vector-index.js";
import { readRevision, readRevisions } from "./memory-revisions.js";
import { memoryColumns as columns, toMemoryRecord as toRecord, unmirrored, type MemoryRow } from "./memory-rows.js";
import {
  memoryLimits,
  type MemoryName,
  type MemoryRecord,
  type MemoryRevision,
  type MemorySummary,
  type MemoryValueType,
} from "./memory-model.js";

/** The `memories` rows as the access predicate judges them: the namespace is the thread its grants name. */
const memoryRows = "(SELECT memories.*, memories.namespace AS thread_id FROM memories)";

/** A memory row with what the caller may do with it. */
export interface StoredMemory extends MemoryRecord {
  deletedAt: Date | undefined;
  deleteReason: string;
  writable: boolean;
}

function toStored(row: MemoryRow & { writable: boolean }): StoredMemory {
  return {
    ...toRecord(row),
    deletedAt: row.deleted_at ?? undefined,
    deleteReason: row.delete_reason,
    writable: row.writable,
  };
}

/** What a write leaves as the memory's new revision. */
export interface MemoryWrite {
  visibility: Visibility;
  kind: string;
  tags: string[];
  valueType: MemoryValueType;
  value: string;
  contentHash: string;
  /** The write-time screen's verdict on this revision. */
  trust: PartTrust;
}

/** The statements of one memory write transaction. */
export interface MemoryWriteScope {
  idempotency: IdempotencyStatements;
  audit: AuditStatements;
  /** The entry statements of the same transaction, which write the memory's mirror entry (one commit for both). */
  entries: EntryWriteScope;
  /** The named memory, locked until the transaction ends, if the caller may read it (its owner sees it deleted too). */
  lockNamed(principal: Principal, name: MemoryName): Promise<StoredMemory | undefined>;
  /** Inserts the caller's new memory at version 1, unless a concurrent put made it first (then undefined). */
  insert(principal: Principal, name: MemoryName, write: MemoryWrite): Promise<MemoryRecord | undefined>;
  /** Writes the next version of a locked memory (a revived tombstone included). */
  update(principal: Principal, id: string, write: MemoryWrite): Promise<MemoryRecord>;
  /** Turns a locked memory into its tombstone at the next version. */
  markDeleted(principal: Principal, id: string, reason: string): Promise<MemoryRecord>;
  /** Keeps a revision. */
  keepRevision(memory: MemoryRecord, change: "put" | "delete", reason: string): Promise<void>;
  /**
   * Memory `id`, locked until the transaction ends, with its tenant, if it
   * is live and still at `version` and no entry mirrors it (the backfill of
   * a memory stored before mirrors existed); else undefined.
   */
  lockUnmirrored(id: string, version: number): Promise<UnmirroredMemory | undefined>;
}

/** A live memory without a mirror entry, with the tenant it belongs to. */
export interface UnmirroredMemory extends MemoryRecord {
  tenant: string;
}

/** Inserts the caller's new memory at version 1, unless a concurrent put made it first (then undefined). */
async function insertMemory(
  tx: SqlExecutor,
  principal: Principal,
  name: MemoryName,
  write: MemoryWrite,
): Promise<MemoryRecord | undefined> {
  const { rows } = await tx.query<MemoryRow>(
    `INSERT INTO memories AS m (id, tenant, namespace, key, owner, visibility, kind, tags, value_type, value, content_hash, trust, trust_reasons, version, created_at, updated_at, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 1, now(), now(), $5)
         ON CONFLICT ON CONSTRAINT memories_name_key DO NOTHING
         RETURNING ${columns}`,
    [
      createUuidV7(),
      principal.tenant,
      name.namespace,
      name.key,
      name.owner,
      write.visibility,
      write.kind,
      write.tags,
      write.valueType,
      write.value,
      write.contentHash,
      write.trust.state,
      write.trust.reasons,
    ],
  );
  return rows[0] === undefined ? undefined : toRecord(rows[0]);
}

/** Writes the next version of a locked memory (a revived tombstone included). */
async function updateMemory(
  tx: SqlExecutor,
  principal: Principal,
  id: string,
  write: MemoryWrite,
): Promise<MemoryRecord> {
  const { rows } = await tx.query<MemoryRow>(
    `UPDATE memories AS m SET visibility = $2, kind = $3, tags = $4, value_type = $5, value = $6, content_hash = $7, version = m.version + 1,
           updated_at = now(), updated_by = $8, deleted_at = NULL, delete_reason = '', trust = $9, trust_reasons = $10
         WHERE m.id = $1 RETURNING ${columns}`,
    [
      id,
      write.visibility,
      write.kind,
      write.tags,
      write.valueType,
      write.value,
      write.contentHash,
      principal.subject,
      write.trust.state,
      write.trust.reasons,
    ],
  );
  return toRecord(rows[0]!);
}

/** The statements of one memory write transaction over `tx`, writing the mirror entry through `entries`. */
function createWriteScope(tx: SqlExecutor, entries: EntryWriteScope): MemoryWriteScope {
  return {
    // One audit and one idempotency for the memory and its mirror: the transaction's records, flushed once.
    idempotency: entries.idempotency,
    audit: entries.audit,
    entries,

    async lockNamed(principal, name) {
      const params = createSqlParams();
      const readable = accessPredicate(principal, "m", params, "read");
      const writable = accessPredicate(principal, "m", params, "write");
      const { rows } = await tx.query<MemoryRow & { writable: boolean }>(
        `SELECT ${columns}, ${writable} AS writable FROM ${memoryRows} m
         WHERE m.tenant = ${params.add(principal.tenant)} AND m.namespace = ${params.add(name.namespace)} AND m.key = ${params.add(name.key)} AND m.owner = ${params.add(name.owner)}
           AND ${readable} AND (m.deleted_at IS NULL OR m.owner = ${params.add(principal.subject)})
         FOR UPDATE`,
        params.values,
      );
      return rows[0] === undefined ? undefined : toStored(rows[0]);
    },

    insert: (principal, name, write) => insertMemory(tx, principal, name, write),

    update: (principal, id, write) => updateMemory(tx, principal, id, write),

    async markDeleted(principal, id, reason) {
      const { rows } = await tx.query<MemoryRow>(
        `UPDATE memories AS m SET value = '', content_hash = '', trust = 'unverified', trust_reasons = '{}', version = m.version + 1, updated_at = now(), updated_by = $2, deleted_at = now(), delete_reason = $3
         WHERE m.id = $1 RETURNING ${columns}`,
        [id, principal.subject, reason],
      );
      return toRecord(rows[0]!);
    },

    async keepRevision(memory, change, reason) {
      await tx.query(
        `INSERT INTO memory_versions (memory_id, version, tenant, change, visibility, kind, tags, value_type, value, content_hash, written_by, written_at, reason, trust, trust_reasons)
         SELECT m.id, m.version, m.tenant, $2, m.visibility, m.kind, m.tags, m.value_type, m.value, m.content_hash, m.updated_by, m.updated_at, $3, m.trust, m.trust_reasons FROM memories m WHERE m.id = $1`,
        [memory.id, change, reason],
      );
    },

    async lockUnmirrored(id, version) {
      const { rows } = await tx.query<MemoryRow & { tenant: string }>(
        `SELECT ${columns}, m.tenant FROM memories m
         WHERE m.id = $1 AND m.version = $2 AND m.deleted_at IS NULL AND ${unmirrored}
         FOR UPDATE`,
        [id, version],
      );
      return rows[0] === undefined ? undefined : { ...toRecord(rows[0]), tenant: rows[0].tenant };
    },
  };
}

/** Which memories a listing shows; empty strings do not filter. */
export interface MemoryListFilter {
  namespace: string;
  keyPrefix: string;
  kind: string;
  tag: string;
  owner: string;
  /** Rows after this (namespace, key, owner), in that order. */
  after: [string, string, string] | undefined;
  /** Whether memories whose current value is quarantined or rejected are listed. */
  includeQuarantined: boolean;
}

export interface MemoryRepositoryOptions {
  /** Told of the chunks a write transaction inserted for a mirror entry, once it has committed (see VectorIndex.chunksCommitted). */
  onChunksCommitted?: ((chunks: readonly CommittedChunk[]) => void) | undefined;
}

/** One page of the live memories the caller can see, in (namespace, key, owner) order; one more than `limit`. */
async function listMemorySummaries(
  db: SqlDatabase,
  principal: Principal,
  filter: MemoryListFilter,
  limit: number,
): Promise<MemorySummary[]> {
  const params = createSqlParams();
  const conditions = [
    `m.tenant = ${params.add(principal.tenant)}`,
    accessPredicate(principal, "m", params, "read"),
    "m.deleted_at IS NULL",
  ];
  if (!filter.includeQuarantined) conditions.push("m.trust NOT IN ('quarantined', 'rejected')");
  if (filter.namespace !== "") conditions.push(`m.namespace = ${params.add(filter.namespace)}`);
  if (filter.keyPrefix !== "") conditions.push(`starts_with(m.key, ${params.add(filter.keyPrefix)})`);
  if (filter.kind !== "") conditions.push(`m.kind = ${params.add(filter.kind)}`);
  if (filter.tag !== "") conditions.push(`m.tags @> ARRAY[${params.add(filter.tag)}]::text[]`);
  if (filter.owner !== "") conditions.push(`m.owner = ${params.add(filter.owner)}`);
  if (filter.after !== undefined) {
    conditions.push(
      `(m.namespace, m.key, m.owner) > (${params.add(filter.after[0])}::text, ${params.add(filter.after[1])}::text, ${params.add(filter.after[2])}::text)`,
    );
  }
  const preview = params.add(memoryLimits.previewChars);
  const { rows } = await db.query<MemoryRow & { value_chars: number }>(
    `SELECT ${columns.replace("m.value,", `left(m.value, ${preview}) AS value,`)}, char_length(m.value) AS value_chars
         FROM ${memoryRows} m WHERE ${conditions.join(" AND ")}
         ORDER BY m.namespace, m.key, m.owner LIMIT ${params.add(limit + 1)}`,
    params.values,
  );
  return rows.map((row) => ({
    ...toRecord(row),
    valueChars: row.value_chars,
    truncated: row.value_chars > row.value.length,
  }));
}

/** The memory repository over a migrated database. */
export function createMemoryRepository(db: SqlDatabase, options: MemoryRepositoryOptions = {}) {
  return {
    findCall: (principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined> =>
      findRecordedCall(db, principal, key, notBefore),

    /** Runs `fn` in one transaction with the memory's statements and its mirror entry's: both commit, or neither. */
    async transaction<T>(fn: (scope: MemoryWriteScope) => Promise<T>): Promise<T> {
      let inserted: CommittedChunk[] = [];
      const result = await db.transaction(async (tx) => {
        // Anew for every attempt, so a retried transaction reports only the chunks of the attempt that committed.
        inserted = [];
        const scope = createWriteScope(tx, createEntryWriteScope(db, tx, inserted));
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
      if (inserted.length > 0) options.onChunksCommitted?.(inserted);
      return result;
    },

    /**
     * The memories named (namespace, key) the caller can see, its own first,
     * then by owner; at most `limit`. Deleted ones are shown to their owner
     * alone. With `owner`, only that owner's.
     */
    async findNamed(
      principal: Principal,
      namespace: string,
      key: string,
      owner: string | undefined,
      limit: number,
    ): Promise<StoredMemory[]> {
      const params = createSqlParams();
      const readable = accessPredicate(principal, "m", params, "read");
      const subject = params.add(principal.subject);
      const ownerCondition = owner === undefined ? "" : ` AND m.owner = ${params.add(owner)}`;
      const { rows } = await db.query<MemoryRow & { writable: boolean }>(
        `SELECT ${columns}, false AS writable FROM ${memoryRows} m
         WHERE m.tenant = ${params.add(principal.tenant)} AND m.namespace = ${params.add(namespace)} AND m.key = ${params.add(key)}${ownerCondition}
           AND ${readable} AND (m.deleted_at IS NULL OR m.owner = ${subject})
         ORDER BY (m.owner = ${subject}) DESC, m.owner LIMIT ${params.add(limit)}`,
        params.values,
      );
      return rows.map(toStored);
    },

    /** The revision of a memory the caller already may read: by number, or the one current at `asOf`. */
    revision: (memoryId: string, at: { version: number } | { asOf: Date }): Promise<MemoryRevision | undefined> =>
      readRevision(db, memoryId, at),

    /** A page of a memory's revisions, newest first, one more than `limit` to tell whether more follow. */
    revisions: (memoryId: string, limit: number, offset: number): Promise<MemoryRevision[]> =>
      readRevisions(db, memoryId, limit, offset),

    /** One page of the live memories the caller can see, in (namespace, key, owner) order; one more than `limit`. */
    list: (principal: Principal, filter: MemoryListFilter, limit: number): Promise<MemorySummary[]> =>
      listMemorySummaries(db, principal, filter, limit),
  };
}

export type MemoryRepository = ReturnType<typeof createMemoryRepository>;
