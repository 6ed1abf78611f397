/** History and audit as the tools ask for them, over HistoryService and AuditService, proto built and read here. */
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import type { AuditServiceClient, HistoryServiceClient } from "./peers.js";
import { toAuditRecordView, toTombstoneView, toVersionView } from "./trust-views.js";

/** Which audit records to read; undefined fields do not filter. */
export interface AuditQuery {
  action: string | undefined;
  actor: string | undefined;
  targetId: string | undefined;
  outcome: string | undefined;
  from: Date | undefined;
  to: Date | undefined;
  limit: number;
  /** Records older than this sequence number; 0 for the newest. */
  beforeSeq: number;
  /** Also check the tenant's whole hash chain. */
  verify?: boolean;
}

/** What a check of the caller's tenant's audit chain found, as tools show it. */
export interface AuditChainView {
  records: number;
  intact: boolean;
  /** The first record that does not fit, when the chain is broken. */
  broken: { seq: number; id: string; problem: string } | null;
  head_hash: string;
}

function toAuditChainView(report: storeV1.AuditChainReport): AuditChainView {
  return {
    records: Number(report.records),
    intact: report.intact,
    broken: report.intact ? null : { seq: Number(report.brokenSeq), id: report.brokenId, problem: report.problem },
    head_hash: report.headHash,
  };
}

/** The history client over HistoryService and AuditService connections. */
export function createHistoryClient({ history, audit }: { history: HistoryServiceClient; audit: AuditServiceClient }) {
  return {
    /** One page of an entry's versions, newest first (or only `version`, when given), with its tombstone if it is deleted. */
    async history(
      principal: Principal,
      request: { id: string; version: number | undefined; limit: number; offset: number },
    ) {
      const reply = await history.getEntryHistory({
        principal,
        id: request.id,
        version: request.version ?? 0,
        limit: request.limit,
        offset: request.offset,
      });
      return {
        id: reply.id,
        threadId: reply.threadId,
        owner: reply.owner,
        latestVersion: reply.latestVersion,
        tombstone: reply.tombstone === undefined ? null : toTombstoneView(reply.tombstone),
        versions: reply.versions.map(toVersionView),
        hasMore: reply.hasMore,
      };
    },

    /** One page of the tenant's audit log, newest first. */
    async auditLog(principal: Principal, query: AuditQuery) {
      const reply = await audit.getAuditLog({
        principal,
        filter: {
          action: query.action ?? "",
          actor: query.actor ?? "",
          targetId: query.targetId ?? "",
          outcome: query.outcome ?? "",
          ...(query.from === undefined ? {} : { from: timestampFromDate(query.from) }),
          ...(query.to === undefined ? {} : { to: timestampFromDate(query.to) }),
        },
        limit: query.limit,
        beforeSeq: BigInt(query.beforeSeq),
        verify: query.verify === true,
      });
      return {
        records: reply.records.map(toAuditRecordView),
        hasMore: reply.hasMore,
        nextBeforeSeq: Number(reply.nextBeforeSeq),
        chain: reply.chain === undefined ? undefined : toAuditChainView(reply.chain),
      };
    },
  };
}

export type HistoryClient = ReturnType<typeof createHistoryClient>;
