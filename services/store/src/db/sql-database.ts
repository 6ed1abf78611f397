/**
 * The small SQL surface the store is written against. Two drivers implement
 * it: PGlite in-process (laptop, tests) and a PostgreSQL server through a
 * `pg` pool (team and org scale). Repositories see only these interfaces, so
 * every query runs unchanged on both.
 */

/** The rows of one statement. */
export interface SqlResult<R> {
  rows: R[];
  /** Rows inserted, updated or deleted; 0 for a SELECT that matched nothing. */
  rowCount: number;
}

/** Anything that runs one parameterised statement. Values only ever travel as parameters (`$1`, `$2`, …). */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
}

export type DatabaseKind = "pglite" | "postgres";

/**
 * An open connection (or pool) before the schema is known. `transaction`
 * runs `fn` between BEGIN and COMMIT, rolling back if it throws; the executor
 * it hands over is the only way to run statements inside it. Calling
 * `query` or `transaction` on the connection itself from inside a
 * transaction throws instead of deadlocking (nested use is forbidden).
 */
export interface SqlConnection extends SqlExecutor {
  readonly kind: DatabaseKind;
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Whether the database answers a trivial query now. Never throws. */
  ping(): Promise<boolean>;
  /** Waits for running work, then releases the connection; PGlite flushes its data directory. */
  close(): Promise<void>;
  /**
   * Reads pgvector's `vector` columns as arrays of numbers from now on, once
   * the schema has the type; a connection without it (PGlite) reads them as
   * their text form.
   */
  registerVectorTypes?(): Promise<void>;
  /**
   * Listens on a notification channel until the returned stop is called:
   * `onPayload` hears each NOTIFY payload committed after this resolves, in
   * commit order. `onReset` is called when notifications may have been lost
   * (a PostgreSQL server's listening connection failed and was opened
   * again): a listener then assumes anything may have changed.
   */
  listen(channel: string, onPayload: (payload: string) => void, onReset: () => void): Promise<() => Promise<void>>;
}

/** How chunk vectors are stored: the pgvector `vector` type, or a plain `real[]` when the server lacks pgvector. */
export type VectorType = "pgvector" | "real[]";

/** A migrated database: a connection plus the capabilities its schema ended up with. */
export interface SqlDatabase extends SqlConnection {
  readonly vectorType: VectorType;
}

/** Collects parameter values while a statement is composed; `add` returns the placeholder for the value. */
export interface SqlParams {
  readonly values: unknown[];
  add(value: unknown): string;
}

/** A fresh parameter list whose placeholders start at `$1`. */
export function createSqlParams(): SqlParams {
  const values: unknown[] = [];
  return {
    values,
    add(value) {
      values.push(value);
      return `$${values.length}`;
    },
  };
}
