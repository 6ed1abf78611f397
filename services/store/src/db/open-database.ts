import type { Logger } from "@context-hub/common";
import { migrate, type MigrationMode } from "./migrate.js";
import { createPgliteConnection } from "./pglite-database.js";
import { createPostgresConnection } from "./postgres-database.js";
import type { SqlConnection, SqlDatabase } from "./sql-database.js";
import type { SharedBuffersSetting } from "./pglite-buffers.js";

export interface DatabaseOptions {
  /** A PostgreSQL connection string; empty for PGlite. */
  url: string;
  /** PGlite's data directory, or `memory://`; used only when `url` is empty. */
  dataDir: string;
  /** Pool size for a PostgreSQL server. */
  poolMax: number;
  /** Prepare row statements once per connection on a PostgreSQL server (default on; PGlite always does). */
  preparedStatements?: boolean;
  /** Apply pending migrations (default), or only verify the schema is exactly the one this store knows. */
  migrations?: MigrationMode;
  /** PGlite's buffer cache (pglite-buffers.ts); by default sized from the data directory. */
  pgliteSharedBuffers?: SharedBuffersSetting | undefined;
}

/**
 * Opens the configured database, applies pending migrations and reports what
 * the schema supports. Throws (leaving nothing open) when the database is
 * unreachable, already in use (a PGlite directory held by another store) or
 * carries a schema newer than this store knows.
 */
export async function openDatabase(options: DatabaseOptions, logger: Logger): Promise<SqlDatabase> {
  const connection: SqlConnection =
    options.url === ""
      ? await createPgliteConnection({ dataDir: options.dataDir, sharedBuffers: options.pgliteSharedBuffers })
      : await createPostgresConnection({
          url: options.url,
          poolMax: options.poolMax,
          preparedStatements: options.preparedStatements ?? true,
          logger,
        });
  try {
    const { applied, schemaVersion, vectorType } = await migrate(
      connection,
      logger,
      undefined,
      options.migrations ?? "apply",
    );
    if (vectorType === "pgvector") await connection.registerVectorTypes?.();
    const sharedBuffers =
      connection.kind === "pglite"
        ? (await connection.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]?.shared_buffers
        : undefined;
    logger.info({ database: connection.kind, schemaVersion, applied, vectorType, sharedBuffers }, "database ready");
    return {
      kind: connection.kind,
      vectorType,
      query: connection.query,
      transaction: connection.transaction,
      ping: connection.ping,
      close: connection.close,
      listen: connection.listen,
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
