/**
 * The collection statistics BM25 needs beside document frequencies: how many
 * searchable entries a tenant has and their average length. Counting them
 * reads every one of the tenant's entries, so a store keeps them per tenant
 * for a short time; document frequencies are always counted per query.
 */

/** A tenant's searchable entries: how many, and their average length in tokens. */
export interface CollectionStatistics {
  documents: number;
  averageLength: number;
}

export interface CollectionStatisticsCache {
  /** The tenant's statistics, read with `count` unless read less than the cache's lifetime ago. */
  get(tenant: string, count: () => Promise<CollectionStatistics>): Promise<CollectionStatistics>;
}

/** Most tenants whose statistics are kept at once; the least recently read go first. */
const maxTenants = 10_000;

/**
 * A cache of each tenant's statistics for `ttlMs` (0 reads them for every
 * query). Keyed by tenant alone, so one tenant's figures never serve
 * another's query (invariant I-7). Concurrent misses for one tenant share
 * one count.
 */
export function createCollectionStatisticsCache(ttlMs: number, now: () => number = () => performance.now()): CollectionStatisticsCache {
  const kept = new Map<string, { at: number; value: Promise<CollectionStatistics> }>();
  return {
    async get(tenant, count) {
      const cached = kept.get(tenant);
      if (cached !== undefined && now() - cached.at < ttlMs) {
        // Re-inserting marks it most recently read.
        kept.delete(tenant);
        kept.set(tenant, cached);
        return cached.value;
      }
      const value = count();
      kept.delete(tenant);
      if (ttlMs > 0) kept.set(tenant, { at: now(), value });
      // A failed count is not kept: the next query tries again.
      value.catch(() => {
        if (kept.get(tenant)?.value === value) kept.delete(tenant);
      });
      while (kept.size > maxTenants) {
        const oldest = kept.keys().next().value;
        if (oldest === undefined) break;
        kept.delete(oldest);
      }
      return value;
    },
  };
}
