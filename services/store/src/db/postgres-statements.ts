import { createHash } from "node:crypto";
import type pg from "pg";
import { preparable, staleRowType } from "./statement-rules.js";

/** How many statements stay prepared on one connection; the least recently used one is deallocated beyond this. */
const defaultCapacity = 256;

/** Whether `error` is PostgreSQL refusing a prepared statement whose result row type changed (a migration by another replica). */
export function isStaleStatement(error: unknown): boolean {
  return (
    (error as { code?: unknown }).code === "0A000" && error instanceof Error && error.message.includes(staleRowType)
  );
}

/** Runs statements on pooled connections, preparing each distinct row statement once per connection. */
export interface PostgresStatements {
  query(client: pg.ClientBase, text: string, params: readonly unknown[] | undefined): Promise<pg.QueryResult>;
}

/** node-postgres remembers, per connection, which statement names it has parsed (and skips the parse for those). */
const parsedStatementsOf = (client: pg.ClientBase) =>
  (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements;

/**
 * Named prepared statements on a PostgreSQL server. Unnamed, every statement
 * is parsed, analysed and planned on each run; prepared once per connection
 * under a name derived from its text, it is bound and executed, and
 * PostgreSQL keeps its parse tree (and, after a few runs, may keep a generic
 * plan). node-postgres prepares a named statement on its first use on a
 * connection and remembers it there without bound, so the names in use are
 * counted per connection here and the least recently used is deallocated
 * past `capacity`: statement texts built from filters vary, and the server
 * would otherwise keep every variant for the connection's life.
 *
 * Only row statements with parameters are prepared. A statement PostgreSQL
 * refuses because its result row type changed (`isStaleStatement`) leaves
 * its connection unusable for it; the caller discards that connection.
 *
 * Behind PgBouncer in transaction mode, named statements need PgBouncer
 * 1.21 or later with `max_prepared_statements` set; otherwise turn them off
 * (`STORE_PREPARED_STATEMENTS=false`).
 */
export function createPostgresStatements(capacity = defaultCapacity): PostgresStatements {
  const names = new Map<string, string>();
  /** Statement names prepared on each connection, least recently used first (a Map keeps insertion order). */
  const prepared = new WeakMap<pg.ClientBase, Map<string, true>>();

  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (name === undefined) {
      // Texts repeat; a bounded memo keeps the hashing off the hot path without growing with filter variants.
      if (names.size >= 4 * capacity) names.clear();
      name = `ch_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
      names.set(text, name);
    }
    return name;
  };

  return {
    async query(client, text, params) {
      if (params === undefined || params.length === 0 || !preparable.test(text))
        return client.query(text, params === undefined ? undefined : [...params]);
      const name = nameOf(text);
      let inUse = prepared.get(client);
      if (inUse === undefined) {
        inUse = new Map();
        prepared.set(client, inUse);
      }
      if (inUse.delete(name)) {
        inUse.set(name, true);
      } else {
        if (inUse.size >= capacity) {
          const oldest = inUse.keys().next().value as string;
          await client.query(`DEALLOCATE ${oldest}`);
          inUse.delete(oldest);
          delete parsedStatementsOf(client)[oldest];
        }
        inUse.set(name, true);
      }
      try {
        return await client.query({ name, text, values: [...params] });
      } catch (error) {
        // A statement that failed before PostgreSQL parsed it was never prepared.
        if (parsedStatementsOf(client)[name] === undefined) inUse.delete(name);
        throw error;
      }
    },
  };
}
