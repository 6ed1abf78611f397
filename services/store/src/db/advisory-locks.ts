import { createHash } from "node:crypto";
import type { SqlExecutor } from "./sql-database.js";

/**
 * Classes of the two-key transaction-level advisory locks the store takes
 * (`pg_advisory_xact_lock(class, key)`). The migration lock uses the
 * one-key space, so none of these can collide with it.
 */
export const lockClasses = {
  /** A thread's writes: held while a commit looks for its duplicate and inserts, and while a thread is shared. */
  thread: 0x43480001,
  /** An idempotency key: held from the key's lookup until its response is recorded. */
  idempotencyKey: 0x43480002,
  /** A tenant's audit chain: held from reading the chain's head until the appended records commit. Always the last lock a transaction takes. */
  auditChain: 0x43480003,
  /** A publisher's resource publications: held while a publish counts them against the limits and writes. */
  publisher: 0x43480004,
  /** A principal's resource subscriptions: held while a subscribe counts them against the limits and writes. */
  subscriber: 0x43480005,
} as const;

/**
 * The 32-bit key of a lock on `parts` (e.g. tenant and thread). Computed
 * here rather than in SQL so that callers can sort the keys they need and
 * take them in one global order: two transactions needing the same locks
 * then queue instead of deadlocking.
 */
export function toAdvisoryKey(parts: readonly string[]): number {
  return createHash("sha256").update(JSON.stringify(parts)).digest().readInt32BE(0);
}

/**
 * Marks the executor of a transaction that runs alone: no other transaction
 * can start, or run a statement, until it ends (PGlite's one connection is
 * held from BEGIN to COMMIT). Advisory locks have nothing to exclude there.
 */
export const runsAlone: unique symbol = Symbol("transaction runs alone");

export function isAlone(tx: SqlExecutor): boolean {
  return (tx as SqlExecutor & { [runsAlone]?: boolean })[runsAlone] === true;
}

/**
 * Takes the transaction-level locks of `keys` in ascending order (duplicates
 * once); each is held until the transaction ends. A transaction that runs
 * alone takes none: each lock would be a round trip that excludes nobody.
 */
export async function lockInOrder(tx: SqlExecutor, lockClass: number, keys: readonly number[]): Promise<void> {
  if (isAlone(tx)) return;
  for (const key of [...new Set(keys)].sort((a, b) => a - b)) {
    await tx.query("SELECT pg_advisory_xact_lock($1::integer, $2::integer)", [lockClass, key]);
  }
}
