import { traceQuery } from "./trace-query.js";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { pg_textsearch } from "@electric-sql/pglite-pg_textsearch";
import type { SqlConnection, SqlExecutor, SqlResult } from "./sql-database.js";
import { assertOutsideTransaction, runInTransactionScope, transactionEnded } from "./transaction-scope.js";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.js";
import { narrowDataDir, preparePrivateDataDir } from "./data-dir-permissions.js";
import { runsAlone } from "./advisory-locks.js";
import { createPgliteStatements, type PgliteTransaction } from "./pglite-statements.js";
import { pgliteMemoryMb, sharedBuffersFor, type SharedBuffersSetting } from "./pglite-buffers.js";

const byteaOid = 17;

/** Where PGlite keeps its data: a directory, or `memory://` for a throw-away in-memory database. */
export interface PgliteOptions {
  dataDir: string;
  /** The buffer cache (pglite-buffers.ts); by default sized from the data directory, at most 1,024 MB. */
  sharedBuffers?: SharedBuffersSetting | undefined;
}

/** The buffer cache when the caller names none: sized from the data directory, under the whole of PGlite's memory. */
const automaticSharedBuffers: SharedBuffersSetting = { mb: 0, ceilingMb: pgliteMemoryMb };

/** Whether a data-dir setting means an in-memory database. */
export function isMemoryDataDir(dataDir: string): boolean {
  return dataDir.startsWith("memory://");
}

/**
 * Opens PGlite on `options.dataDir` with its extensions and bytea codecs; a data directory on disk is made private
 * and locked first (the lock released again when opening fails).
 */
async function openPglite(options: PgliteOptions): Promise<{ pglite: PGlite; lock: DataDirLock | undefined }> {
  const memory = isMemoryDataDir(options.dataDir);
  let lock: DataDirLock | undefined;
  if (!memory) {
    await preparePrivateDataDir(options.dataDir);
    lock = await acquireDataDirLock(options.dataDir);
  }
  let pglite: PGlite;
  try {
    const sharedBuffersMb = await sharedBuffersFor(
      memory ? undefined : options.dataDir,
      options.sharedBuffers ?? automaticSharedBuffers,
    );
    pglite = await PGlite.create({
      dataDir: options.dataDir,
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffersMb}MB`],
      extensions: { vector, pg_textsearch },
      // PGlite's own bytea codecs go byte by byte; images are megabytes, so hex-encode natively.
      parsers: { [byteaOid]: (value: string) => Buffer.from(value.slice(2), "hex") },
      serializers: {
        [byteaOid]: (value: Uint8Array) =>
          `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`,
      },
    });
  } catch (error) {
    await lock?.release();
    throw error;
  }
  if (!memory) {
    // A new database's files arrive with PGlite's own modes; what the store writes from here on follows its umask.
    await narrowDataDir(options.dataDir).catch(async (error: unknown) => {
      await pglite.close();
      await lock?.release();
      throw error;
    });
  }
  return { pglite, lock };
}

/**
 * Opens PGlite (PostgreSQL compiled to WebAssembly) in this process with the
 * pgvector extension loaded, and pg_textsearch's library ready for
 * `CREATE EXTENSION` (tenants' BM25 indexes, see search/bm25-indexes.ts). PGlite has one connection, so every statement
 * and every transaction goes through one queue: a transaction holds the queue
 * from BEGIN to COMMIT and no other caller's statement can land inside it.
 * A data directory on disk is made private to this user (or refused when
 * other users can read or write it: see `preparePrivateDataDir`) and locked
 * against a second store opening it.
 */
export async function createPgliteConnection(options: PgliteOptions): Promise<SqlConnection> {
  const { pglite, lock } = await openPglite(options);

  // One queue for the single connection.
  const session = createSerialQueue();

  const statements = createPgliteStatements(pglite);
  const runIn = <R>(
    transaction: PgliteTransaction | undefined,
    text: string,
    params: readonly unknown[] | undefined,
  ): Promise<SqlResult<R>> => traceQuery("pglite", text, () => statements.run<R>(transaction, text, params));
  let closed = false;

  const connection: SqlConnection = {
    kind: "pglite",
    query(text, params) {
      assertOutsideTransaction(connection, "query");
      return session.run(() => runIn(undefined, text, params));
    },
    transaction(fn) {
      assertOutsideTransaction(connection, "transaction");
      return session.run(async () => {
        const transaction: PgliteTransaction = { begun: false };
        let ended = false;
        // Statements issued together still run one after another, as on one server connection.
        const inOrder = createSerialQueue();
        // Transactions hold the one connection from BEGIN to COMMIT, so they need no locks against each other.
        const executor: SqlExecutor & { [runsAlone]: true } = {
          query<R>(text: string, params?: readonly unknown[]) {
            // A callback that outlives the transaction must not open another one on the shared session.
            if (ended) return Promise.reject(transactionEnded());
            return inOrder.run(() => runIn<R>(transaction, text, params));
          },
          [runsAlone]: true,
        };
        let result: Awaited<ReturnType<typeof fn>>;
        try {
          result = await runInTransactionScope(connection, () => fn(executor)).finally(() => (ended = true));
          await inOrder.settled();
        } catch (error) {
          await inOrder.settled();
          await statements.end(transaction, "rollback");
          throw error;
        }
        await statements.end(transaction, "commit");
        return result;
      });
    },
    async ping() {
      if (closed) return false;
      try {
        await connection.query("SELECT 1");
        return true;
      } catch {
        return false;
      }
    },
    async listen(channel, onPayload) {
      // Through the session's queue, so LISTEN never lands inside another caller's open transaction. One connection
      // loses nothing: a reset never happens here.
      const stop = await session.run(() => pglite.listen(channel, onPayload));
      return async () => {
        if (!closed) await session.run(() => stop());
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await session
        .run(async () => {
          await pglite.close();
        })
        .finally(() => lock?.release());
    },
  };
  return connection;
}

/** Runs jobs one after another, each starting when the previous one has settled. */
function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(job: () => Promise<T>): Promise<T> {
      const result = tail.then(job);
      tail = result.catch(() => undefined);
      return result;
    },
    /** Settles when every job queued so far has settled. */
    settled: (): Promise<unknown> => tail,
  };
}
