/**
 * Restoring an export file into a store, empty or not, keeping every id.
 * Two passes over the file: the first checks all of it and writes nothing
 * (transfer-verify.ts); the second writes it in one transaction, so an
 * import lands completely or not at all, and only if the second pass read
 * the very lines the first checked (their SHA-256 must match). Rows go in batches: a batch
 * first reads the rows already stored under its keys, skips those equal to
 * the file's (so a second import of the same file changes nothing) and
 * fails on any that differ (a conflict, naming the line), then inserts the
 * rest with one statement that rebuilds them from JSON in SQL.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../audit/audit.js";
import { promptNameIndex } from "../db/migrations/0026-prompt-names.js";
import { bulkResourceChanges } from "../db/migrations/0028-resource-subscriptions.js";
import type { SqlDatabase, SqlExecutor } from "../db/sql-database.js";
import { isUniqueViolationOf } from "../model/prompt-name.js";
import { parseBodyLine, TransferFileError, type TransferCounts, type TransferHeader } from "./transfer-format.js";
import { exactFloats } from "./transfer-export.js";
import { loadTableCodec, transferTables, type TableCodec } from "./transfer-tables.js";
import { verifyExportFile, type LineSource } from "./transfer-verify.js";

export interface ImportProgress {
  /** `checking` reads the file without writing; `importing` writes it. */
  phase: "checking" | "importing";
  /** Rows handled so far in this phase. */
  done: number;
  /** Rows in the file. */
  total: number;
}

export interface ImportOptions {
  onProgress?(progress: ImportProgress): void;
}

export interface ImportResult {
  header: TransferHeader;
  /** Rows written, per kind. */
  inserted: TransferCounts;
  /** Rows already stored with the same content, per kind. */
  skipped: TransferCounts;
}

/** Most rows, and most bytes of line text, per batch. */
const batchRows = 500;
const batchBytes = 8 * 1024 * 1024;

interface Batch {
  kind: string;
  rows: Record<string, unknown>[];
  lines: number[];
  bytes: number;
}

const keyOf = (codec: TableCodec, row: Record<string, unknown>) =>
  canonicalJson(codec.table.keys.map((key) => String(row[key])));

/** The row as the store would export it: its columns only, absent ones null. */
function comparable(codec: TableCodec, row: Record<string, unknown>): string {
  return canonicalJson(Object.fromEntries(codec.columns.map((column) => [column.name, row[column.name] ?? null])));
}

function differingColumns(
  codec: TableCodec,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): string[] {
  return codec.columns
    .filter((column) => canonicalJson(incoming[column.name] ?? null) !== canonicalJson(stored[column.name] ?? null))
    .map((column) => column.name);
}

/** Writes one batch inside the import's transaction; returns how many rows it inserted. */
async function writeBatch(tx: SqlExecutor, codec: TableCodec, batch: Batch): Promise<number> {
  const keys = JSON.stringify(
    batch.rows.map((row) => Object.fromEntries(codec.table.keys.map((key) => [key, row[key]]))),
  );
  const { rows: stored } = await tx.query<{ row: Record<string, unknown> }>(
    `SELECT ${codec.rowJson} AS row FROM ${codec.table.table} t WHERE ${codec.keyTuple} IN (SELECT ${codec.keyValues} FROM jsonb_array_elements($1::jsonb) AS r (v))`,
    [keys],
  );
  const storedByKey = new Map(stored.map(({ row }) => [keyOf(codec, row), row]));
  const fresh = new Map<string, Record<string, unknown>>();
  batch.rows.forEach((row, index) => {
    const key = keyOf(codec, row);
    // A key the file repeats within a batch is compared with its first line, as one stored before would be.
    const existing = storedByKey.get(key) ?? fresh.get(key);
    if (existing === undefined) {
      fresh.set(key, row);
      return;
    }
    if (comparable(codec, existing) !== comparable(codec, row)) {
      const where = codec.table.keys.map((name) => `${name} ${String(row[name])}`).join(", ");
      throw new TransferFileError(
        batch.lines[index]!,
        `conflict: this store already holds the ${batch.kind} with ${where}, with different ${differingColumns(codec, row, existing).join(", ")}; nothing was imported`,
      );
    }
  });
  if (fresh.size === 0) return 0;
  try {
    const { rowCount } = await tx.query(
      `INSERT INTO ${codec.table.table} (${codec.insertColumns}) SELECT ${codec.insertValues} FROM jsonb_array_elements($1::jsonb) AS r (v)`,
      [JSON.stringify([...fresh.values()])],
    );
    return rowCount;
  } catch (error) {
    const first = batch.lines[0]!;
    const last = batch.lines.at(-1)!;
    // Prompt names are unique per owner: a file's prompt may be named like another prompt its owner has here.
    if (isUniqueViolationOf(error, promptNameIndex))
      throw new Error(
        `lines ${first}-${last} (${batch.kind} rows) could not be stored: one of them is a prompt named like another prompt its owner already has in this store (prompt names are unique per owner; rename or delete one of the two first); nothing was imported`,
        { cause: error },
      );
    throw new Error(
      `lines ${first}-${last} (${batch.kind} rows) could not be stored: ${(error as Error).message}; nothing was imported`,
      { cause: error },
    );
  }
}

