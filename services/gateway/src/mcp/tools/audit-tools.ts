import { getAuditLogInput } from "../governance-schemas.js";
import { auditLogOutput } from "../output-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

export const getAuditLogTool = defineTool({
  name: "get_audit_log",
  title: "Get the audit log",
  description: [
    "For administrators: read your organisation's audit log, newest first. One record per change (store, update, restore, delete, share, review, purge) and per refused call,",
    "with who, what, the content hashes before and after, the request id and the hash chaining it to the record before.",
    "Filter by action, actor, target id, outcome and time; page with before_seq = next_before_seq.",
    "verify: true also checks the whole chain: records, intact, the first broken record and the head hash.",
  ].join(" "),
  inputSchema: getAuditLogInput,
  outputSchema: auditLogOutput,
  annotations: readOnlyTool,
  scope: "context:admin",
  async handler(args, { principal, clients }) {
    const { records, hasMore, nextBeforeSeq, chain } = await clients.history.auditLog(principal, {
      action: args.action,
      actor: args.actor,
      targetId: args.target_id,
      outcome: args.outcome,
      from: args.start_date === undefined ? undefined : new Date(args.start_date),
      to: args.end_date === undefined ? undefined : new Date(args.end_date),
      limit: args.limit ?? 50,
      beforeSeq: args.before_seq ?? 0,
      verify: args.verify === true,
    });
    return {
      records,
      count: records.length,
      has_more: hasMore,
      next_before_seq: hasMore ? nextBeforeSeq : null,
      ...(chain === undefined ? {} : { chain }),
    };
  },
});
