/**
 * delete_context_batch by criteria (thread_ids, source, older_than_days)
 * instead of ids: the entries the caller can see that match every criterion
 * are found through the store's filtered listing (access predicate and all),
 * then deleted through the same delete as by id, so each gets the same
 * tombstone and audit record. One call deletes at most one batch; a dry run
 * only counts.
 */
import type { Principal } from "../principal.js";
import type { SearchFilterArgs } from "../clients/search-filter.js";

export interface DeleteCriteria {
  thread_ids?: string[] | undefined;
  source?: "user" | "agent" | undefined;
  older_than_days?: number | undefined;
}

interface Lister {
  list(
    principal: Principal,
    filter: SearchFilterArgs,
    page: { limit: number; offset: number },
  ): Promise<{ results: { id: string }[]; hasMore: boolean }>;
}

/** The deepest a listing pages (its maximum offset); a dry run counts at most this many per thread. */
export const countCeiling = 10_000;
const pageSize = 100;
const dayMs = 86_400_000;

/** The listing filters the criteria mean: one per thread (or one without a thread), all entries, quarantined included. */
function filtersFor(criteria: DeleteCriteria, now: Date): SearchFilterArgs[] {
  const endDate =
    criteria.older_than_days === undefined
      ? undefined
      : new Date(now.getTime() - criteria.older_than_days * dayMs).toISOString();
  const base: SearchFilterArgs = { source: criteria.source, end_date: endDate, include_quarantined: true };
  return criteria.thread_ids === undefined
    ? [base]
    : [...new Set(criteria.thread_ids)].map((thread) => ({ ...base, thread_id: thread }));
}

/**
 * The matching entries: the first `want` ids, and how many match in all
 * (counted to `countCeiling` per thread when `countAll`, else only to one
 * past `want`); `exact` is false when a count reached its ceiling.
 */
export async function findMatching(
  lister: Lister,
  principal: Principal,
  criteria: DeleteCriteria,
  want: number,
  countAll: boolean,
  now = new Date(),
) {
  const ids: string[] = [];
  let total = 0;
  let exact = true;
  for (const filter of filtersFor(criteria, now)) {
    for (let offset = 0; ; offset += pageSize) {
      if (offset >= countCeiling) {
        exact = false;
        break;
      }
      const page = await lister.list(principal, filter, { limit: pageSize, offset });
      total += page.results.length;
      for (const { id } of page.results) if (ids.length < want) ids.push(id);
      if (!page.hasMore) break;
      if (!countAll && total > want) return { ids, total, exact: false };
    }
    if (!countAll && total > want) return { ids, total, exact: false };
  }
  return { ids, total, exact };
}
