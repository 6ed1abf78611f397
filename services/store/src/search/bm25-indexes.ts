/**
 * Tenants' own BM25 indexes: an any-word search over a large tenant is
 * ranked inside an index (pg_textsearch's Block-Max WAND) instead of by
 * scoring every matching entry in SQL, which grows with the matches (at
 * 100,000 entries an everyday question matches most of them).
 *
 * Each index is partial, over one tenant's searchable entries (neither
 * quarantined nor rejected), so its statistics (entry count, average
 * length, document frequencies) are that tenant's alone: another tenant's
 * entries never move a score or an order (invariant I-7). They are the
 * tenant's, not the caller's view of it: entries the caller may not see
 * count towards them, as docs/security.md says. The index ranks
 * `entry_search_tokens(search_vector)` (migration 19), the stored vector's
 * lexemes as tokens, so its counts are the store's own.
 *
 * A tenant gets its index once it holds `minEntries` searchable entries:
 * below that, ranking in SQL is fast and its statistics are the caller's
 * view. The store looks in the background at start-up and every `checkMs`;
 * builds take the database's advisory lock, so replicas of the store build
 * each index once, and until a tenant's index is built its searches rank in SQL.
 */
import { createHash } from "node:crypto";
import type { Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { Bm25IndexSettings, Bm25Parameters } from "./search-config.js";

/** Below this many rows in `entries` (by default), the store counts every tenant's entries outright to find those past the threshold. */
const defaultCountAllBelow = 200_000;

/** Serialises index builds between replicas (its own key; migrations and the language use others). */
const buildLockKey = "4858301372553183747";

export interface TenantBm25Indexes {
  /** `bm25` when tenants' indexes are in use (pg_textsearch is loaded), else `gin`. */
  readonly engine: "bm25" | "gin";
  /** The name of the index ranking `tenant`'s entries, when it has one. */
  indexOf(tenant: string): string | undefined;
  /**
   * Builds the indexes of tenants that reached the threshold, rebuilds those with other `k1`/`b`, and reloads the
   * list (what the store does in the background at start-up and every `checkMs`).
   */
  maintain(): Promise<void>;
  /** Reloads the list of built indexes (after a ranking found one gone). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** `value` as a SQL string literal (standard-conforming strings, checked at start: only `'` is special). */
export const sqlLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** The ranked expression, as the index and every search over it write it. */
export const tokensSql = (alias: string) => `entry_search_tokens(${alias}.search_vector)`;

/** A query's lexemes (with how often it repeats each) as the index's tokens: the text `to_bm25query` parses. */
export function queryTokens(terms: ReadonlyMap<string, number>): string {
  const tokens: string[] = [];
  for (const [lexeme, repeats] of terms) {
    const token = `x${Buffer.from(lexeme, "utf8").toString("hex")}`;
    for (let i = 0; i < repeats; i++) tokens.push(token);
  }
  return tokens.join(" ");
}

/** The index name of `tenant`: a hash, so any tenant string gives a plain identifier. */
export const indexNameOf = (tenant: string) =>
  `entries_bm25_${createHash("sha256").update(tenant).digest("hex").slice(0, 24)}`;

const noIndexes: TenantBm25Indexes = {
  engine: "gin",
  indexOf: () => undefined,
  maintain: async () => {},
  reload: async () => {},
  close: async () => {},
};

/** Drops every tenant's BM25 index and forgets it. */
async function dropAll(db: SqlDatabase, logger: Logger): Promise<void> {
  const { rows } = await db.query<{ tenant: string; index_name: string }>(
    "SELECT tenant, index_name FROM bm25_indexes",
  );
  for (const row of rows) {
    await db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1::bigint)", [buildLockKey]);
      await tx.query(`DROP INDEX IF EXISTS ${indexNameOf(row.tenant)}`);
      await tx.query("DELETE FROM bm25_indexes WHERE tenant = $1", [row.tenant]);
    });
    logger.info({ index: row.index_name }, "dropped a tenant's BM25 index: STORE_FULL_TEXT_INDEX is gin");
  }
}

