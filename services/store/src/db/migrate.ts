import type { Logger } from "@context-hub/common";
import { migrations as knownMigrations, type Migration } from "./migrations/index.js";
import type { SqlConnection, VectorType } from "./sql-database.js";

/**
 * Key of the advisory lock that serialises migrations. Replicas starting at
 * once queue on it; the first applies what is missing and the rest find
 * nothing left to do. (Two-key advisory locks live in a separate key space,
 * so the store's other locks cannot collide with it.)
 */
const migrationLockKey = "4858301372553183745";

export interface MigrationResult {
  /** Versions applied by this call, in order; empty when the schema was current. */
  applied: number[];
  /** The schema version after the call. */
  schemaVersion: number;
  vectorType: VectorType;
}

/**
 * Brings the schema up to date in one transaction under
 * `pg_advisory_xact_lock`, recording each step in `schema_migrations`.
 * Refuses (throws, changing nothing) when the database carries a schema
 * version newer than this store knows: an older replica must not write into
 * a schema it does not understand.
 */
/**
 * `apply` brings the schema up to date; `verify` (for replicas in a cluster,
 * where a migrations Job runs first) changes nothing and refuses a schema
 * older or newer than this store knows.
 */
export type MigrationMode = "apply" | "verify";

export async function migrate(
  connection: SqlConnection,
  logger: Logger,
  migrations: readonly Migration[] = knownMigrations,
  mode: MigrationMode = "apply",
): Promise<MigrationResult> {
  const latest = Math.max(0, ...migrations.map((migration) => migration.version));
  return connection.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1::bigint)", [migrationLockKey]);
    await tx.query(`
CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`);
    const { rows } = await tx.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    const present = new Set(rows.map((row) => row.version));
    const newest = rows.reduce((max, row) => Math.max(max, row.version), 0);
    if (newest > latest) {
      throw new Error(
        `the database schema is at version ${newest}, newer than this store knows (${latest}); run a store release that includes migration ${newest}, or point DATABASE_URL / STORE_DATA_DIR at another database`,
      );
    }
    const missing = migrations
      .filter((migration) => !present.has(migration.version))
      .map((migration) => migration.version);
    if (mode === "verify" && missing.length > 0) {
      throw new Error(
        `the database schema is at version ${newest}, older than this store needs (${latest}); run the migrations first (node services/store/dist/main.js migrate, the chart's migrations Job), or set STORE_MIGRATIONS=apply`,
      );
    }
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (present.has(migration.version)) continue;
      await migration.up(tx, { kind: connection.kind, logger });
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
      logger.info({ version: migration.version, name: migration.name }, "applied database migration");
    }
    const { rows: columns } = await tx.query<{ type: string }>(
      "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'",
    );
    const vectorType: VectorType = columns[0]?.type === "vector" ? "pgvector" : "real[]";
    return { applied, schemaVersion: Math.max(newest, ...applied), vectorType };
  });
}
