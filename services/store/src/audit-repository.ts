import { lockClasses, lockInOrder, toAdvisoryKey } from "./db/advisory-locks.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "./db/sql-database.js";
import { auditHash, genesisHash, type AuditDetails, type AuditEvent, type AuditFilter, type AuditOutcome, type AuditRecord, type AuditRepository } from "./audit.js";
import { createUuidV7 } from "./ids.js";

/**
 * The audit records a transaction will append when it commits. They are
 * held until the end of the transaction and appended last, so the tenant's
 * chain lock (which serialises appends per tenant) is held only for the
 * append and the commit, not for the whole mutation.
 */
export interface AuditStatements {
  /** Queues `event` for `tenant`; it is appended when the transaction commits. */
  record(tenant: string, event: AuditEvent): void;
  /** How many events are queued: a savepoint notes it and, when it rolls back, `discardAfter` drops what its work queued. */
  pending(): number;
  discardAfter(mark: number): void;
  /** Appends every queued event (each tenant under its chain lock, tenants in lock order). Call once, just before COMMIT. */
  flush(requestId: string): Promise<void>;
}

interface AuditRow {
  tenant: string;
  seq: string;
  id: string;
  at: Date;
  actor: string;
  action: string;
  outcome: AuditOutcome;
  target_ids: string[];
  before_hashes: string[];
  after_hashes: string[];
  request_id: string;
  details: AuditDetails;
  previous_hash: string;
  hash: string;
}

const recordColumns = "a.tenant, a.seq::text AS seq, a.id, a.at, a.actor, a.action, a.outcome, a.target_ids, a.before_hashes, a.after_hashes, a.request_id, a.details, a.previous_hash, a.hash";

function toRecord(row: AuditRow): AuditRecord {
  return {
    tenant: row.tenant,
    seq: Number(row.seq),
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action as AuditRecord["action"],
    outcome: row.outcome,
    targetIds: row.target_ids,
    beforeHashes: row.before_hashes,
    afterHashes: row.after_hashes,
    requestId: row.request_id,
    details: row.details,
    previousHash: row.previous_hash,
    hash: row.hash,
  };
}

/**
 * Appends `events` to `tenant`'s chain inside `tx`: takes the tenant's chain
 * lock (held until the transaction ends, so two appends of one tenant
 * cannot both extend the same head), reads the head, and inserts each
 * record with the next seq and the hash over the previous one.
 */
async function appendRecords(tx: SqlExecutor, tenant: string, events: readonly AuditEvent[], requestId: string): Promise<void> {
  if (events.length === 0) return;
  await lockInOrder(tx, lockClasses.auditChain, [toAdvisoryKey([tenant])]);
  const { rows } = await tx.query<{ seq: string; hash: string }>("SELECT a.seq::text AS seq, a.hash FROM audit_log a WHERE a.tenant = $1 ORDER BY a.seq DESC LIMIT 1", [tenant]);
  let seq = Number(rows[0]?.seq ?? 0);
  let previousHash = rows[0]?.hash ?? genesisHash;
  const at = new Date();
  for (const event of events) {
    seq += 1;
    const unhashed = { ...event, tenant, seq, id: createUuidV7(), at, requestId, previousHash };
    const hash = auditHash(unhashed);
    await tx.query(
      `INSERT INTO audit_log (tenant, seq, id, at, actor, action, outcome, target_ids, before_hashes, after_hashes, request_id, details, previous_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9::text[], $10::text[], $11, $12::jsonb, $13, $14)`,
      [
        tenant,
        seq,
        unhashed.id,
        at.toISOString(),
        event.actor,
        event.action,
        event.outcome,
        event.targetIds,
        event.beforeHashes,
        event.afterHashes,
        requestId,
        JSON.stringify(event.details),
        previousHash,
        hash,
      ],
    );
    previousHash = hash;
  }
}

/** The audit statements of one transaction. */
export function createAuditStatements(tx: SqlExecutor): AuditStatements {
  const queued: { tenant: string; event: AuditEvent }[] = [];
  return {
    record(tenant, event) {
      queued.push({ tenant, event });
    },
    pending: () => queued.length,
    discardAfter(mark) {
      queued.splice(mark);
    },
    async flush(requestId) {
      const tenants = [...new Set(queued.map((item) => item.tenant))].sort((a, b) => toAdvisoryKey([a]) - toAdvisoryKey([b]));
      for (const tenant of tenants) {
        await appendRecords(
          tx,
          tenant,
          queued.filter((item) => item.tenant === tenant).map((item) => item.event),
          requestId,
        );
      }
      queued.length = 0;
    },
  };
}

const chainPageSize = 1000;

/** The audit repository over a migrated database. */
export function createAuditRepository(db: SqlDatabase): AuditRepository {
  return {
    appendStandalone: (tenant, events, requestId) => db.transaction((tx) => appendRecords(tx, tenant, events, requestId)),

    async list(tenant, filter: AuditFilter, page) {
      const params = createSqlParams();
      const conditions = [`a.tenant = ${params.add(tenant)}`];
      if (page.beforeSeq !== undefined) conditions.push(`a.seq < ${params.add(page.beforeSeq)}`);
      if (filter.action !== undefined) conditions.push(`a.action = ${params.add(filter.action)}`);
      if (filter.actor !== undefined) conditions.push(`a.actor = ${params.add(filter.actor)}`);
      if (filter.targetId !== undefined) conditions.push(`a.target_ids @> ARRAY[${params.add(filter.targetId)}]::text[]`);
      if (filter.from !== undefined) conditions.push(`a.at >= ${params.add(filter.from.toISOString())}::timestamptz`);
      if (filter.to !== undefined) conditions.push(`a.at < ${params.add(filter.to.toISOString())}::timestamptz`);
      if (filter.outcome !== undefined) conditions.push(`a.outcome = ${params.add(filter.outcome)}`);
      const { rows } = await db.query<AuditRow>(`SELECT ${recordColumns} FROM audit_log a WHERE ${conditions.join(" AND ")} ORDER BY a.seq DESC LIMIT ${params.add(page.limit + 1)}`, params.values);
      return { records: rows.slice(0, page.limit).map(toRecord), hasMore: rows.length > page.limit };
    },

    async tenants() {
      const { rows } = await db.query<{ tenant: string }>("SELECT DISTINCT tenant FROM audit_log ORDER BY tenant");
      return rows.map((row) => row.tenant);
    },

    async *chain(tenant) {
      let after = 0;
      for (;;) {
        const { rows } = await db.query<AuditRow>(`SELECT ${recordColumns} FROM audit_log a WHERE a.tenant = $1 AND a.seq > $2 ORDER BY a.seq LIMIT $3`, [tenant, after, chainPageSize]);
        if (rows.length === 0) return;
        const records = rows.map(toRecord);
        yield records;
        after = records.at(-1)!.seq;
        if (rows.length < chainPageSize) return;
      }
    },
  };
}
