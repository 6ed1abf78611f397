/** What a review needs from storage: the statements inside its transaction and the queue listing (review-repository.ts implements them). */
import type { StoredEntry } from "./entry-model.js";
import type { toIdQuery } from "./id-query.js";
import type { Principal } from "./principal.js";
import type { TrustState } from "./trust.js";

/** The memory a mirror entry shows, as a review of that mirror locks it: its current revision. */
export interface ReviewedMemory {
  id: string;
  namespace: string;
  key: string;
  owner: string;
  version: number;
  contentHash: string;
  /** Who wrote the current revision. */
  updatedBy: string;
  state: TrustState;
}

/** An entry as a review locks it. */
export interface ReviewTarget {
  id: string;
  owner: string;
  updatedBy: string;
  version: number;
  state: TrustState;
  contentHash: string;
  /** Set when the entry is a memory's mirror: the review judges the memory's current revision, locked with it. */
  memory?: ReviewedMemory | undefined;
}

/** The statements of a review, inside its transaction. Each composes the access predicate in review mode. */
export interface ReviewStatements {
  /** Up to `maxMatches` ids in the query's range among the entries the reviewer may review. */
  resolve(principal: Principal, query: ReturnType<typeof toIdQuery>, maxMatches: number): Promise<string[]>;
  /** Locks entry `id` if the reviewer may review it. */
  lock(principal: Principal, id: string): Promise<ReviewTarget | undefined>;
  /** Sets the locked entry's state and records the review (who, when, note); returns when it was recorded. */
  apply(principal: Principal, id: string, version: number, state: TrustState, note: string): Promise<Date | undefined>;
  /** Sets the locked memory's current revision's state and records the review on it; false when it has moved on. */
  applyMemory(
    principal: Principal,
    memory: ReviewedMemory,
    state: TrustState,
    note: string,
    reviewedAt: Date,
  ): Promise<boolean>;
}

export interface ReviewRepository {
  /** One page of the tenant's entries in `states` (quarantined first, then newest first), with full text. */
  listQueue(
    principal: Principal,
    request: { states: readonly TrustState[]; threadId: string | undefined; limit: number; offset: number },
  ): Promise<{ entries: StoredEntry[]; hasMore: boolean }>;
}
