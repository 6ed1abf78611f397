import { createWorkerPool, isContextHubError, type Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";

/** What the full-text worker module does, by task name. */
export interface SearchVectorTasks {
  vector(input: { text: string }): Promise<string>;
}

/** Given to every full-text worker at start: the store's own `entry_search_vector`, as `CREATE FUNCTION` text. */
export interface SearchVectorWorkerData {
  functionDefinition: string;
}

/**
 * Full-text vectors of long texts, computed before a write's transaction.
 * The result is `entry_search_vector(text)` in tsvector's text form, exactly
 * what the database would compute in the write's statement.
 */
export interface SearchVectors {
  /**
   * The vector of `text`.
   *
   * @throws ContextHubError TEXT_BUDGET_EXCEEDED (stage "full-text index") when a worker's parse runs over the budget.
   */
  vectorOf(text: string): Promise<string>;
  /** Starts a worker ahead of the first long text (called once the store serves, off its start-up's path). */
  warm(): void;
  close(): Promise<void>;
}

export interface SearchVectorOptions {
  /** Most milliseconds one text's parse may take in its worker (the store's text budget). */
  budgetMs: number;
  /** Most worker threads at once. */
  workers: number;
}

/** The vector computed by the store's database, in a statement of its own: a PostgreSQL server parses it in its own backend. */
export function createDatabaseSearchVectors(db: SqlDatabase): SearchVectors {
  return {
    async vectorOf(text) {
      const { rows } = await db.query<{ vector: string }>("SELECT entry_search_vector($1::text)::text AS vector", [
        text,
      ]);
      return rows[0]?.vector ?? "";
    },
    warm: () => undefined,
    close: async () => undefined,
  };
}

/**
 * For PGlite, where every statement of every caller runs on the store's one
 * thread (to_tsvector of a megabyte holds it for 0.3–1 s): the vector is
 * computed by a second, in-memory PGlite in a worker thread, running the same
 * `entry_search_vector` (its definition is read from the store's database,
 * so the text-search configuration is the one the store uses). A worker that
 * cannot compute one (a configuration only the store's database has) leaves
 * it to the database, in the write's statement; a parse over the budget
 * fails the write before its transaction opens.
 */
export async function createWorkerSearchVectors(
  db: SqlDatabase,
  options: SearchVectorOptions,
  logger: Logger,
): Promise<SearchVectors> {
  const { rows } = await db.query<{ definition: string }>(
    "SELECT pg_get_functiondef('entry_search_vector(text)'::regprocedure) AS definition",
  );
  const workerData: SearchVectorWorkerData = { functionDefinition: rows[0]?.definition ?? "" };
  const pool = createWorkerPool({
    name: "store-search-vector",
    script: new URL("./search-vector-worker.js", import.meta.url),
    maxWorkers: options.workers,
    workerData,
  });
  const inDatabase = createDatabaseSearchVectors(db);
  let closed = false;
  return {
    warm() {
      pool.warm().catch((error: unknown) => {
        if (!closed)
          logger.warn(
            { err: error },
            "the full-text worker failed to start; long texts are parsed by the store's database",
          );
      });
    },
    async vectorOf(text) {
      try {
        return await pool.run<string>(
          "vector",
          { text },
          { stage: "full-text index", budgetMs: options.budgetMs, budgetSetting: "STORE_TEXT_BUDGET_MS" },
        );
      } catch (error) {
        if (isContextHubError(error) && error.code === "TEXT_BUDGET_EXCEEDED") throw error;
        logger.warn({ err: error }, "the full-text worker could not parse a text; the store's database parses it");
        return inDatabase.vectorOf(text);
      }
    },
    close: () => {
      closed = true;
      return pool.close();
    },
  };
}
