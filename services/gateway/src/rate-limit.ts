import type { RateBudget } from "./config.js";

export type BudgetName = "read" | "write";

export type RateVerdict<Name extends string = BudgetName> =
  | { ok: true }
  | { ok: false; retryAfterSeconds: number; budget: RateBudget; name: Name; wanted: number };

/** Per-key token buckets, one per budget. */
export interface RateLimiter<Name extends string = BudgetName> {
  /** Takes one token from `key`'s bucket of `budget`, or says how long until one is available. */
  take(key: string, budget: Name): RateVerdict<Name>;
  /**
   * Takes `costs[name]` tokens from each of `key`'s buckets, all or none:
   * when any bucket is short, nothing is taken and the verdict names the
   * first budget that is (a cost above its burst can never be met, and its
   * verdict says so with `wanted`).
   */
  takeAll(key: string, costs: Partial<Record<Name, number>>): RateVerdict<Name>;
  /** Gives back one token taken from `key`'s bucket of `budget` (for work that turned out not to count). */
  refund(key: string, budget: Name): void;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets held in this process: each key's bucket of each budget
 * holds at most `burst` tokens and refills at `perMinute` per minute.
 * A budget with `perMinute` 0 is unlimited. Each gateway replica counts on
 * its own, so a deployment of N replicas allows up to N times the budget.
 *
 * Memory stays bounded: when `maxBuckets` is reached, buckets that have
 * refilled completely are dropped (a full bucket is the same as none), and
 * if that is not enough the least recently used, down to 90% of the bound.
 */
export function createRateLimiter<Name extends string = BudgetName>(
  budgets: Record<Name, RateBudget>,
  now: () => number = () => performance.now(),
  maxBuckets = 100_000,
): RateLimiter<Name> {
  const buckets = new Map<string, Bucket>();
  const level = (bucket: Bucket, budget: RateBudget, at: number) =>
    Math.min(budget.burst, bucket.tokens + ((at - bucket.at) * budget.perMinute) / 60_000);
  const idOf = (name: Name, key: string) => `${name}:${key}`;

  function makeRoom(at: number) {
    for (const [id, bucket] of buckets) {
      const budget = budgets[id.slice(0, id.indexOf(":")) as Name];
      if (level(bucket, budget, at) >= budget.burst) buckets.delete(id);
    }
    // Map iteration follows insertion order and every use re-inserts, so what remains is dropped least recently used
    // first. A tenth is freed at once, so a flood of new keys pays for one scan per tenth of the table, not per key.
    const target = Math.max(1, Math.floor(maxBuckets * 0.9));
    for (const id of buckets.keys()) {
      if (buckets.size < target) break;
      buckets.delete(id);
    }
  }

  const tokensOf = (name: Name, key: string, at: number) => {
    const bucket = buckets.get(idOf(name, key));
    return bucket === undefined ? budgets[name].burst : level(bucket, budgets[name], at);
  };

  const store = (name: Name, key: string, tokens: number, at: number) => {
    const id = idOf(name, key);
    if (!buckets.has(id) && buckets.size >= maxBuckets) makeRoom(at);
    buckets.delete(id);
    buckets.set(id, { tokens, at });
  };

  const limiter: RateLimiter<Name> = {
    take: (key, name) => limiter.takeAll(key, { [name]: 1 } as Partial<Record<Name, number>>),

    takeAll(key, costs) {
      const at = now();
      const wanted = (Object.entries(costs) as [Name, number][]).filter(
        ([name, cost]) => cost > 0 && budgets[name].perMinute > 0,
      );
      for (const [name, cost] of wanted) {
        const budget = budgets[name];
        const tokens = tokensOf(name, key, at);
        if (tokens < cost) {
          const short = Math.min(cost, budget.burst) - tokens;
          return {
            ok: false,
            retryAfterSeconds: Math.max(1, Math.ceil((short * 60) / budget.perMinute)),
            budget,
            name,
            wanted: cost,
          };
        }
      }
      for (const [name, cost] of wanted) store(name, key, tokensOf(name, key, at) - cost, at);
      return { ok: true };
    },

    refund(key, name) {
      const budget = budgets[name];
      if (budget.perMinute === 0) return;
      const at = now();
      const id = idOf(name, key);
      const bucket = buckets.get(id);
      if (bucket === undefined) return;
      const tokens = Math.min(budget.burst, level(bucket, budget, at) + 1);
      if (tokens >= budget.burst) buckets.delete(id);
      else store(name, key, tokens, at);
    },
  };
  return limiter;
}
