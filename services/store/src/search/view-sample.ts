/**
 * A sample of a caller's view, for statistics a large view would take too
 * long to count on every refresh: BM25's entry count and average length
 * (`estimateCollection`) and pseudo-relevance feedback's document
 * frequencies (sampled-frequencies.ts).
 *
 * The sample is the view's entries whose sample key (the last two bytes of
 * the id, random in every UUID the store writes; indexed per tenant by
 * migration 21) falls below a bound, so it holds about bound / 65,536 of
 * the view, is read through the index, and is chosen by nothing but the
 * entries' own ids: an entry the caller may not see, or another tenant's,
 * never changes which entries are sampled, how many, or any estimate
 * (invariants I-2 and I-7).
 */
import { createSqlParams, type SqlDatabase, type SqlParams } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { Principal } from "../model/principal.js";
import type { CollectionStatistics } from "./bm25-statistics.js";

/** When and how widely statistics are estimated from a sample (STORE_STATISTICS_SAMPLE_*). */
export interface ViewSampleSettings {
  /** About how many of the view's entries a sample holds; 0 always counts. */
  entries: number;
  /** Views of at most this many searchable entries are counted, not sampled. */
  above: number;
}

/** An entry's sample key, 0 to 65,535, as migration 21 indexes it. */
export const sampleKeySql = (alias: string) =>
  `(get_byte(uuid_send(${alias}.id), 14) * 256 + get_byte(uuid_send(${alias}.id), 15))`;

/** How many sample keys there are. */
export const sampleKeys = 65_536;

/** The key bound whose sample of a view of `documents` entries holds about `entries` of them. */
export const keyBoundFor = (documents: number, entries: number) =>
  Math.min(sampleKeys, Math.max(1, Math.ceil((sampleKeys * entries) / Math.max(documents, 1))));

/** A first look at a view's size: a 64th of its keys. */
const probeKeys = 1_024;

/**
 * The sample's condition on `entries s`: the caller's searchable entries (the
 * access predicate and the trust filter) whose sample key is below `keyBelow`.
 */
export function sampleCondition(principal: Principal, keyBelow: number, params: SqlParams): string {
  return `${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)} AND ${sampleKeySql("s")} < ${params.add(keyBelow)}`;
}

/** How many of the view's searchable entries have a key below `keyBelow`, and their average length. */
export function sampledCollectionStatement(principal: Principal, keyBelow: number, params: SqlParams): string {
  return `SELECT count(*)::float8 AS entries, avg(s.search_length)::float8 AS average_length FROM entries s
     WHERE ${sampleCondition(principal, keyBelow, params)}`;
}

async function sampled(db: SqlDatabase, principal: Principal, keyBelow: number) {
  const params = createSqlParams();
  const { rows } = await db.query<{ entries: number; average_length: number | null }>(
    sampledCollectionStatement(principal, keyBelow, params),
    params.values,
  );
  const entries = Number(rows[0]?.entries ?? 0);
  return {
    documents: Math.round((entries * sampleKeys) / keyBelow),
    entries,
    averageLength: Number(rows[0]?.average_length ?? 0),
  };
}

/**
 * The view's entry count and average length estimated from a sample of
 * about `settings.entries` of it, or undefined when the view holds at most
 * `settings.above` entries (then they are counted). A probe of a 64th of the
 * keys sizes the view; if it holds too few entries to estimate from, a
 * second sample of about `settings.entries` does.
 */
export async function estimateCollection(
  db: SqlDatabase,
  principal: Principal,
  settings: ViewSampleSettings,
): Promise<CollectionStatistics | undefined> {
  if (settings.entries <= 0) return undefined;
  const probe = await sampled(db, principal, probeKeys);
  if (probe.documents <= settings.above) return undefined;
  if (probe.entries >= settings.entries) return { documents: probe.documents, averageLength: probe.averageLength };
  const estimate = await sampled(db, principal, keyBoundFor(probe.documents, settings.entries));
  return { documents: estimate.documents, averageLength: estimate.averageLength };
}
