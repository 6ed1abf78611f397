/**
 * The statistics a full-text ranking scores with: the caller's N and average
 * length, and its query words' document frequencies, kept per visibility
 * (counted, or estimated from a sample of a large view).
 */
import { accessPredicate } from "../filters/access-predicate.js";
import {
  createCollectionStatisticsCache,
  createDocumentFrequencyCache,
  type CollectionStatistics,
} from "./bm25-statistics.js";
import { createFrequencySource } from "./bm25-frequencies.js";
import { createSampledFrequencies } from "./sampled-frequencies.js";
import { estimateCollection, type ViewSampleSettings } from "./view-sample.js";
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { FullTextQuery } from "./bm25-sql.js";

/**
 * N and the average length over the searchable entries `principal` may see:
 * those a default search may return to it (current, neither quarantined nor
 * rejected). Entries it may not see count nowhere, so they cannot move its
 * scores. Beside them, the share of the table its tenant holds.
 */
async function countCollection(
  db: SqlDatabase,
  principal: Principal,
  sample: ViewSampleSettings,
): Promise<CollectionStatistics> {
  const [counted, tenantShare] = await Promise.all([
    countView(db, principal, sample),
    tenantShareOf(db, principal.tenant),
  ]);
  return { ...counted, tenantShare };
}

/**
 * The share of all entries `tenant` holds, from the planner's own statistics:
 * the most common values of `entries.tenant` that ANALYZE records (on PGlite
 * search-statistics.ts runs it, on a server autovacuum does). A tenant they
 * do not list, or a table never analysed, counts 0. It is a figure about the
 * whole table, other tenants' entries included, so it may choose a plan
 * (full-text-statement.ts) but never enter an answer.
 */
export async function tenantShareOf(db: SqlDatabase, tenant: string): Promise<number> {
  const { rows } = await db.query<{ share: number }>(
    `SELECT m.share FROM pg_stats s
       CROSS JOIN LATERAL unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS m (tenant, share)
     WHERE s.schemaname = 'public' AND s.tablename = 'entries' AND s.attname = 'tenant' AND m.tenant = $1`,
    [tenant],
  );
  return Number(rows[0]?.share ?? 0);
}

/** N and the average length of `countCollection`: counted, or estimated from a sample of a large view. */
async function countView(
  db: SqlDatabase,
  principal: Principal,
  sample: ViewSampleSettings,
): Promise<Omit<CollectionStatistics, "tenantShare">> {
  // A large view is estimated from a sample: counting it reads every entry of the tenant (≈ 0.4 s at 100,000 on
  // PGlite, holding its one thread), and a percent or two of N or of the average length hardly moves a score.
  const estimate = await estimateCollection(db, principal, sample);
  if (estimate !== undefined) return estimate;
  const params = createSqlParams();
  const { rows } = await db.query<{ documents: string; average_length: number | null }>(
    `SELECT count(*) AS documents, avg(s.search_length)::float8 AS average_length FROM entries s WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)}`,
    params.values,
  );
  return { documents: Number(rows[0]?.documents ?? 0), averageLength: Number(rows[0]?.average_length ?? 0) };
}

/** What decides which entries a principal sees: its statistics are kept under this key, never shared with another view. */
export function visibilityKey(principal: Principal): string {
  return JSON.stringify([
    principal.tenant,
    principal.subject,
    [...principal.groups].sort(),
    [...principal.scopes].sort(),
  ]);
}

/** A kept frequency can be a little newer than the kept N: capped at N, an idf stays positive. */
function capped(frequencies: ReadonlyMap<string, number>, collection: CollectionStatistics | undefined) {
  return new Map(
    [...frequencies].map(([lexeme, frequency]) => [lexeme, Math.min(frequency, collection?.documents ?? frequency)]),
  );
}

/**
 * Now and over whole lexemes, document frequencies are read beside the ranking statement (kept per caller view);
 * as of an instant, or for a prefix, the ranking statement counts them itself.
 */
function countsAside(query: FullTextQuery, filter: SearchFilter) {
  return filter.asOf === undefined && query.mode !== "prefix";
}

/** How long statistics are kept and when a large view's are estimated from a sample of it (FullTextRanking). */
export interface StatisticsSettings {
  statisticsTtlMs: number;
  statisticsSample: ViewSampleSettings;
}

/** The caller's collection statistics and its query words' frequencies over `db`, each kept per visibility. */
export function createRankingStatistics(db: SqlDatabase, settings: StatisticsSettings) {
  const statistics = createCollectionStatisticsCache(settings.statisticsTtlMs);
  const collectionOf = async (principal: Principal, filter: SearchFilter) =>
    filter.asOf === undefined
      ? await statistics.get(visibilityKey(principal), () => countCollection(db, principal, settings.statisticsSample))
      : undefined;
  const frequencyCache = createDocumentFrequencyCache(settings.statisticsTtlMs);
  const frequencySource = createFrequencySource(db, frequencyCache);
  const sampledFrequencies = createSampledFrequencies(
    db,
    createDocumentFrequencyCache(settings.statisticsTtlMs),
    settings.statisticsSample,
    settings.statisticsTtlMs,
  );
  const queryFrequencies = async (
    principal: Principal,
    query: FullTextQuery,
    collection: CollectionStatistics | undefined,
  ) => {
    const terms = await frequencySource.queryTerms(query);
    const view = visibilityKey(principal);
    const documents = collection?.documents ?? 0;
    // Over a large view the query's words are estimated from the view's sample as feedback's are (rare ones counted).
    return {
      terms,
      frequencies: capped(
        sampledFrequencies.applies(documents)
          ? await sampledFrequencies.words(principal, view, documents, [...terms.keys()])
          : await frequencySource.frequencies(principal, view, terms.keys()),
        collection,
      ),
    };
  };
  return { collectionOf, countsAside, capped, queryFrequencies, frequencySource, sampledFrequencies };
}
