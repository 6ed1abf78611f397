import type { Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";

/**
 * Planner statistics for PGlite. A PostgreSQL server's autovacuum keeps
 * them current; PGlite runs no background workers, so a table it has never
 * analysed looks empty to the planner, which then picks plans that are
 * fine for ten rows and ruinous for a hundred thousand (a by-id lookup that
 * walks a whole tenant's index, for one). This keeps them current the way
 * autovacuum would: a table is analysed when it has never been, or when its
 * size has moved by more than a fifth since it last was — but never while it
 * is smaller than a megabyte. Statistics of an empty or near-empty table are
 * worse than none: the plans PostgreSQL makes from them (and keeps, in every
 * prepared statement, until the next ANALYZE) scan the whole table, so a new
 * store analysed at start-up grew slower with every entry — the duplicate
 * pre-check took 0.5 ms at 2,000 entries and 2.2 ms at 10,000, the write's
 * insert 2.3 and 6.3 ms. A table never analysed is planned from its size on
 * disk, which serves well until there is enough of it to sample.
 *
 * The tables are planned together, so they are analysed together: once one
 * of them has statistics, every other one that holds rows is analysed
 * whatever its size. A table with statistics beside ones without costs more
 * than either state: building the HNSW index records the size of `chunks`
 * (CREATE INDEX does, as ANALYZE would) while `entries` has none, and each
 * write then took 0.9 ms more (3.6 → 4.5 ms per commit in the store, 2,000
 * entries; docs/performance.md). An index build therefore refreshes the
 * statistics as soon as it ends.
 */

/** The tables whose statistics every search plan depends on (kept versions and tombstones: those of `as_of`). */
const tables = ["entries", "chunks", "grants", "node_summaries", "entry_versions", "tombstones"] as const;

/** How far a table's size (in pages) may drift from the one recorded at its last ANALYZE before it is analysed again. */
const driftRatio = 0.2;
/** Below this many pages of drift a table is left alone, so a small store is not re-analysed on every start. */
const minDriftPages = 128;
/** A table is first analysed once it has this many pages (1 MB, about a thousand entries); see above. */
const minAnalysedPages = 128;
/**
 * How often the sizes are checked while the store runs. The check is one
 * catalog query; ANALYZE runs only for a table that drifted. Checking often
 * keeps the window short in which a young store, past its first megabyte,
 * is planned without statistics: an exact semantic search over 2,400 chunks
 * took about 125 ms in that state (a nested loop scanning `chunks` once per
 * entry; 35 ms at 1,200) and 8 ms once analysed.
 */
export const statisticsCheckIntervalMs = 30_000;

interface TableSize {
  name: string;
  /** Pages and tuples recorded by the last ANALYZE, VACUUM or CREATE INDEX; -1 tuples means none of them ran yet. */
  recordedPages: number;
  recordedTuples: number;
  pages: number;
  /** Whether ANALYZE has sampled the table's columns. */
  analysed: boolean;
}

export interface StatisticsMaintenance {
  /** Analyses the tables that need it; returns their names. */
  refresh(): Promise<string[]>;
  /** Stops the periodic check and waits for a refresh in flight. */
  close(): Promise<void>;
}

/**
 * Whether a table's statistics no longer describe it. `peersRecorded`: whether
 * any table planned with it has recorded statistics or sizes (see above).
 */
export function isStale(table: Omit<TableSize, "name">, peersRecorded = false): boolean {
  if (!table.analysed && table.pages > 0 && (peersRecorded || table.recordedTuples >= 0)) return true;
  if (table.pages < minAnalysedPages) return false;
  if (table.recordedTuples < 0) return true;
  return Math.abs(table.pages - table.recordedPages) > Math.max(minDriftPages, driftRatio * table.recordedPages);
}

/**
 * Keeps planner statistics current on PGlite: checks at once (call
 * `refresh` before serving) and every 30 seconds after, running ANALYZE
 * only on tables that drifted. On a PostgreSQL server it does nothing.
 */
export function createStatisticsMaintenance(
  db: SqlDatabase,
  logger: Logger,
  checkIntervalMs = statisticsCheckIntervalMs,
): StatisticsMaintenance {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<string[]> | undefined;
  const refresh = (): Promise<string[]> => {
    if (db.kind !== "pglite") return Promise.resolve([]);
    running ??= (async () => {
      const { rows } = await db.query<{
        name: string;
        recorded_pages: number;
        recorded_tuples: number;
        pages: number;
        analysed: boolean;
      }>(
        `SELECT c.relname AS name, c.relpages AS recorded_pages, c.reltuples AS recorded_tuples,
                (pg_relation_size(c.oid) / current_setting('block_size')::integer)::integer AS pages,
                EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = 'public' AND s.tablename = c.relname) AS analysed
         FROM pg_class c WHERE c.relname = ANY($1::text[]) AND c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace`,
        [[...tables]],
      );
      const sizes: TableSize[] = rows.map((row) => ({
        name: row.name,
        recordedPages: Number(row.recorded_pages),
        recordedTuples: Number(row.recorded_tuples),
        pages: Number(row.pages),
        analysed: row.analysed,
      }));
      const recorded = sizes.some((table) => table.analysed || table.recordedTuples >= 0);
      const stale = sizes.filter((table) => isStale(table, recorded)).map((table) => table.name);
      for (const name of stale) {
        const started = performance.now();
        // The name comes from the fixed list above, never from input.
        await db.query(`ANALYZE ${name}`);
        logger.debug({ table: name, ms: Math.round(performance.now() - started) }, "refreshed planner statistics");
      }
      return stale;
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  if (db.kind === "pglite") {
    timer = setInterval(() => {
      refresh().catch((error: unknown) => logger.warn({ err: error }, "refreshing planner statistics failed"));
    }, checkIntervalMs);
    timer.unref();
  }
  return {
    refresh,
    async close() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
