import { AsyncLocalStorage } from "node:async_hooks";

interface OpenTransaction {
  owner: object;
  open: boolean;
}

const scope = new AsyncLocalStorage<OpenTransaction>();

/**
 * Throws when called from inside a transaction of `owner`. On PGlite such a
 * call would wait for the transaction that is waiting for it (a deadlock);
 * on a pool it would silently run outside the transaction. Both are bugs.
 */
export function assertOutsideTransaction(owner: object, operation: "query" | "transaction"): void {
  const current = scope.getStore();
  if (current !== undefined && current.owner === owner && current.open) {
    throw new Error(
      operation === "transaction"
        ? "nested transactions are not supported; use the executor the outer transaction handed you"
        : "database query called inside a transaction; use the executor the transaction handed you",
    );
  }
}

/** Runs `fn` marked as inside a transaction of `owner`, for `assertOutsideTransaction`. */
export async function runInTransactionScope<T>(owner: object, fn: () => Promise<T>): Promise<T> {
  const marker: OpenTransaction = { owner, open: true };
  try {
    return await scope.run(marker, fn);
  } finally {
    // Callbacks scheduled inside the transaction may outlive it; they are free to use the database then.
    marker.open = false;
  }
}

/**
 * What both drivers throw when PostgreSQL answers a COMMIT with ROLLBACK: a
 * statement of the transaction failed and its error was swallowed without a
 * savepoint, so everything the transaction wrote is gone and its caller must
 * not report success.
 */
export function rolledBackAtCommit(): Error {
  return new Error("the transaction was rolled back at COMMIT: one of its statements had failed");
}

/**
 * What a transaction's executor throws once its transaction has ended. A
 * callback that outlives the transaction would otherwise run outside it: on
 * PGlite it would open a new transaction on the shared session, on a pool it
 * would run on a connection already handed to another caller.
 */
export function transactionEnded(): Error {
  return new Error("this transaction has ended; its executor runs no more statements");
}
