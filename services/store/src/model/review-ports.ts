/** What a review needs from storage: the statements inside its transaction and the queue listing (review-repository.ts implements them). */
import type { StoredEntry } from "./entry-model.js";
import type { toIdQuery } from "./id-query.js";
import type { Principal } from "./principal.js";
import type { TrustState } from "./trust.js";

/** An entry as a review locks it. */
export interface ReviewTarget {
  id: string;
  owner: string;
  updatedBy: string;
  version: number;
  state: TrustState;
  contentHash: string;
}

/** The statements of a review, inside its transaction. Each composes the access predicate in review mode. */
export interface ReviewStatements {
  /** Up to `maxMatches` ids in the query's range among the entries the reviewer may review. */
  resolve(principal: Principal, query: ReturnType<typeof toIdQuery>, maxMatches: number): Promise<string[]>;
  /** Locks entry `id` if the reviewer may review it. */
  lock(principal: Principal, id: string): Promise<ReviewTarget | undefined>;
  /** Sets the locked entry's state and records the review (who, when, note); returns when it was recorded. */
  apply(principal: Principal, id: string, version: number, state: TrustState, note: string): Promise<Date | undefined>;
}

export interface ReviewRepository {
  /** One page of the tenant's entries in `states` (quarantined first, then newest first), with full text. */
  listQueue(
    principal: Principal,
    request: { states: readonly TrustState[]; threadId: string | undefined; limit: number; offset: number },
  ): Promise<{ entries: StoredEntry[]; hasMore: boolean }>;
}
