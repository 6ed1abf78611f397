// The store's gRPC transport for the audit log: AuditService handlers translating proto messages to audit domain calls and back.
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { invalidArgument, type ServiceImplementation } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { AuditFilter, AuditRecord, AuditService, ChainReport } from "./audit/audit.js";
import { toDate, toPrincipal } from "./messages.js";

export function toAuditFilter(filter: storeV1.AuditFilter | undefined): AuditFilter {
  const outcome = filter?.outcome ?? "";
  if (outcome !== "" && outcome !== "ok" && outcome !== "denied")
    throw invalidArgument('filter.outcome must be "ok", "denied" or empty');
  return {
    action: filter?.action,
    actor: filter?.actor,
    targetId: filter?.targetId,
    from: toDate(filter?.from),
    to: toDate(filter?.to),
    outcome: outcome === "" ? undefined : outcome,
  };
}

export function toAuditRecordMessage(record: AuditRecord): MessageInitShape<typeof storeV1.AuditRecordSchema> {
  return {
    seq: BigInt(record.seq),
    id: record.id,
    at: timestampFromDate(record.at),
    actor: record.actor,
    action: record.action,
    outcome: record.outcome,
    targetIds: record.targetIds,
    beforeHashes: record.beforeHashes,
    afterHashes: record.afterHashes,
    requestId: record.requestId,
    details: record.details as JsonObject,
    previousHash: record.previousHash,
    hash: record.hash,
    tenant: record.tenant,
  };
}

export function toChainReportMessage(
  report: ChainReport & { headHash: string },
): MessageInitShape<typeof storeV1.AuditChainReportSchema> {
  return {
    tenant: report.tenant,
    records: BigInt(report.records),
    intact: report.intact,
    brokenSeq: BigInt(report.broken?.seq ?? 0),
    brokenId: report.broken?.id ?? "",
    problem: report.broken?.problem ?? "",
    headHash: report.headHash,
  };
}

/** The AuditService implementation over the audit domain. */
export function createAuditHandlers(audit: AuditService): ServiceImplementation<typeof storeV1.AuditService> {
  return {
    async getAuditLog(request) {
      const page = await audit.getLog(toPrincipal(request.principal), {
        filter: toAuditFilter(request.filter),
        limit: request.limit,
        beforeSeq: Number(request.beforeSeq),
        verify: request.verify,
      });
      return {
        records: page.records.map(toAuditRecordMessage),
        hasMore: page.hasMore,
        nextBeforeSeq: BigInt(page.nextBeforeSeq),
        ...(page.chain === undefined ? {} : { chain: toChainReportMessage(page.chain) }),
      };
    },

    async verifyAuditLog(request) {
      const reports = await audit.verify(request.tenant);
      return { tenants: reports.map(toChainReportMessage) };
    },
  };
}
