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
  /**
   * The share (0–1) of all entries that the caller's tenant holds, as the
   * planner's statistics record it (tenantShareOf in ranking-statistics.ts).
   * It decides only how a ranking statement tests the tenant, never a score.
   */
  tenantShare?: number;
}

export interface CollectionStatisticsCache {
  /** The tenant's statistics, read with `count` unless read less than the cache's lifetime ago. */
  get(tenant: string, count: () => Promise<CollectionStatistics>): Promise<CollectionStatistics>;
}

/** Values counted per key and kept for a while (`createKeptCounts`). */
export interface KeptCounts<T> {
  /** The value for `key`, read with `count` unless read less than the lifetime ago. */
  get(key: string, count: () => Promise<T>): Promise<T>;
  /** The value for `key` read with `count` now, kept in place of the one kept (a kept value that no longer fits). */
  replace(key: string, count: () => Promise<T>): Promise<T>;
}

/** Most tenants whose statistics are kept at once; the least recently read go first. */
const maxTenants = 10_000;

/**
 * How many lifetimes a kept figure may still serve while a fresh count runs
 * in the background. Past it, the query waits for the count: a view nobody
 * searched for a minute is not answered with a minute-old figure.
 */
export const staleLifetimes = 6;

/**
 * Values counted per key, kept for `ttlMs` (0 counts for every query), at
 * most `maxKeys` at once (the least recently read go first). Concurrent
 * misses for one key share one count. Past the lifetime (and within
 * `staleLifetimes` of them) the kept value still answers while one count in
 * the background replaces it, so no query waits for a recount of a key
 * that is read often. A failed count is not kept.
 */
export function createKeptCounts<T>(
  ttlMs: number,
  maxKeys: number,
  now: () => number = () => performance.now(),
): KeptCounts<T> {
  interface Kept {
    at: number;
    value: Promise<T>;
    settled: boolean;
    refreshing: boolean;
  }
  const kept = new Map<string, Kept>();
  const remember = (key: string, entry: Kept) => {
    // Re-inserting marks it most recently read.
    kept.delete(key);
    kept.set(key, entry);
    while (kept.size > maxKeys) {
      const oldest = kept.keys().next().value;
      if (oldest === undefined) break;
      kept.delete(oldest);
    }
  };
  const start = (key: string, count: () => Promise<T>): Kept => {
    const entry: Kept = { at: now(), value: count(), settled: false, refreshing: false };
    entry.value.then(
      () => (entry.settled = true),
      // A failed count is not kept: the next query tries again.
      () => {
        if (kept.get(key) === entry) kept.delete(key);
      },
    );
    return entry;
  };
  const replace = (key: string, count: () => Promise<T>): Promise<T> => {
    const entry = start(key, count);
    if (ttlMs > 0) remember(key, entry);
    else kept.delete(key);
    return entry.value;
  };
  return {
    async get(key, count) {
      const cached = kept.get(key);
      const age = cached === undefined ? Infinity : now() - cached.at;
      if (cached !== undefined && age < ttlMs) {
        remember(key, cached);
        return cached.value;
      }
      if (cached !== undefined && cached.settled && age < ttlMs * staleLifetimes) {
        remember(key, cached);
        if (!cached.refreshing) {
          cached.refreshing = true;
          const fresh = start(key, count);
          fresh.value.then(
            () => {
              if (kept.get(key) === cached) remember(key, fresh);
            },
            () => (cached.refreshing = false),
          );
        }
        return cached.value;
      }
      return replace(key, count);
    },
    replace,
  };
}

/**
 * A cache of each tenant's statistics for `ttlMs` (0 reads them for every
 * query), as `createKeptCounts` keeps values. Keyed by tenant alone, so one
 * tenant's figures never serve another's query (invariant I-7).
 */
export function createCollectionStatisticsCache(
  ttlMs: number,
  now: () => number = () => performance.now(),
): CollectionStatisticsCache {
  return createKeptCounts<CollectionStatistics>(ttlMs, maxTenants, now);
}

/**
 * Document frequencies kept per caller view and lexeme, so that words a
 * view searched or expanded with a moment ago are not counted again.
 */
export interface DocumentFrequencyCache {
  /**
   * The kept frequencies of `lexemes` for `view` (`found`): those counted
   * less than the lifetime ago, and older ones within `staleLifetimes` of
   * it, which are also listed in `refresh` (each once, until kept anew) for
   * the caller to count again in the background. The others are absent.
   */
  known(view: string, lexemes: readonly string[]): { found: Map<string, number>; refresh: string[] };
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
  const kept = new Map<string, { at: number; frequency: number; refreshing: boolean }>();
  // A view key is JSON (visibilityKey), which never holds a raw newline, so the pair cannot collide.
  const keyOf = (view: string, lexeme: string) => `${view}\n${lexeme}`;
  return {
    known(view, lexemes) {
      const found = new Map<string, number>();
      const refresh: string[] = [];
      if (ttlMs <= 0) return { found, refresh };
      const at = now();
      for (const lexeme of lexemes) {
        const key = keyOf(view, lexeme);
        const cached = kept.get(key);
        if (cached === undefined) continue;
        kept.delete(key);
        const age = at - cached.at;
        if (age >= ttlMs * staleLifetimes) continue;
        if (age >= ttlMs && !cached.refreshing) {
          cached.refreshing = true;
          refresh.push(lexeme);
        }
        // Re-inserting marks it most recently read.
        kept.set(key, cached);
        found.set(lexeme, cached.frequency);
      }
      return { found, refresh };
    },
    keep(view, frequencies) {
      if (ttlMs <= 0) return;
      const at = now();
      for (const [lexeme, frequency] of frequencies) {
        const key = keyOf(view, lexeme);
        kept.delete(key);
        kept.set(key, { at, frequency, refreshing: false });
      }
      while (kept.size > maxFrequencies) {
        const oldest = kept.keys().next().value;
        if (oldest === undefined) break;
        kept.delete(oldest);
      }
    },
  };
}
