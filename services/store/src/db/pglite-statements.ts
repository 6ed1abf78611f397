import { parse, protocol, type PGlite, type Transaction } from "@electric-sql/pglite";
import type { SqlResult } from "./sql-database.js";
import { preparable, staleRowType } from "./statement-rules.js";

/** How many statements stay prepared; the least recently used one is closed beyond this. */
const defaultCapacity = 256;

/** Statements that may change a relation's row type, after which a prepared statement's cached row type may be stale. */
const schemaChanging = /^\s*(?:CREATE|ALTER|DROP|TRUNCATE|DO|IMPORT)\b/i;

interface PreparedStatement {
  name: string;
  /** The parameter types PostgreSQL inferred, which choose each parameter's serializer. */
  parameterTypes: number[];
}

/** Runs statements on PGlite, preparing each distinct statement once. */
export interface PgliteStatements {
  /**
   * Runs `text` with `params` on `target`: PGlite itself, or the transaction
   * in progress, inside which the statement skips PGlite's file-system sync
   * as PGlite's own transaction queries do.
   */
  run<R>(target: PGlite | Transaction, text: string, params: readonly unknown[] | undefined): Promise<SqlResult<R>>;
}

/**
 * Named prepared statements for PGlite's one connection. PGlite's `query`
 * sends every statement through the extended protocol unnamed: a parse, a
 * statement describe, a bind, a portal describe and an execute, each a
 * separate call into the WebAssembly, and PostgreSQL parses, analyses and
 * plans the text every time. A statement prepared once under a name runs as
 * one bind-describe-execute-sync exchange, and PostgreSQL keeps its parse
 * tree (and, after a few runs, may keep a generic plan). On the store's write
 * path that halves the cost of a statement (docs/performance.md).
 *
 * Only row statements are prepared; the rest go through PGlite's `query`.
 * PostgreSQL re-plans a prepared statement itself when the schema or the
 * statistics change, but it refuses to run one whose result row type changed
 * (a `SELECT *` after an `ALTER TABLE`), so a schema-changing statement
 * closes every prepared statement first, and a statement refused that way
 * anyway (the schema changed through another path) is prepared afresh.
 * Statements are session state, not transactional: one prepared inside a
 * transaction that rolls back stays valid.
 */
export function createPgliteStatements(pglite: PGlite, capacity = defaultCapacity): PgliteStatements {
  /** Prepared statements by text, least recently used first (a Map keeps insertion order). */
  const statements = new Map<string, PreparedStatement>();
  let sequence = 0;

  const exchange = async (message: Uint8Array, inTransaction: boolean) => (await pglite.execProtocol(message, { syncToFs: !inTransaction })).messages;

  const concat = (parts: Uint8Array[]): Uint8Array => {
    const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      whole.set(part, offset);
      offset += part.length;
    }
    return whole;
  };

  async function closeAll(inTransaction: boolean): Promise<void> {
    if (statements.size === 0) return;
    const closes = [...statements.values()].map((statement) => protocol.serialize.close({ type: "S", name: statement.name }));
    statements.clear();
    await exchange(concat([...closes, protocol.serialize.sync()]), inTransaction);
  }

  async function prepare(text: string, inTransaction: boolean): Promise<PreparedStatement> {
    const cached = statements.get(text);
    if (cached !== undefined) {
      // Most recently used now.
      statements.delete(text);
      statements.set(text, cached);
      return cached;
    }
    const name = `chub_${++sequence}`;
    const messages = await exchange(concat([protocol.serialize.parse({ name, text }), protocol.serialize.describe({ type: "S", name }), protocol.serialize.sync()]), inTransaction);
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(messages) };
    statements.set(text, statement);
    if (statements.size > capacity) {
      const [oldestText, oldest] = statements.entries().next().value as [string, PreparedStatement];
      statements.delete(oldestText);
      await exchange(concat([protocol.serialize.close({ type: "S", name: oldest.name }), protocol.serialize.sync()]), inTransaction);
    }
    return statement;
  }

  /** A parameter as PGlite's own `query` would send it: through the serializer of the type PostgreSQL inferred. */
  const serialize = (value: unknown, type: number | undefined): string | null => {
    if (value === null || value === undefined) return null;
    const serializer = type === undefined ? undefined : pglite.serializers[type];
    return serializer === undefined ? String(value) : (serializer(value) as string);
  };

  async function execute<R>(text: string, params: readonly unknown[] | undefined, inTransaction: boolean): Promise<SqlResult<R>> {
    const statement = await prepare(text, inTransaction);
    const values = (params ?? []).map((value, index) => serialize(value, statement.parameterTypes[index]));
    const messages = await exchange(
      concat([protocol.serialize.bind({ statement: statement.name, values }), protocol.serialize.describe({ type: "P" }), protocol.serialize.execute({}), protocol.serialize.sync()]),
      inTransaction,
    );
    const result = parse.parseResults(messages, pglite.parsers)[0];
    const rows = (result?.rows ?? []) as R[];
    // PGlite reports affectedRows only for writes; a SELECT counts its rows, as pg does.
    return { rows, rowCount: Math.max(result?.affectedRows ?? 0, rows.length) };
  }

  return {
    async run<R>(target: PGlite | Transaction, text: string, params: readonly unknown[] | undefined): Promise<SqlResult<R>> {
      const inTransaction = target !== pglite;
      if (!preparable.test(text)) {
        if (schemaChanging.test(text)) await closeAll(inTransaction);
        const result = await target.query<R>(text, params === undefined ? undefined : [...params]);
        return { rows: result.rows, rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
      }
      try {
        return await execute<R>(text, params, inTransaction);
      } catch (error) {
        if (!(error instanceof Error && error.message.includes(staleRowType))) throw error;
        const stale = statements.get(text);
        statements.delete(text);
        if (stale !== undefined) await exchange(concat([protocol.serialize.close({ type: "S", name: stale.name }), protocol.serialize.sync()]), inTransaction);
        // Inside a transaction the error has aborted it; outside, the statement simply runs again, prepared anew.
        if (inTransaction) throw error;
        return execute<R>(text, params, inTransaction);
      }
    },
  };
}
