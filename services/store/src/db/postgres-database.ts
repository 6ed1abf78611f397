import { traceQuery } from "./trace-query.js";
import pg from "pg";
import { registerTypes } from "pgvector/pg";
import { ContextHubError, type Logger } from "@context-hub/common";
import type { SqlConnection, SqlExecutor, SqlResult } from "./sql-database.js";
import { createPostgresStatements, isStaleStatement } from "./postgres-statements.js";
import { isBinaryParam, type ArrayElementType } from "./bind-message.js";
import {
  assertOutsideTransaction,
  rolledBackAtCommit,
  runInTransactionScope,
  transactionEnded,
} from "./transaction-scope.js";

export interface PostgresOptions {
  /** A `postgres://` connection string. */
  url: string;
  /** Most connections the pool opens. */
  poolMax: number;
  /** Prepare row statements once per connection (off behind a pooler that cannot keep them). */
  preparedStatements: boolean;
  logger: Logger;
}

const unreachableErrnos = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * Whether a statement failed because its connection did (network errors,
 * SQLSTATE class 08, server shutdown), as opposed to the statement itself.
 */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (unreachableErrnos.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return code.startsWith("08") || ["57P01", "57P02", "57P03"].includes(code);
  }
  return error instanceof Error && /Connection terminated|connection error/i.test(error.message);
}

function unavailable(cause: unknown): ContextHubError {
  return new ContextHubError("STORE_UNAVAILABLE", "the store's database is unavailable", { cause });
}

/** Opens the pool (its clients sharing one set of type parsers) and checks that the server answers. */
async function openPool(options: PostgresOptions): Promise<{ pool: pg.Pool; types: pg.TypeOverrides }> {
  // One set of type parsers for every pooled client, so types registered after the pool opened reach connections already open.
  const types = new pg.TypeOverrides();
  const pool = new pg.Pool({
    types,
    connectionString: options.url,
    max: options.poolMax,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 30_000,
    application_name: "context-hub-store",
  });
  // An idle client losing its server emits here; without a listener the process would crash.
  pool.on("error", (error) => options.logger.warn({ err: error }, "idle database connection failed"));

  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end();
    throw new Error(`cannot connect to the database at DATABASE_URL: ${(error as Error).message}`, { cause: error });
  }
  return { pool, types };
}

