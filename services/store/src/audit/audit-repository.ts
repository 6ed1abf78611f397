import { lockClasses, lockInOrder, toAdvisoryKey } from "../db/advisory-locks.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import {
  auditHash,
  genesisHash,
  recordedDetails,
  type AuditDetails,
  type AuditEvent,
  type AuditFilter,
  type AuditOutcome,
  type AuditRecord,
  type AuditRepository,
} from "./audit.js";
import { createUuidV7 } from "../model/ids.js";

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

const recordColumns =
  "a.tenant, a.seq::text AS seq, a.id, a.at, a.actor, a.action, a.outcome, a.target_ids, a.before_hashes, a.after_hashes, a.request_id, a.details, a.previous_hash, a.hash";

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

/** A tenant's chain head as this process last appended it. */
interface ChainHead {
  seq: number;
  hash: string;
}

/**
 * The head each tenant's chain had after this process's last append. It
 * saves reading the head before each append, but it is only a guess: the
 * append that set it may have rolled back, or another store may have
 * appended since. So the first record is inserted only if the chain's head
 * in the database is still that hash (checked in the same statement), and a
 * miss reads the real head and appends after it. A wrong guess costs one
 * statement that inserts nothing; it can never fork the chain.
 */
const knownHeads = new Map<string, ChainHead>();
/** Bounds the guesses kept (one per tenant that wrote recently). */
const maxKnownHeads = 10_000;

const insertColumns =
  "tenant, seq, id, at, actor, action, outcome, target_ids, before_hashes, after_hashes, request_id, details, previous_hash, hash";
// Typed, so that the guarded INSERT … SELECT form (where the columns do not type the parameters) reads them alike.
const insertValues =
  "$1::text, $2::bigint, $3::uuid, $4::timestamptz, $5::text, $6::text, $7::text, $8::text[], $9::text[], $10::text[], $11::text, $12::jsonb, $13::text, $14::text";

interface ChainedRecord {
  params: unknown[];
  seq: number;
  hash: string;
}

/** The records of `events` chained after `head`, as INSERT parameters. */
function chainAfter(
  head: ChainHead,
  tenant: string,
  events: readonly AuditEvent[],
  requestId: string,
): ChainedRecord[] {
  let seq = head.seq;
  let previousHash = head.hash;
  const at = new Date();
  return events.map((event) => {
    seq += 1;
    const details = recordedDetails(event.details);
    const unhashed = { ...event, details, tenant, seq, id: createUuidV7(), at, requestId, previousHash };
    const hash = auditHash(unhashed);
    const params = [
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
      JSON.stringify(details),
      previousHash,
      hash,
    ];
    previousHash = hash;
    return { params, seq, hash };
  });
}

/**
 * Appends `events` to `tenant`'s chain inside `tx`: takes the tenant's chain
 * lock (held until the transaction ends, so two appends of one tenant
 * cannot both extend the same head), then inserts each record with the next
 * seq and the hash over the previous one. With a known head the first insert
 * checks the head itself (one statement for a one-record append); otherwise
 * the head is read first.
 */
async function appendRecords(
  tx: SqlExecutor,
  tenant: string,
  events: readonly AuditEvent[],
  requestId: string,
): Promise<void> {
  if (events.length === 0) return;
  await lockInOrder(tx, lockClasses.auditChain, [toAdvisoryKey([tenant])]);
  let records: ChainedRecord[] | undefined;
  const guess = knownHeads.get(tenant);
  if (guess !== undefined) {
    const guessed = chainAfter(guess, tenant, events, requestId);
    const first = guessed[0]!;
    const { rowCount } = await tx.query(
      `INSERT INTO audit_log (${insertColumns}) SELECT ${insertValues}
       WHERE coalesce((SELECT a.hash FROM audit_log a WHERE a.tenant = $1 ORDER BY a.seq DESC LIMIT 1), $15::text) = $13::text`,
      [...first.params, genesisHash],
    );
    if (rowCount === 1) {
      for (const record of guessed.slice(1))
        await tx.query(`INSERT INTO audit_log (${insertColumns}) VALUES (${insertValues})`, record.params);
      records = guessed;
    }
  }
  if (records === undefined) {
    const { rows } = await tx.query<{ seq: string; hash: string }>(
      "SELECT a.seq::text AS seq, a.hash FROM audit_log a WHERE a.tenant = $1 ORDER BY a.seq DESC LIMIT 1",
      [tenant],
    );
    records = chainAfter(
      { seq: Number(rows[0]?.seq ?? 0), hash: rows[0]?.hash ?? genesisHash },
      tenant,
      events,
      requestId,
    );
    for (const record of records)
      await tx.query(`INSERT INTO audit_log (${insertColumns}) VALUES (${insertValues})`, record.params);
  }
  const head = records.at(-1)!;
  knownHeads.delete(tenant);
  if (knownHeads.size >= maxKnownHeads) knownHeads.delete(knownHeads.keys().next().value!);
  knownHeads.set(tenant, { seq: head.seq, hash: head.hash });
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
      const tenants = [...new Set(queued.map((item) => item.tenant))].sort(
        (a, b) => toAdvisoryKey([a]) - toAdvisoryKey([b]),
      );
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
    appendStandalone: (tenant, events, requestId) =>
      db.transaction((tx) => appendRecords(tx, tenant, events, requestId)),

    async list(tenant, filter: AuditFilter, page) {
      const params = createSqlParams();
      const conditions = [`a.tenant = ${params.add(tenant)}`];
      if (page.beforeSeq !== undefined) conditions.push(`a.seq < ${params.add(page.beforeSeq)}`);
      if (filter.action !== undefined) conditions.push(`a.action = ${params.add(filter.action)}`);
      if (filter.actor !== undefined) conditions.push(`a.actor = ${params.add(filter.actor)}`);
      if (filter.targetId !== undefined)
        conditions.push(`a.target_ids @> ARRAY[${params.add(filter.targetId)}]::text[]`);
      if (filter.from !== undefined) conditions.push(`a.at >= ${params.add(filter.from.toISOString())}::timestamptz`);
      if (filter.to !== undefined) conditions.push(`a.at < ${params.add(filter.to.toISOString())}::timestamptz`);
      if (filter.outcome !== undefined) conditions.push(`a.outcome = ${params.add(filter.outcome)}`);
      const { rows } = await db.query<AuditRow>(
        `SELECT ${recordColumns} FROM audit_log a WHERE ${conditions.join(" AND ")} ORDER BY a.seq DESC LIMIT ${params.add(page.limit + 1)}`,
        params.values,
      );
      return { records: rows.slice(0, page.limit).map(toRecord), hasMore: rows.length > page.limit };
    },

    async tenants() {
      const { rows } = await db.query<{ tenant: string }>("SELECT DISTINCT tenant FROM audit_log ORDER BY tenant");
      return rows.map((row) => row.tenant);
    },

    async *chain(tenant) {
      let after = 0;
      for (;;) {
        const { rows } = await db.query<AuditRow>(
          `SELECT ${recordColumns} FROM audit_log a WHERE a.tenant = $1 AND a.seq > $2 ORDER BY a.seq LIMIT $3`,
          [tenant, after, chainPageSize],
        );
        if (rows.length === 0) return;
        const records = rows.map(toRecord);
        yield records;
        after = records.at(-1)!.seq;
        if (rows.length < chainPageSize) return;
      }
    },
  };
}
