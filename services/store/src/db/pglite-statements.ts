import { parse, protocol, type PGlite } from "@electric-sql/pglite";
import { encodeExecution, isBinaryParam, notAnArray, type ArrayElementType } from "./bind-message.js";
import type { SqlResult } from "./sql-database.js";
import { preparable, staleRowType } from "./statement-rules.js";
import { rolledBackAtCommit } from "./transaction-scope.js";

/** How many statements stay prepared; the least recently used one is closed beyond this. */
const defaultCapacity = 256;

/** Statements that may change a relation's row type, after which a prepared statement's cached row type may be stale. */
const schemaChanging = /^\s*(?:CREATE|ALTER|DROP|TRUNCATE|DO|IMPORT)\b/i;

interface PreparedStatement {
  name: string;
  /** The parameter types PostgreSQL inferred, which choose each parameter's serializer. */
  parameterTypes: number[];
}

/**
 * A transaction on PGlite's one session. It opens lazily: its BEGIN travels
 * in the same exchange as its first statement, and one that ran nothing ends
 * without a COMMIT.
 */
export interface PgliteTransaction {
  begun: boolean;
}

/** Runs statements on PGlite, preparing each distinct statement once, and runs its transactions. */
export interface PgliteStatements {
  /**
   * Runs `text` with `params`, alone or inside `transaction`, where the
   * statement skips PGlite's file-system sync (the COMMIT syncs).
   */
  run<R>(
    transaction: PgliteTransaction | undefined,
    text: string,
    params: readonly unknown[] | undefined,
  ): Promise<SqlResult<R>>;
  /**
   * Commits `transaction`, or rolls it back. A COMMIT that PostgreSQL answers
   * with ROLLBACK (an earlier statement failed and was swallowed) throws: what
   * the transaction wrote is gone, so its caller must not report success.
   */
  end(transaction: PgliteTransaction, outcome: "commit" | "rollback"): Promise<void>;
}

/** `parts` joined into one message. */
function concat(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

/**
 * A parameter as PGlite's own `query` would send it: through the serializer of the type PostgreSQL inferred; one that
 * asks for binary, as its bytes in the binary form of that (array) type, whose element type is `element`.
 */
function serialize(
  pglite: PGlite,
  value: unknown,
  type: number | undefined,
  element: ArrayElementType | undefined,
): string | Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (isBinaryParam(value)) return value.toPostgresBinary(element ?? notAnArray);
  const serializer = type === undefined ? undefined : pglite.serializers[type];
  return serializer === undefined ? String(value) : (serializer(value) as string);
}

/** Statements prepared on PGlite's session, the exchanges that carry them, and a transaction's pending BEGIN. */
interface PreparedStatements {
  /** The BEGIN a transaction's first statement carries. */
  begin: Uint8Array;
  /** Closes every prepared statement (before a statement that may change a row type). */
  closeAll(transaction: PgliteTransaction | undefined): Promise<void>;
  /** Closes the statement prepared for `text`, if there is one (its row type went stale). */
  discard(text: string, transaction: PgliteTransaction | undefined): Promise<void>;
  /** Runs `text`, prepared once under a name, with `params`. */
  execute<R>(
    text: string,
    params: readonly unknown[] | undefined,
    transaction: PgliteTransaction | undefined,
  ): Promise<SqlResult<R>>;
}

/** The element types of the array types binary parameters are given, looked up once per array type. */
interface ElementTypes {
  /** The element type of parameter type `type` (oid 0 and no name when it is not an array). */
  of(type: number, transaction: PgliteTransaction | undefined): Promise<ArrayElementType>;
  /** Forgets every type looked up (a schema change may drop a type and create it again under another oid). */
  forget(): void;
}

function createElementTypes(
  query: (
    text: string,
    params: readonly unknown[],
    transaction: PgliteTransaction | undefined,
  ) => Promise<SqlResult<ArrayElementType>>,
): ElementTypes {
  const known = new Map<number, ArrayElementType>();
  return {
    async of(type, transaction) {
      let element = known.get(type);
      if (element === undefined) {
        const { rows } = await query(
          "SELECT e.oid::integer AS oid, e.typname::text AS name FROM pg_type a JOIN pg_type e ON e.oid = a.typelem WHERE a.oid = $1::oid",
          [String(type)],
          transaction,
        );
        element = rows[0] ?? notAnArray;
        known.set(type, element);
      }
      return element;
    },
    forget: () => known.clear(),
  };
}

