// The store's gRPC transport for entry history: HistoryService handlers translating proto messages to history domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { trustStateToProto, visibilityToProto, type ServiceImplementation } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { EntryHistory, EntryVersionRecord, HistoryService, TombstoneRecord } from "./history/history.js";
import { fromDate, toPrincipal, toPromptArgumentMessages } from "./messages.js";

function toVersionMessage(version: EntryVersionRecord): MessageInitShape<typeof storeV1.EntryVersionSchema> {
  return {
    version: version.version,
    current: version.current,
    redacted: version.redacted,
    text: version.text,
    contentHash: version.contentHash,
    metadata: version.metadata,
    tags: version.tags,
    summary: version.summary,
    visibility: visibilityToProto(version.visibility),
    trustState: trustStateToProto(version.trustState),
    writtenBy: version.writtenBy,
    writtenAt: timestampFromDate(version.writtenAt),
    supersededBy: version.supersededBy ?? "",
    supersededAt: fromDate(version.supersededAt),
    change: version.change,
    restoredFrom: version.restoredFrom ?? 0,
    validFrom: fromDate(version.validFrom),
    validTo: fromDate(version.validTo),
    kind: version.kind,
    title: version.title ?? "",
    promptArguments: toPromptArgumentMessages(version.promptArguments),
    artifacts: version.artifacts,
    promptName: version.promptName ?? "",
  };
}

function toTombstoneMessage(tombstone: TombstoneRecord): MessageInitShape<typeof storeV1.TombstoneSchema> {
  return {
    id: tombstone.id,
    threadId: tombstone.threadId,
    contentHash: tombstone.contentHash,
    owner: tombstone.owner,
    deletedBy: tombstone.deletedBy,
    deletedAt: timestampFromDate(tombstone.deletedAt),
    reason: tombstone.reason,
    historyPurgedAt: fromDate(tombstone.historyPurgedAt),
  };
}

export function toHistoryMessage(
  history: EntryHistory,
): MessageInitShape<typeof storeV1.GetEntryHistoryResponseSchema> {
  return {
    id: history.id,
    threadId: history.threadId,
    owner: history.owner,
    latestVersion: history.latestVersion,
    versions: history.versions.map(toVersionMessage),
    hasMore: history.hasMore,
    ...(history.tombstone === undefined ? {} : { tombstone: toTombstoneMessage(history.tombstone) }),
  };
}

/** The HistoryService implementation over the history domain. */
export function createHistoryHandlers(history: HistoryService): ServiceImplementation<typeof storeV1.HistoryService> {
  return {
    async getEntryHistory(request) {
      const result = await history.getHistory(toPrincipal(request.principal), {
        id: request.id,
        version: request.version,
        limit: request.limit,
        offset: request.offset,
      });
      return toHistoryMessage(result);
    },

    async purgeHistory(request) {
      const result = await history.purge({ olderThanDays: request.olderThanDays, dryRun: request.dryRun });
      return {
        entries: BigInt(result.entries),
        versions: BigInt(result.versions),
        dryRun: result.dryRun,
        cutoff: timestampFromDate(result.cutoff),
      };
    },
  };
}