/** Runs `fn` on a pooled client; a client whose connection failed (or that `fn` discards) is destroyed instead of returned. */
async function withClient<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient, discard: (reason: Error) => void) => Promise<T>,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw unavailable(error);
  }
  let broken: Error | undefined;
  try {
    return await fn(client, (reason) => {
      broken = reason;
    });
  } catch (error) {
    if (isConnectionFailure(error)) {
      broken = error as Error;
      throw unavailable(error);
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** What runs one statement on a client, and discards a connection whose prepared statement went stale. */
type RunStatement = <R>(
  client: pg.PoolClient,
  text: string,
  params: readonly unknown[] | undefined,
  discard: (reason: Error) => void,
) => Promise<SqlResult<R>>;

/**
 * The parameters as node-postgres sends them: a binary parameter (bind-message.ts) as its bytes, which node-postgres
 * sends in binary format, its array's element type looked up by name once per pool (on the statement's own
 * connection, so a pool with every connection busy cannot wait on itself); the rest as they are.
 */
function createBinaryParams() {
  const elementTypes = new Map<string, ArrayElementType>();
  const elementType = async (client: pg.PoolClient, name: string): Promise<ArrayElementType> => {
    const known = elementTypes.get(name);
    if (known !== undefined) return known;
    const { rows } = await client.query<{ oid: string | null }>("SELECT to_regtype($1)::oid::int8 AS oid", [name]);
    const oid = rows[0]?.oid;
    if (oid === null || oid === undefined)
      throw new Error(`a binary ${name}[] parameter, but the database has no type ${name}`);
    const found = { oid: Number(oid), name };
    elementTypes.set(name, found);
    return found;
  };
  return async (client: pg.PoolClient, params: readonly unknown[] | undefined): Promise<unknown[] | undefined> => {
    if (params === undefined || !params.some(isBinaryParam)) return params === undefined ? undefined : [...params];
    const values: unknown[] = [];
    for (const value of params) {
      if (!isBinaryParam(value)) values.push(value);
      else {
        const bytes = value.toPostgresBinary(await elementType(client, value.elementType));
        values.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      }
    }
    return values;
  };
}

/**
 * Runs one statement (prepared once per connection when `preparedStatements`); a connection whose prepared
 * statement went stale is discarded with the error.
 */
function createStatementRunner(preparedStatements: boolean): RunStatement {
  const statements = preparedStatements ? createPostgresStatements() : undefined;
  const bindable = createBinaryParams();
  return async <R>(
    client: pg.PoolClient,
    text: string,
    params: readonly unknown[] | undefined,
    discard: (reason: Error) => void,
  ): Promise<SqlResult<R>> => {
    try {
      const values = await bindable(client, params);
      const result = await traceQuery("postgresql", text, () =>
        statements === undefined ? client.query(text, values) : statements.query(client, text, values),
      );
      return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
    } catch (error) {
      if (isStaleStatement(error)) discard(error as Error);
      throw error;
    }
  };
}

/**
 * Runs `fn` in a transaction on `client`, from BEGIN to COMMIT (ROLLBACK when it fails); its executor refuses
 * statements once the transaction has ended.
 */
async function inTransaction<T>(
  connection: SqlConnection,
  client: pg.PoolClient,
  discard: (reason: Error) => void,
  run: RunStatement,
  fn: (tx: SqlExecutor) => Promise<T>,
): Promise<T> {
  let ended = false;
  // A callback that outlives the transaction must not run on a connection already back in the pool.
  const executor: SqlExecutor = {
    query: (text, params) => (ended ? Promise.reject(transactionEnded()) : run(client, text, params, discard)),
  };
  await client.query("BEGIN");
  try {
    const value = await runInTransactionScope(connection, () => fn(executor)).finally(() => (ended = true));
    const committed = await client.query("COMMIT");
    if (committed.command === "ROLLBACK") throw rolledBackAtCommit();
    return value;
  } catch (error) {
    // A connection that cannot even roll back is not returned to the pool; the original error still says what went wrong.
    await client.query("ROLLBACK").catch((rollbackError: Error) => discard(rollbackError));
    throw error;
  }
}

const channelPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Listens on `channel` on a connection of its own (a pooled one would be
 * handed to other statements): a lost connection is opened again, with
 * backoff, and `onReset` then says that notifications may have been missed.
 * Resolves once the first LISTEN is in place.
 */
async function listenOnOwnConnection(
  options: PostgresOptions,
  channel: string,
  onPayload: (payload: string) => void,
  onReset: () => void,
): Promise<() => Promise<void>> {
  if (!channelPattern.test(channel)) throw new Error(`channel ${JSON.stringify(channel)} is not a plain identifier`);
  let client: pg.Client | undefined;
  let stopped = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const lost = (which: pg.Client, error: unknown) => {
    if (stopped || client !== which) return;
    client = undefined;
    options.logger.warn({ err: error }, "the change listener lost its database connection; reconnecting");
    which.end().catch(() => undefined);
    schedule();
  };
  const connect = async () => {
    const next = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: 5_000,
      application_name: "context-hub-store-listen",
    });
    next.on("notification", (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    next.on("error", (error) => lost(next, error));
    next.on("end", () => lost(next, new Error("connection ended")));
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  };
  const schedule = () => {
    retry = setTimeout(
      () => {
        retry = undefined;
        connect().then(
          () => {
            failures = 0;
            if (!stopped) onReset();
          },
          (error: unknown) => {
            failures++;
            options.logger.warn({ err: error }, "the change listener cannot reach the database; retrying");
            if (!stopped) schedule();
          },
        );
      },
      Math.min(5_000, 100 * 2 ** failures),
    );
  };

  // Unreachable now: the caller may retry, as with any statement.
  await connect().catch((error: unknown) => {
    throw unavailable(error);
  });
  return async () => {
    stopped = true;
    if (retry !== undefined) clearTimeout(retry);
    const current = client;
    client = undefined;
    await current?.end().catch(() => undefined);
  };
}

/**
 * Connects to a PostgreSQL server through a `pg` pool. Every statement checks
 * out a client, and a transaction keeps one from BEGIN to COMMIT. Failing to
 * get a connection at all (server down, refusing connections, pool exhausted
 * past 5 s), or losing it mid-statement, is STORE_UNAVAILABLE, which callers
 * may retry; anything else is the statement's own error. Statements time out
 * after 30 s so a stuck query cannot pin a connection.
 */
export async function createPostgresConnection(options: PostgresOptions): Promise<SqlConnection> {
  const { pool, types } = await openPool(options);
  const run = createStatementRunner(options.preparedStatements);

  let closed = false;
  const connection: SqlConnection = {
    kind: "postgres",
    async query(text, params) {
      assertOutsideTransaction(connection, "query");
      try {
        return await withClient(pool, (client, discard) => run(client, text, params, discard));
      } catch (error) {
        // The schema changed under a prepared statement (another replica migrated): once more on a fresh connection.
        if (!isStaleStatement(error)) throw error;
        return withClient(pool, (client, discard) => run(client, text, params, discard));
      }
    },
    transaction(fn) {
      assertOutsideTransaction(connection, "transaction");
      return withClient(pool, (client, discard) => inTransaction(connection, client, discard, run, fn));
    },

    async ping() {
      if (closed) return false;
      // A pooled connection the server already dropped fails once and is discarded; the second attempt opens a fresh one.
      for (let attempt = 0; attempt < 2; attempt++) {
        const answered = await connection.query("SELECT 1").then(
          () => true,
          () => false,
        );
        if (answered) return true;
      }
      return false;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
    listen: (channel, onPayload, onReset) => listenOnOwnConnection(options, channel, onPayload, onReset),
    async registerVectorTypes() {
      // pgvector looks the type's oid up once and installs its parser on what it is handed: here the pool's shared parsers.
      await registerTypes({
        query: (text: string, params: unknown[]) => connection.query(text, params),
        setTypeParser: types.setTypeParser.bind(types),
      });
    },
  };
  return connection;
}
