/** What a review needs from storage: the statements inside its transaction and the queue listing (review-repository.ts implements them). */
import type { StoredEntry } from "./entry-model.js";
import type { toIdQuery } from "./id-query.js";
import type { Principal } from "./principal.js";
import type { Trust, TrustState } from "./trust.js";

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

/** A quarantined or rejected handoff as the review queue shows it. */
export interface QueuedHandoff {
  id: string;
  creator: string;
  recipientKind: string;
  recipient: string;
  title: string;
  /** What the screen read and a reviewer judges: title, summary, next steps, open questions, outcome, reason. */
  text: string;
  status: string;
  version: number;
  trust: Trust;
  createdAt: Date;
  updatedAt: Date;
  updatedBy: string;
  reviewedBy: string | undefined;
  reviewedAt: Date | undefined;
  reviewNote: string | undefined;
  /** The SHA-256s its `artifact` links name, distinct and sorted; empty without any. */
  artifacts: string[];
}

/** A quarantined or rejected session event as the review queue shows it. */
export interface QueuedSessionEvent {
  sessionId: string;
  seq: number;
  eventKind: string;
  /** The event's payload (JSON text), what a reviewer judges. */
  payload: string;
  sessionOwner: string;
  namespace: string;
  writtenBy: string;
  writtenAt: Date;
  trust: Trust;
  reviewedBy: string | undefined;
  reviewedAt: Date | undefined;
  reviewNote: string | undefined;
}

/** One item of the review queue: an entry (a memory's mirror among them), a handoff or a session event. */
export type QueueItem =
  | { type: "entry"; entry: StoredEntry }
  | { type: "handoff"; handoff: QueuedHandoff }
  | { type: "session_event"; event: QueuedSessionEvent };

export interface ReviewRepository {
  /**
   * One page of the tenant's items in `states` (quarantined first, then newest first), with full text: entries,
   * and handoffs and session events while quarantined or rejected, in one order.
   */
  listQueue(
    principal: Principal,
    request: { states: readonly TrustState[]; threadId: string | undefined; limit: number; offset: number },
  ): Promise<{ items: QueueItem[]; hasMore: boolean }>;
}

/** A handoff or a session event as its review locks it. */
export interface WorkflowReviewTarget {
  /** Whether the reviewer may review it: its trust waits for a reviewer (otherwise it is only visible to them). */
  open: boolean;
  trust: Trust;
  /** The handoff's version; a session event, written once, is at version 1. */
  version: number;
  contentHash: string;
  /** Who wrote it, and so may not approve it: the handoff's creator and last writer, the event's writer. */
  writers: string[];
  /** A session event's session owner, who may not approve it either: it is their own session's record. */
  sessionOwner?: string | undefined;
}

/** The statements of a handoff's or session event's review, inside its transaction. */
export interface WorkflowReviewStatements {
  /** Locks the handoff if it waits for a reviewer of the reviewer's tenant, or the reviewer may see it. */
  lockHandoff(principal: Principal, id: string): Promise<(WorkflowReviewTarget & { title: string }) | undefined>;
  /** Locks the event if it waits for a reviewer of the reviewer's tenant, or the reviewer may read its session. */
  lockSessionEvent(
    principal: Principal,
    sessionId: string,
    seq: number,
  ): Promise<(WorkflowReviewTarget & { eventKind: string }) | undefined>;
  /** Sets the locked handoff's trust and records the review (who, when, note); returns when it was recorded. */
  applyHandoff(principal: Principal, id: string, version: number, state: TrustState, note: string): Promise<Date>;
  /** Sets the locked event's trust and records the review (who, when, note); returns when it was recorded. */
  applySessionEvent(
    principal: Principal,
    sessionId: string,
    seq: number,
    state: TrustState,
    note: string,
  ): Promise<Date>;
}
