import { lockClasses, lockInOrder, toAdvisoryKey } from "./db/advisory-locks.js";
import type { SqlExecutor } from "./db/sql-database.js";
import type { IdempotencyKey, IdempotencyStatements, RecordedCall } from "./idempotency.js";
import type { Principal } from "./principal.js";

/** Looks up what the first use of `key` by `principal` recorded; keys are per tenant and subject. */
export async function findRecordedCall(executor: SqlExecutor, principal: Principal, key: string): Promise<RecordedCall | undefined> {
  const { rows } = await executor.query<RecordedCall>("SELECT rpc, fingerprint, response FROM idempotency_keys WHERE tenant = $1 AND subject = $2 AND key = $3", [
    principal.tenant,
    principal.subject,
    key,
  ]);
  return rows[0];
}

/** The idempotency-key statements of one transaction. */
export function createIdempotencyStatements(tx: SqlExecutor): IdempotencyStatements {
  return {
    lock: (principal, key) => lockInOrder(tx, lockClasses.idempotencyKey, [toAdvisoryKey([principal.tenant, principal.subject, key])]),
    find: (principal, key) => findRecordedCall(tx, principal, key),
    async record(principal, key: IdempotencyKey, response) {
      // The primary key backs the lock: a second record of one key fails the transaction instead of overwriting the first.
      await tx.query("INSERT INTO idempotency_keys (tenant, subject, key, rpc, fingerprint, response) VALUES ($1, $2, $3, $4, $5, $6)", [
        principal.tenant,
        principal.subject,
        key.key,
        key.rpc,
        key.fingerprint,
        response,
      ]);
    },
  };
}
