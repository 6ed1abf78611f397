/** What a caller learns about entries in bulk: threads and statistics over the entries it can see. */
import type { TrustState } from "./trust.js";

/** A thread as far as the caller can see it. */
export interface ThreadSummary {
  threadId: string;
  entryCount: number;
  userEntries: number;
  agentEntries: number;
  /** When its first visible entry was created. */
  firstAt: Date;
  /** When its visible entries last changed (latest `updated_at`). */
  lastAt: Date;
}

export interface ThreadPage {
  threads: ThreadSummary[];
  hasMore: boolean;
  /** Threads the caller can see in all. */
  total: number;
}

/** Counts over the entries a caller can see. */
export interface EntryStatistics {
  entries: number;
  threads: number;
  userEntries: number;
  agentEntries: number;
  multimodalEntries: number;
  images: number;
  chunks: number;
  /** UTF-8 bytes of the entries' texts. */
  textBytes: number;
  ownedEntries: number;
  oldestAt: Date | undefined;
  newestAt: Date | undefined;
  /** One row per UTC day asked for, oldest first; empty when none were. */
  daily: DailyActivity[];
}

/** One UTC day of activity on the entries a statistics call counts. */
export interface DailyActivity {
  /** YYYY-MM-DD. */
  date: string;
  /** Entries created that day, by who wrote them and by the trust state each has now. */
  created: number;
  createdByUsers: number;
  createdByAgents: number;
  byTrustState: Record<TrustState, number>;
  /** Stores, updates, folds and restores that day, as far as the entries' history keeps them. */
  writes: number;
}
