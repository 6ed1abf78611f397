import { lockClasses, lockInOrder, toAdvisoryKey } from "../db/advisory-locks.js";
import type { SqlExecutor } from "../db/sql-database.js";
import type { IdempotencyKey, IdempotencyStatements, RecordedCall } from "./idempotency.js";
import type { Principal } from "../model/principal.js";

/** Looks up what the first use of `key` by `principal` recorded, unless that was before `notBefore` (expired); keys are per tenant and subject. */
export async function findRecordedCall(
  executor: SqlExecutor,
  principal: Principal,
  key: string,
  notBefore: Date,
): Promise<RecordedCall | undefined> {
  const { rows } = await executor.query<RecordedCall>(
    "SELECT rpc, fingerprint, response FROM idempotency_keys WHERE tenant = $1 AND subject = $2 AND key = $3 AND created_at >= $4::timestamptz",
    [principal.tenant, principal.subject, key, notBefore.toISOString()],
  );
  return rows[0];
}

/** The idempotency-key statements of one transaction. */
export function createIdempotencyStatements(tx: SqlExecutor): IdempotencyStatements {
  return {
    lock: (principal, key) =>
      lockInOrder(tx, lockClasses.idempotencyKey, [toAdvisoryKey([principal.tenant, principal.subject, key])]),
    find: (principal, key, notBefore) => findRecordedCall(tx, principal, key, notBefore),
    async record(principal, key: IdempotencyKey, response, at, notBefore) {
      // An expired record of the key gives way to this use, which starts a new window.
      await tx.query(
        "DELETE FROM idempotency_keys WHERE tenant = $1 AND subject = $2 AND key = $3 AND created_at < $4::timestamptz",
        [principal.tenant, principal.subject, key.key, notBefore.toISOString()],
      );
      // The primary key backs the lock: a second record of one key fails the transaction instead of overwriting the first.
      await tx.query(
        "INSERT INTO idempotency_keys (tenant, subject, key, rpc, fingerprint, response, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz)",
        [principal.tenant, principal.subject, key.key, key.rpc, key.fingerprint, response, at.toISOString()],
      );
    },
  };
}

/**
 * Deletes at most `limit` idempotency records made before `notBefore`,
 * oldest first, skipping rows another transaction holds (a key being
 * re-recorded right now), and returns how many went.
 */
export async function deleteExpiredIdempotencyKeys(
  executor: SqlExecutor,
  notBefore: Date,
  limit: number,
): Promise<number> {
  const { rows } = await executor.query<{ deleted: number }>(
    `WITH expired AS (
       SELECT tenant, subject, key FROM idempotency_keys WHERE created_at < $1::timestamptz ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
     ), gone AS (
       DELETE FROM idempotency_keys k USING expired x WHERE k.tenant = x.tenant AND k.subject = x.subject AND k.key = x.key RETURNING 1
     )
     SELECT count(*)::integer AS deleted FROM gone`,
    [notBefore.toISOString(), limit],
  );
  return rows[0]?.deleted ?? 0;
}