/**
 * Whether pg_textsearch is available to `db`, loading it (`CREATE EXTENSION`; in `verify` mode only when already
 * installed): undefined when it is, else no indexes (or, with `bm25`, an error naming the variable and the reason).
 */
async function loadExtension(
  db: SqlDatabase,
  settings: Bm25IndexSettings,
  logger: Logger,
  migrations: "apply" | "verify",
): Promise<TenantBm25Indexes | undefined> {
  const unavailable = (reason: string): TenantBm25Indexes => {
    if (settings.mode === "bm25")
      throw new Error(`STORE_FULL_TEXT_INDEX=bm25 needs the pg_textsearch extension, and ${reason}`);
    logger.info({ reason }, "full text ranks in SQL: pg_textsearch is not available");
    return noIndexes;
  };
  const conforming = await db.query<{ value: string }>(
    "SELECT current_setting('standard_conforming_strings') AS value",
  );
  if (conforming.rows[0]?.value !== "on") return unavailable("standard_conforming_strings is off");
  const installed = await db.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_textsearch'");
  if (installed.rows.length === 0) {
    if (migrations === "verify")
      return unavailable("it is not installed in this database (and migrations only verify)");
    try {
      await db.query("CREATE EXTENSION IF NOT EXISTS pg_textsearch");
    } catch (error) {
      return unavailable(`this database cannot load it: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return undefined;
}

/**
 * Builds `tenant`'s index with `bm25`'s parameters under the build lock, unless one with those parameters is
 * already there; true when it built one.
 */
async function buildTenantIndex(db: SqlDatabase, bm25: Bm25Parameters, tenant: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1::bigint)", [buildLockKey]);
    const { rows } = await tx.query<{ k1: number; b: number }>("SELECT k1, b FROM bm25_indexes WHERE tenant = $1", [
      tenant,
    ]);
    const existing = rows[0];
    const name = indexNameOf(tenant);
    const present = await tx.query("SELECT 1 FROM pg_class WHERE relname = $1 AND relkind = 'i'", [name]);
    if (existing !== undefined && existing.k1 === bm25.k1 && existing.b === bm25.b && present.rows.length > 0)
      return false;
    await tx.query(`DROP INDEX IF EXISTS ${name}`);
    // Searchable written by the searches' own trust filter, so the planner proves every search implies it.
    await tx.query(
      `CREATE INDEX ${name} ON entries USING bm25 ((${tokensSql("entries")}))
         WITH (text_config = 'simple', k1 = ${Number(bm25.k1)}, b = ${Number(bm25.b)})
         WHERE tenant = ${sqlLiteral(tenant)} AND ${trustFilter("entries", false)}`,
    );
    await tx.query(
      `INSERT INTO bm25_indexes (tenant, index_name, k1, b) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant) DO UPDATE SET index_name = EXCLUDED.index_name, k1 = EXCLUDED.k1, b = EXCLUDED.b, built_at = now()`,
      [tenant, name, bm25.k1, bm25.b],
    );
    return true;
  });
}

/**
 * The tenants holding at least `minEntries` searchable entries. Counting every tenant's entries reads the whole
 * table, which at a million entries takes seconds of a database PGlite serves on one thread; so on a table past
 * `countAllBelow` rows (200,000 by default) the planner's statistics name the candidates (every tenant holding a large share is among
 * their most common values), and each candidate without an index is counted only as far as `minEntries`.
 */
async function tenantsPastThreshold(
  db: SqlDatabase,
  settings: Bm25IndexSettings,
  isBuilt: (tenant: string) => boolean,
): Promise<{ tenant: string; entries: number }[]> {
  const size = await db.query<{ rows: number }>(
    "SELECT greatest(reltuples, 0)::float8 AS rows FROM pg_class WHERE relname = 'entries' AND relkind = 'r'",
  );
  if ((size.rows[0]?.rows ?? 0) < (settings.countAllBelow ?? defaultCountAllBelow)) {
    const { rows } = await db.query<{ tenant: string; entries: number }>(
      `SELECT e.tenant, count(*)::float8 AS entries FROM entries e WHERE ${trustFilter("e", false)}
         GROUP BY e.tenant HAVING count(*) >= $1`,
      [settings.minEntries],
    );
    return rows.map((row) => ({ tenant: row.tenant, entries: Number(row.entries) }));
  }
  const { rows: candidates } = await db.query<{ tenant: string }>(
    `SELECT v.tenant FROM pg_stats s CROSS JOIN LATERAL unnest(s.most_common_vals::text::text[], s.most_common_freqs)
         AS v (tenant, frequency)
       WHERE s.schemaname = current_schema() AND s.tablename = 'entries' AND s.attname = 'tenant'
         AND v.frequency * $1::float8 >= $2::float8 / 2`,
    [size.rows[0]?.rows ?? 0, settings.minEntries],
  );
  const past: { tenant: string; entries: number }[] = [];
  for (const { tenant } of candidates) {
    if (isBuilt(tenant)) {
      past.push({ tenant, entries: settings.minEntries });
      continue;
    }
    const { rows } = await db.query<{ entries: number }>(
      `SELECT count(*)::float8 AS entries FROM (SELECT 1 FROM entries e WHERE e.tenant = $1 AND ${trustFilter("e", false)} LIMIT $2) c`,
      [tenant, settings.minEntries],
    );
    if (Number(rows[0]?.entries ?? 0) >= settings.minEntries) past.push({ tenant, entries: settings.minEntries });
  }
  return past;
}

/**
 * Readies tenants' BM25 indexes as `settings` says: loads pg_textsearch
 * (`CREATE EXTENSION`; in `verify` mode only when already installed), reads
 * which are built, starts building the missing ones in the background (in
 * `verify` mode, only uses those built), and checks again every `checkMs`. With `gin`, or with
 * `auto` on a database that cannot load pg_textsearch, none are used;
 * `bm25` there is an error naming the variable.
 */
export async function openTenantBm25Indexes(
  db: SqlDatabase,
  settings: Bm25IndexSettings,
  bm25: Bm25Parameters,
  logger: Logger,
  migrations: "apply" | "verify" = "apply",
): Promise<TenantBm25Indexes> {
  if (settings.mode === "gin") {
    // Indexes built while `bm25` was on would go on costing every write: turned off, they are dropped.
    if (migrations === "apply") await dropAll(db, logger);
    return noIndexes;
  }
  const extensionUnavailable = await loadExtension(db, settings, logger, migrations);
  if (extensionUnavailable !== undefined) return extensionUnavailable;

  let built = new Map<string, string>();
  const reload = async () => {
    const { rows } = await db.query<{ tenant: string; index_name: string }>(
      `SELECT r.tenant, r.index_name FROM bm25_indexes r
       WHERE EXISTS (SELECT 1 FROM pg_class c WHERE c.relname = r.index_name AND c.relkind = 'i')`,
    );
    built = new Map(rows.map((row) => [row.tenant, row.index_name]));
  };
  // A replica that only verifies the schema builds nothing: it uses the indexes others built.
  const maintain = async () => {
    if (migrations === "verify") return reload();
    for (const row of await tenantsPastThreshold(db, settings, (tenant) => built.has(tenant))) {
      const started = performance.now();
      if (await buildTenantIndex(db, bm25, row.tenant))
        logger.info(
          { index: indexNameOf(row.tenant), entries: row.entries, ms: Math.round(performance.now() - started) },
          "built a tenant's BM25 index",
        );
    }
    await reload();
  };

  // Serve at once with the indexes already built; the missing ones are built in the background (on PGlite a build
  // holds the database while it runs, so the first searches wait for it rather than the start-up).
  await reload();
  let running: Promise<void> | undefined;
  const check = () => {
    if (running !== undefined) return;
    running = maintain()
      .catch((error: unknown) => logger.warn({ err: error }, "building tenants' BM25 indexes failed"))
      .finally(() => {
        running = undefined;
      });
  };
  check();
  const timer = settings.checkMs > 0 ? setInterval(check, settings.checkMs) : undefined;
  timer?.unref();
  return {
    engine: "bm25",
    indexOf: (tenant) => built.get(tenant),
    maintain,
    reload,
    async close() {
      if (timer !== undefined) clearInterval(timer);
      await running;
    },
  };
}
