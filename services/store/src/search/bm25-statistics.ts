/**
 * The collection statistics BM25 needs: how many searchable entries a
 * caller view has, their average length, and each word's document
 * frequency. Counting the first two reads every entry the view may see, and
 * a word's frequency every visible entry holding it, so a store keeps both
 * per view for a short time.
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
export function createCollectionStatisticsCache(
  ttlMs: number,
  now: () => number = () => performance.now(),
): CollectionStatisticsCache {
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

/**
 * Document frequencies kept per caller view and lexeme, so that words a
 * view searched or expanded with a moment ago are not counted again.
 */
export interface DocumentFrequencyCache {
  /** The kept frequencies of `lexemes` for `view`, those counted less than the lifetime ago; the others are absent. */
  known(view: string, lexemes: readonly string[]): Map<string, number>;
  /** Keeps freshly counted frequencies for `view` (nothing with a lifetime of 0). */
  keep(view: string, frequencies: ReadonlyMap<string, number>): void;
}

/** Most (view, lexeme) frequencies kept at once; the least recently read go first. */
const maxFrequencies = 200_000;

/**
 * A cache of each view's document frequencies for `ttlMs` (0 keeps
 * nothing). Keyed by view and lexeme together, so one view's counts never
 * serve another's query (invariant I-7).
 */
export function createDocumentFrequencyCache(
  ttlMs: number,
  now: () => number = () => performance.now(),
): DocumentFrequencyCache {
  const kept = new Map<string, { at: number; frequency: number }>();
  // A view key is JSON (visibilityKey), which never holds a raw newline, so the pair cannot collide.
  const keyOf = (view: string, lexeme: string) => `${view}\n${lexeme}`;
  return {
    known(view, lexemes) {
      const found = new Map<string, number>();
      if (ttlMs <= 0) return found;
      const at = now();
      for (const lexeme of lexemes) {
        const key = keyOf(view, lexeme);
        const cached = kept.get(key);
        if (cached === undefined) continue;
        kept.delete(key);
        if (at - cached.at >= ttlMs) continue;
        // Re-inserting marks it most recently read.
        kept.set(key, cached);
        found.set(lexeme, cached.frequency);
      }
      return found;
    },
    keep(view, frequencies) {
      if (ttlMs <= 0) return;
      const at = now();
      for (const [lexeme, frequency] of frequencies) {
        const key = keyOf(view, lexeme);
        kept.delete(key);
        kept.set(key, { at, frequency });
      }
      while (kept.size > maxFrequencies) {
        const oldest = kept.keys().next().value;
        if (oldest === undefined) break;
        kept.delete(oldest);
      }
    },
  };
}
