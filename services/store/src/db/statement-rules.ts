// What both databases' prepared-statement caches agree on: which statements to prepare, and how a stale one fails.

/** Statements that read or write rows, which are worth preparing; anything else (DDL, SET, BEGIN, …) runs as it is. */
export const preparable = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/** What PostgreSQL says when a prepared statement's result row type changed under it (SQLSTATE 0A000). */
export const staleRowType = "cached plan must not change result type";
