import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { toAuditRecordView } from "../../trust/trust-views.js";
import { getAuditLogInput } from "../input-schemas.js";
import { auditLogOutput } from "../output-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

export const getAuditLogTool = defineTool({
  name: "get_audit_log",
  title: "Get the audit log",
  description: [
    "For administrators: read your organisation's audit log, newest first. One record per change (store, update, restore, delete, share, review, purge) and per refused call,",
    "with who, what, the content hashes before and after, the request id and the hash chaining it to the record before.",
    "Filter by action, actor, target id, outcome and time; page with before_seq = next_before_seq.",
  ].join(" "),
  inputSchema: getAuditLogInput,
  outputSchema: auditLogOutput,
  annotations: readOnlyTool,
  scope: "context:admin",
  async handler(args, { principal, peers }) {
    const reply = await peers.store.getAuditLog({
      principal,
      filter: {
        action: args.action ?? "",
        actor: args.actor ?? "",
        targetId: args.target_id ?? "",
        outcome: args.outcome ?? "",
        ...(args.start_date === undefined ? {} : { from: timestampFromDate(new Date(args.start_date)) }),
        ...(args.end_date === undefined ? {} : { to: timestampFromDate(new Date(args.end_date)) }),
      },
      limit: args.limit ?? 50,
      beforeSeq: BigInt(args.before_seq ?? 0),
    });
    const records = reply.records.map(toAuditRecordView);
    return { records, count: records.length, has_more: reply.hasMore, next_before_seq: reply.hasMore ? Number(reply.nextBeforeSeq) : null };
  },
});
