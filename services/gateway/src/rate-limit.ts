import type { RateBudget } from "./config.js";

export type BudgetName = "read" | "write";

export type RateVerdict = { ok: true } | { ok: false; retryAfterSeconds: number; budget: RateBudget };

/** Per-principal token buckets, one per budget. */
export interface RateLimiter {
  /** Takes one token from `key`'s bucket of `budget`, or says how long until one is available. */
  take(key: string, budget: BudgetName): RateVerdict;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets held in this process: each principal's `read` and `write`
 * bucket holds at most `burst` tokens and refills at `perMinute` per minute.
 * A budget with `perMinute` 0 is unlimited. Each gateway replica counts on
 * its own, so a deployment of N replicas allows up to N times the budget.
 *
 * Memory stays bounded: when `maxBuckets` is reached, buckets that have
 * refilled completely are dropped (a full bucket is the same as none), and
 * if that is not enough the oldest are.
 */
export function createRateLimiter(budgets: Record<BudgetName, RateBudget>, now: () => number = () => performance.now(), maxBuckets = 100_000): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const level = (bucket: Bucket, budget: RateBudget, at: number) => Math.min(budget.burst, bucket.tokens + ((at - bucket.at) * budget.perMinute) / 60_000);

  function makeRoom(at: number) {
    for (const [id, bucket] of buckets) {
      const budget = budgets[id.slice(0, id.indexOf(":")) as BudgetName];
      if (level(bucket, budget, at) >= budget.burst) buckets.delete(id);
    }
    // Map iteration follows insertion order, so what remains is dropped oldest first.
    for (const id of buckets.keys()) {
      if (buckets.size < maxBuckets) break;
      buckets.delete(id);
    }
  }

  return {
    take(key, name) {
      const budget = budgets[name];
      if (budget.perMinute === 0) return { ok: true };
      const at = now();
      const id = `${name}:${key}`;
      const bucket = buckets.get(id);
      const tokens = bucket === undefined ? budget.burst : level(bucket, budget, at);
      if (tokens >= 1) {
        if (bucket === undefined && buckets.size >= maxBuckets) makeRoom(at);
        buckets.delete(id);
        buckets.set(id, { tokens: tokens - 1, at });
        return { ok: true };
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - tokens) * 60) / budget.perMinute)), budget };
    },
  };
}
