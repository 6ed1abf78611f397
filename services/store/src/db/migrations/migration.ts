import type { Logger } from "@context-hub/common";
import type { DatabaseKind, SqlExecutor } from "../sql-database.js";

export interface MigrationContext {
  kind: DatabaseKind;
  logger: Logger;
}

/**
 * One step of the schema. `up` runs inside the start-up transaction that holds
 * the migration lock, so it either lands completely or not at all. Versions
 * are dense and ordered; a released migration is never edited, only followed.
 */
export interface Migration {
  version: number;
  name: string;
  up(tx: SqlExecutor, context: MigrationContext): Promise<void>;
}
