/**
 * An entry's history: the versions it went through, and what is left once
 * it is deleted. Readers of an entry read its history; a version that was
 * private while it was current is shown to them redacted unless they own the
 * entry (or administer the tenant). A deleted entry's history is its owner's
 * alone, until `purge` erases it after the retention period. No transport or
 * SQL here: persistence sits behind `HistoryRepository`.
 */
import { invalidArgument } from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { ambiguousCandidatesShown, ambiguousPrefix, entryNotFound } from "../entries/entry-changes.js";
import type { JsonObject, Visibility } from "../model/entry-model.js";
import { validatePage } from "../entries/entry-validation.js";
import { toIdQuery, type IdQuery } from "../model/id-query.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import type { TrustState } from "../model/trust.js";
import type { PromptArgument } from "../model/prompt-arguments.js";

export type ChangeKind = "create" | "update" | "fold" | "restore";

/** One version of an entry as it was when it was current. */
export interface EntryVersionRecord {
  version: number;
  current: boolean;
  /** The caller may not see this version's content (it was private and the caller is not the owner): content fields, the content hash included, are empty. */
  redacted: boolean;
  text: string;
  /** SHA-256 of the text; empty when redacted. */
  contentHash: string;
  metadata: JsonObject;
  tags: string[];
  summary: string;
  visibility: Visibility;
  trustState: TrustState;
  writtenBy: string;
  writtenAt: Date;
  supersededBy: string | undefined;
  supersededAt: Date | undefined;
  change: ChangeKind;
  restoredFrom: number | undefined;
  /** The valid-time interval this version stated (undefined ends open; empty when redacted). */
  validFrom: Date | undefined;
  validTo: Date | undefined;
  /** The kind this version had. */
  kind: string;
  /** The title this version had (undefined for none, and when redacted). */
  title: string | undefined;
  /** The prompt arguments this version declared (empty for none, and when redacted). */
  promptArguments: PromptArgument[];
  /** The artifacts this version linked (empty for none, and when redacted). */
  artifacts: string[];
  /** The prompt name this version had (undefined for none, and when redacted). */
  promptName: string | undefined;
}

/** What is left of a deleted entry (no text). */
export interface TombstoneRecord {
  id: string;
  threadId: string;
  contentHash: string;
  owner: string;
  deletedBy: string;
  deletedAt: Date;
  reason: string;
  historyPurgedAt: Date | undefined;
}

export interface EntryHistory {
  id: string;
  threadId: string;
  owner: string;
  latestVersion: number;
  /** Newest first. */
  versions: EntryVersionRecord[];
  hasMore: boolean;
  /** Set when the entry is deleted. */
  tombstone: TombstoneRecord | undefined;
}

export interface PurgeResult {
  entries: number;
  versions: number;
  cutoff: Date;
  dryRun: boolean;
}

export interface HistoryRepository {
  /**
   * For each query, up to `maxMatches` ids, in id order, among the entries
   * the caller may read and the deleted entries the caller owned: the ids
   * whose history the caller may read.
   */
  resolve(principal: Principal, queries: readonly IdQuery[], maxMatches: number): Promise<string[][]>;
  /** The history of entry `id` as the caller may see it (one page), or undefined when the caller may not see it. */
  read(
    principal: Principal,
    id: string,
    request: { version: number | undefined; limit: number; offset: number },
  ): Promise<EntryHistory | undefined>;
  /**
   * Erases the kept versions of entries deleted at or before `cutoff` (the
   * tombstones stay, marked purged) and audits it per tenant; with `dryRun`
   * only counts.
   */
  purge(cutoff: Date, dryRun: boolean): Promise<{ entries: number; versions: number }>;
}

export interface HistoryService {
  /**
   * The history of one entry, newest first (context:read). The id is a full
   * id or unique prefix resolved among what the caller may read; an entry
   * the caller may not see fails exactly like one that does not exist.
   */
  getHistory(
    principal: Principal | undefined,
    request: { id: string; version: number; limit: number; offset: number },
  ): Promise<EntryHistory>;
  /** Erases the kept versions of entries deleted more than `olderThanDays` days ago (operator). */
  purge(request: { olderThanDays: number; dryRun: boolean; now?: Date }): Promise<PurgeResult>;
}

export const historyLimits = { maxRetentionDays: 36_500, defaultPage: 20 } as const;

/** The history service over its repository. */
export function createHistoryService(repository: HistoryRepository, denials: DenialRecorder): HistoryService {
  return {
    async getHistory(principal, request) {
      const caller = await denials.guard(principal, "entry.read", [request.id], async () =>
        requirePrincipal(principal, "context:read"),
      );
      const query = toIdQuery(request.id, "id");
      const page = validatePage(request.limit, request.offset, historyLimits.defaultPage);
      const [matches = []] = await repository.resolve(caller, [query], ambiguousCandidatesShown);
      if (matches.length > 1) throw ambiguousPrefix(query, matches);
      const [id] = matches;
      const history =
        id === undefined
          ? undefined
          : await repository.read(caller, id, {
              version: request.version === 0 ? undefined : request.version,
              ...page,
            });
      // Gone between resolution and read, or never visible: the same answer.
      if (history === undefined) throw entryNotFound(query.input);
      if (request.version !== 0 && history.versions.length === 0) {
        throw invalidArgument(
          `entry ${history.id} has no version ${request.version} you can read (its versions run to ${history.latestVersion})`,
          "list its history without a version to see the kept versions",
        );
      }
      return history;
    },

    async purge(request) {
      if (
        !Number.isInteger(request.olderThanDays) ||
        request.olderThanDays < 0 ||
        request.olderThanDays > historyLimits.maxRetentionDays
      ) {
        throw invalidArgument(
          `older_than_days must be a whole number from 0 to ${historyLimits.maxRetentionDays} (got ${request.olderThanDays})`,
        );
      }
      const now = request.now ?? new Date();
      const cutoff = new Date(now.getTime() - request.olderThanDays * 86_400_000);
      const counts = await repository.purge(cutoff, request.dryRun);
      return { ...counts, cutoff, dryRun: request.dryRun };
    },
  };
}