/**
 * Imports the export file that `source` reads (it is read twice): checks
 * it whole (refusing a malformed line by its number, a newer schema, a
 * text or image that does not match its hash, a broken audit chain), then
 * writes every row in one transaction, skipping rows already stored as
 * they are and failing on rows stored differently. On any failure nothing
 * is written.
 */
export async function importStore(
  db: SqlDatabase,
  source: LineSource,
  options: ImportOptions = {},
): Promise<ImportResult> {
  let total = 0;
  const verified = await verifyExportFile(db, source, (line) =>
    options.onProgress?.({ phase: "checking", done: line - 1, total: Math.max(total, line - 1) }),
  );
  total = Object.values(verified.counts).reduce((sum, count) => sum + count, 0);
  options.onProgress?.({ phase: "checking", done: total, total });
  const inserted: TransferCounts = Object.fromEntries(transferTables.map((table) => [table.kind, 0]));
  const skipped: TransferCounts = { ...inserted };
  await db.transaction(async (tx) => {
    // Stored rows are compared with the file's as the export would have written them.
    await tx.query(exactFloats);
    // One announcement at commit instead of one per row: resource watches re-check everything once.
    await tx.query(bulkResourceChanges.off);
    const codecs = new Map<string, TableCodec>();
    for (const table of transferTables) codecs.set(table.kind, await loadTableCodec(tx, table, db.vectorType));
    let done = 0;
    let batch: Batch | undefined;
    const flush = async () => {
      if (batch === undefined) return;
      const written = await writeBatch(tx, codecs.get(batch.kind)!, batch);
      inserted[batch.kind] = (inserted[batch.kind] ?? 0) + written;
      skipped[batch.kind] = (skipped[batch.kind] ?? 0) + batch.rows.length - written;
      done += batch.rows.length;
      batch = undefined;
      options.onProgress?.({ phase: "importing", done, total });
    };
    let line = 0;
    const digest = createHash("sha256");
    for await (const text of source()) {
      line += 1;
      digest.update(text).update("\n");
      if (line === 1) continue;
      const parsed = parseBodyLine(text, line);
      if (parsed.kind === "end") continue;
      const { kind, row } = parsed as { kind: string; row: Record<string, unknown> };
      if (batch !== undefined && (batch.kind !== kind || batch.rows.length >= batchRows || batch.bytes >= batchBytes))
        await flush();
      batch ??= { kind, rows: [], lines: [], bytes: 0 };
      batch.rows.push(row);
      batch.lines.push(line);
      batch.bytes += text.length;
    }
    await flush();
    await tx.query(bulkResourceChanges.announce);
    // Throwing here rolls the transaction back: what was written came from a file other than the one checked.
    if (digest.digest("hex") !== verified.digest)
      throw new Error("the file changed after it was checked; nothing was imported");
  });
  return { header: verified.header, inserted, skipped };
}
