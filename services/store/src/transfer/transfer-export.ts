/**
 * Writing a store (or one tenant of it) as an export file. The whole export
 * reads one snapshot (a REPEATABLE READ, READ ONLY transaction), so a file
 * taken from a PostgreSQL server that keeps serving writes is still
 * consistent: every entry with its chunks, every audit chain whole. Rows
 * are read a page at a time in key order (keyset pagination, pages cut by
 * rows and by bytes), and each line is handed to the sink before the next
 * page is read, so memory holds one page, never the store.
 */
import type { SqlDatabase, SqlExecutor } from "../db/sql-database.js";
import {
  rowLine,
  transferFormat,
  transferFormatVersion,
  type TransferCounts,
  type TransferHeader,
} from "./transfer-format.js";
import { loadTableCodec, transferTables, type TableCodec } from "./transfer-tables.js";

export interface ExportOptions {
  /** Only this tenant's rows. */
  tenant?: string;
  /** Only rows written or changed at or after this instant (see docs/transfer.md for what that covers). */
  since?: Date;
}

/** Where the lines go. `write` may wait (back-pressure); the export waits with it. */
export interface ExportSink {
  write(line: string): Promise<void>;
  /** After the header: the rows the export will write, per kind. */
  begin?(header: TransferHeader): void;
  /** After each page: rows of `kind` written so far. */
  progress?(kind: string, written: number): void;
}

/** Most rows per page. */
const pageRows = 500;
/** Most bytes of the dominant column (text, image data) per page; a single larger row still makes a page. */
const pageBytes = 8 * 1024 * 1024;

/** Floats (vector components) written in their shortest exact form, whatever the server's setting: a vector round-trips bit for bit. */
export const exactFloats = "SET LOCAL extra_float_digits = 3";

/** The store's migration level: the columns its rows carry. */
export async function readSchemaVersion(db: SqlExecutor): Promise<number> {
  const { rows } = await db.query<{ version: number | null }>("SELECT max(version) AS version FROM schema_migrations");
  return Number(rows[0]?.version ?? 0);
}

function filterOf(codec: TableCodec, options: ExportOptions, params: unknown[]): string[] {
  const conditions: string[] = [];
  if (options.tenant !== undefined) {
    params.push(options.tenant);
    conditions.push(codec.table.tenantCondition(`$${params.length}::text`));
  }
  if (options.since !== undefined) {
    params.push(options.since.toISOString());
    conditions.push(codec.table.sinceCondition(`$${params.length}::timestamptz`));
  }
  return conditions;
}

async function countRows(tx: SqlExecutor, codec: TableCodec, options: ExportOptions): Promise<number> {
  const params: unknown[] = [];
  const conditions = filterOf(codec, options, params);
  const where = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`;
  const { rows } = await tx.query<{ rows: string | number }>(
    `SELECT count(*) AS rows FROM ${codec.table.table} t ${where}`,
    params,
  );
  return Number(rows[0]?.rows ?? 0);
}

/** Writes every row of `codec`'s table that passes the filters, page by page; returns how many. */
async function exportTable(
  tx: SqlExecutor,
  codec: TableCodec,
  options: ExportOptions,
  sink: ExportSink,
): Promise<number> {
  const keyColumns = codec.table.keys.map((key, index) => `t.${key}::text AS k${index}`).join(", ");
  const order = codec.table.keys.map((key) => `t.${key}`).join(", ");
  let after: string[] | undefined;
  let written = 0;
  for (;;) {
    const params: unknown[] = [];
    const conditions = filterOf(codec, options, params);
    if (after !== undefined) {
      const values = after.map((value, index) => {
        params.push(value);
        return `$${params.length}::${codec.keyTypes[index]}`;
      });
      conditions.push(`${codec.keyTuple} > (${values.join(", ")})`);
    }
    const where = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`;
    params.push(pageRows);
    const { rows } = await tx.query<Record<string, string> & { row: string; running: string | number }>(
      `SELECT ${codec.rowJson}::text AS row, ${keyColumns}, sum(${codec.table.size}) OVER (ORDER BY ${order}) AS running
       FROM ${codec.table.table} t ${where} ORDER BY ${order} LIMIT $${params.length}`,
      params,
    );
    let taken = 0;
    while (taken < rows.length && (taken === 0 || Number(rows[taken]!.running) <= pageBytes)) taken += 1;
    for (const row of rows.slice(0, taken)) await sink.write(rowLine(codec.table.kind, row.row));
    written += taken;
    sink.progress?.(codec.table.kind, written);
    if (rows.length < pageRows && taken === rows.length) return written;
    const last = rows[taken - 1]!;
    after = codec.table.keys.map((_, index) => last[`k${index}`]!);
  }
}

/**
 * Writes the export file to `sink`: the header (with the counts of the
 * snapshot), every row of every exported table that passes the filters, and
 * the trailer with the counts written. Changes nothing. Returns the counts.
 */
export async function exportStore(db: SqlDatabase, options: ExportOptions, sink: ExportSink): Promise<TransferCounts> {
  return db.transaction(async (tx) => {
    // The first statement of the transaction, as SET TRANSACTION must be.
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    await tx.query(exactFloats);
    const codecs: TableCodec[] = [];
    for (const table of transferTables) codecs.push(await loadTableCodec(tx, table, db.vectorType));
    const expected: TransferCounts = {};
    for (const codec of codecs) expected[codec.table.kind] = await countRows(tx, codec, options);
    const header: TransferHeader = {
      format: transferFormat,
      format_version: transferFormatVersion,
      schema_version: await readSchemaVersion(tx),
      exported_at: new Date().toISOString(),
      tenant: options.tenant ?? null,
      since: options.since?.toISOString() ?? null,
      counts: expected,
    };
    await sink.write(`${JSON.stringify(header)}\n`);
    sink.begin?.(header);
    const counts: TransferCounts = {};
    for (const codec of codecs) counts[codec.table.kind] = await exportTable(tx, codec, options, sink);
    await sink.write(`${JSON.stringify({ kind: "end", counts })}\n`);
    return counts;
  });
}