/** The named prepared statements of PGlite's session, at most `capacity` of them (least recently used closed first). */
function createPreparedStatements(pglite: PGlite, capacity: number): PreparedStatements {
  /** Prepared statements by text, least recently used first (a Map keeps insertion order). */
  const statements = new Map<string, PreparedStatement>();
  const elementTypes = createElementTypes((text, params, transaction) => execute(text, params, transaction));
  let sequence = 0;

  const begin = protocol.serialize.query("BEGIN");

  /** Sends `message` and returns PostgreSQL's answer; the transaction's pending BEGIN goes first, its answer dropped. */
  async function exchange(message: Uint8Array, transaction: PgliteTransaction | undefined) {
    if (transaction === undefined) return (await pglite.execProtocol(message, { syncToFs: true })).messages;
    if (transaction.begun) return (await pglite.execProtocol(message, { syncToFs: false })).messages;
    transaction.begun = true;
    const { messages } = await pglite.execProtocol(concat([begin, message]), { syncToFs: false });
    return messages.slice(messages.findIndex((message) => message.name === "readyForQuery") + 1);
  }

  async function closeAll(transaction: PgliteTransaction | undefined): Promise<void> {
    elementTypes.forget();
    if (statements.size === 0) return;
    const closes = [...statements.values()].map((statement) =>
      protocol.serialize.close({ type: "S", name: statement.name }),
    );
    statements.clear();
    await exchange(concat([...closes, protocol.serialize.sync()]), transaction);
  }

  async function prepare(text: string, transaction: PgliteTransaction | undefined): Promise<PreparedStatement> {
    const cached = statements.get(text);
    if (cached !== undefined) {
      // Most recently used now.
      statements.delete(text);
      statements.set(text, cached);
      return cached;
    }
    const name = `chub_${++sequence}`;
    const messages = await exchange(
      concat([
        protocol.serialize.parse({ name, text }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync(),
      ]),
      transaction,
    );
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(messages) };
    statements.set(text, statement);
    if (statements.size > capacity) {
      const [oldestText, oldest] = statements.entries().next().value as [string, PreparedStatement];
      statements.delete(oldestText);
      await exchange(
        concat([protocol.serialize.close({ type: "S", name: oldest.name }), protocol.serialize.sync()]),
        transaction,
      );
    }
    return statement;
  }

  async function execute<R>(
    text: string,
    params: readonly unknown[] | undefined,
    transaction: PgliteTransaction | undefined,
  ): Promise<SqlResult<R>> {
    const statement = await prepare(text, transaction);
    const values: (string | Uint8Array | null)[] = [];
    for (const [index, value] of (params ?? []).entries()) {
      const type = statement.parameterTypes[index];
      const element = isBinaryParam(value) && type !== undefined ? await elementTypes.of(type, transaction) : undefined;
      values.push(serialize(pglite, value, type, element));
    }
    const messages = await exchange(encodeExecution(statement.name, values), transaction);
    const result = parse.parseResults(messages, pglite.parsers)[0];
    const rows = (result?.rows ?? []) as R[];
    // PGlite reports affectedRows only for writes; a SELECT counts its rows, as pg does.
    return { rows, rowCount: Math.max(result?.affectedRows ?? 0, rows.length) };
  }

  async function discard(text: string, transaction: PgliteTransaction | undefined): Promise<void> {
    const stale = statements.get(text);
    statements.delete(text);
    if (stale !== undefined)
      await exchange(
        concat([protocol.serialize.close({ type: "S", name: stale.name }), protocol.serialize.sync()]),
        transaction,
      );
  }

  return { begin, closeAll, discard, execute };
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
 *
 * Transactions are plain BEGIN and COMMIT (or ROLLBACK) on the session
 * rather than PGlite's `transaction`, whose bookkeeping (two exchanges and a
 * chain of locks for each of BEGIN and COMMIT) cost about three times what
 * the statements BEGIN and COMMIT themselves cost; and BEGIN rides in the
 * exchange of the transaction's first statement.
 */
export function createPgliteStatements(pglite: PGlite, capacity = defaultCapacity): PgliteStatements {
  const { begin, closeAll, discard, execute } = createPreparedStatements(pglite, capacity);
  return {
    async run<R>(
      transaction: PgliteTransaction | undefined,
      text: string,
      params: readonly unknown[] | undefined,
    ): Promise<SqlResult<R>> {
      if (!preparable.test(text)) {
        if (schemaChanging.test(text)) await closeAll(transaction);
        if (transaction !== undefined && !transaction.begun) {
          transaction.begun = true;
          await pglite.execProtocol(begin, { syncToFs: false });
        }
        // PGlite's own query takes any statement, with its own parameter handling; inside a transaction it runs in it.
        const result = await pglite.query<R>(
          text,
          params?.map((value) => (isBinaryParam(value) ? value.toPostgres() : value)),
        );
        return { rows: result.rows, rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
      }
      try {
        return await execute<R>(text, params, transaction);
      } catch (error) {
        if (!(error instanceof Error && error.message.includes(staleRowType))) throw error;
        await discard(text, transaction);
        // Inside a transaction the error has aborted it; outside, the statement simply runs again, prepared anew.
        if (transaction !== undefined) throw error;
        return execute<R>(text, params, transaction);
      }
    },

    async end(transaction, outcome) {
      if (!transaction.begun) return;
      transaction.begun = false;
      const { messages } = await pglite.execProtocol(
        protocol.serialize.query(outcome === "commit" ? "COMMIT" : "ROLLBACK"),
        { syncToFs: true },
      );
      if (
        outcome === "commit" &&
        messages.some(
          (message) => message.name === "commandComplete" && (message as { text?: string }).text === "ROLLBACK",
        )
      ) {
        throw rolledBackAtCommit();
      }
    },
  };
}
