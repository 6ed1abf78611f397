/**
 * Entries over REST: create, read, list, change and delete them, their versions and restore, sharing, the review queue
 * (handoffs' and session events' reviews among it) and the audit log.
 */
import type { z } from "zod";
import { ContextHubError, isErrorCode } from "@context-hub/common";
import { entryOutput, historyOutput } from "../../mcp/output-schemas.js";
import { storeContextBatchTool, storeContextTool } from "../../mcp/tools/store-tools.js";
import { getContextByIdsTool, searchContextTool } from "../../mcp/tools/read-tools.js";
import {
  deleteContextBatchTool,
  deleteContextTool,
  updateContextBatchTool,
  updateContextTool,
} from "../../mcp/tools/change-tools.js";
import { navigateContextTool, readContextRangeTool } from "../../mcp/tools/navigation-tools.js";
import { getContextHistoryTool, restoreContextVersionTool } from "../../mcp/tools/history-tools.js";
import { listGrantsTool, shareContextTool, unshareContextTool } from "../../mcp/tools/sharing-tools.js";
import { listReviewQueueTool, reviewContextTool } from "../../mcp/tools/review-tools.js";
import { getAuditLogTool } from "../../mcp/tools/audit-tools.js";
import { entryNotFound, type RestOperation, type RestReply } from "../operation.js";

const entryPath = { id: { argument: "context_id", type: "string" } } as const;

const versionPath = { ...entryPath, version: { argument: "version", type: "integer" } } as const;

type EntryView = z.infer<typeof entryOutput>;

type GetReply = { entries: EntryView[]; missing: string[]; withheld: { id: string; trust_state: string }[] };

type HistoryReply = z.infer<typeof historyOutput>;

/** The one entry GET /entries/{id} asked for, or why there is none. */
function oneEntry(result: Record<string, unknown>, path: Record<string, string>): RestReply {
  const reply = result as unknown as GetReply;
  const entry = reply.entries[0];
  if (entry !== undefined) return { status: 200, body: entry, version: entry.version };
  const withheld = reply.withheld[0];
  if (withheld !== undefined) {
    throw new ContextHubError("INVALID_ARGUMENT", `entry ${withheld.id} is ${withheld.trust_state}`, {
      remedy: "read it with include_quarantined=true, and treat its text with suspicion",
      details: { id: withheld.id, trust_state: withheld.trust_state },
    });
  }
  throw entryNotFound(path.id ?? "");
}

/** A write acknowledgement, with the new version as ETag. */
const acknowledged =
  (status: number) =>
  (result: Record<string, unknown>): RestReply => {
    const id = String(result.context_id);
    return { status, body: result, version: Number(result.version), location: `/entries/${id}` };
  };

/** The single id DELETE /entries/{id} named: deleted (204), or its failure as the error it is. */
function deletedOne(result: Record<string, unknown>, path: Record<string, string>): RestReply {
  const failure = (result as { failed: { code: string; message: string }[] }).failed[0];
  if (failure === undefined) return { status: 204 };
  if (failure.code === "ENTRY_NOT_FOUND") throw entryNotFound(path.id ?? "");
  throw new ContextHubError(isErrorCode(failure.code) ? failure.code : "INTERNAL", failure.message);
}

function oneVersion(result: Record<string, unknown>, path: Record<string, string>): RestReply {
  const history = result as unknown as HistoryReply;
  const version = history.versions[0];
  if (version === undefined)
    throw new ContextHubError(
      "ENTRY_NOT_FOUND",
      `entry ${history.context_id} has no version ${path.version} you can read`,
    );
  return { status: 200, body: version, version: version.version };
}

export const entryOperations: readonly RestOperation[] = [
  {
    operationId: "createEntry",
    etag: true,
    method: "post",
    path: "/entries",
    tag: "entries",
    summary: "Store an entry (embedded and summarised before it is stored)",
    tool: storeContextTool,
    argumentsIn: "body",
    status: 201,
    reply: acknowledged(201),
  },
  {
    operationId: "createEntries",
    method: "post",
    path: "/entries/batch",
    tag: "entries",
    summary: "Store up to 100 entries in one call",
    tool: storeContextBatchTool,
    argumentsIn: "body",
  },
  {
    operationId: "listEntries",
    method: "get",
    path: "/entries",
    tag: "entries",
    summary: "List entries matching filters, newest first",
    tool: searchContextTool,
    argumentsIn: "query",
    paging: "offset",
  },
  {
    operationId: "getEntry",
    etag: true,
    method: "get",
    path: "/entries/{id}",
    tag: "entries",
    summary: "Get one entry with its full text",
    tool: getContextByIdsTool,
    argumentsIn: "query",
    pathArguments: { id: { type: "string" } },
    fixedArguments: (path) => ({ context_ids: [path.id] }),
    reply: oneEntry,
    replySchema: entryOutput,
  },
  {
    operationId: "updateEntry",
    etag: true,
    method: "patch",
    path: "/entries/{id}",
    tag: "entries",
    summary: "Change an entry (If-Match: the version you read)",
    tool: updateContextTool,
    argumentsIn: "body",
    pathArguments: entryPath,
    ifMatch: true,
    reply: acknowledged(200),
  },
  {
    operationId: "deleteEntry",
    method: "delete",
    path: "/entries/{id}",
    tag: "entries",
    summary: "Delete an entry (its history is kept until purged)",
    tool: deleteContextTool,
    argumentsIn: "none",
    pathArguments: { id: { type: "string" } },
    fixedArguments: (path) => ({ context_ids: [path.id] }),
    reply: deletedOne,
    replySchema: null,
    status: 204,
  },
  {
    operationId: "updateEntries",
    method: "patch",
    path: "/entries",
    tag: "entries",
    summary: "Change up to 100 entries in one call (atomic by default)",
    tool: updateContextBatchTool,
    argumentsIn: "body",
  },
  {
    operationId: "deleteEntries",
    method: "post",
    path: "/entries/batch-delete",
    tag: "entries",
    summary: "Delete up to 100 entries by id, or by criteria",
    tool: deleteContextBatchTool,
    argumentsIn: "body",
  },
  {
    operationId: "getEntryOutline",
    method: "get",
    path: "/entries/{id}/outline",
    tag: "entries",
    summary: "Walk an entry's section outline",
    tool: navigateContextTool,
    argumentsIn: "query",
    pathArguments: entryPath,
  },
  {
    operationId: "getEntryRange",
    method: "get",
    path: "/entries/{id}/range",
    tag: "entries",
    summary: "Read part of an entry's text: characters, lines or a section",
    tool: readContextRangeTool,
    argumentsIn: "query",
    pathArguments: entryPath,
  },
  {
    operationId: "listVersions",
    method: "get",
    path: "/entries/{id}/versions",
    tag: "history",
    summary: "List an entry's versions, newest first",
    tool: getContextHistoryTool,
    argumentsIn: "query",
    pathArguments: entryPath,
    paging: "offset",
  },
  {
    operationId: "getVersion",
    etag: true,
    method: "get",
    path: "/entries/{id}/versions/{version}",
    tag: "history",
    summary: "Get one version of an entry",
    tool: getContextHistoryTool,
    argumentsIn: "none",
    pathArguments: versionPath,
    reply: oneVersion,
    replySchema: historyOutput.shape.versions.element,
  },
  {
    operationId: "restoreVersion",
    etag: true,
    method: "post",
    path: "/entries/{id}/versions/{version}/restore",
    tag: "history",
    summary: "Make an earlier version current again (If-Match: the current version)",
    tool: restoreContextVersionTool,
    argumentsIn: "none",
    pathArguments: versionPath,
    ifMatch: true,
    reply: acknowledged(200),
  },
  {
    operationId: "shareEntries",
    method: "post",
    path: "/sharing/grants",
    tag: "sharing",
    summary: "Share entries or a thread with people or groups",
    tool: shareContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "listGrants",
    method: "get",
    path: "/sharing/grants",
    tag: "sharing",
    summary: "List the grants you made (administrators: the organisation's), newest first",
    tool: listGrantsTool,
    argumentsIn: "query",
    paging: "offset",
  },
  {
    operationId: "unshareEntries",
    method: "post",
    path: "/sharing/revocations",
    tag: "sharing",
    summary: "Revoke grants on entries or a thread",
    tool: unshareContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "listReviewQueue",
    method: "get",
    path: "/review-queue",
    tag: "review",
    summary: "List the entries waiting for a reviewer",
    tool: listReviewQueueTool,
    argumentsIn: "query",
    paging: "offset",
  },
  {
    operationId: "reviewEntry",
    method: "post",
    path: "/entries/{id}/review",
    tag: "review",
    summary: "Approve or reject an entry (If-Match: the version you reviewed)",
    tool: reviewContextTool,
    argumentsIn: "body",
    pathArguments: entryPath,
    ifMatch: true,
  },
  {
    operationId: "reviewHandoff",
    method: "post",
    path: "/handoffs/{id}/review",
    tag: "review",
    summary: "Approve or reject a quarantined handoff (If-Match: the version you reviewed)",
    tool: reviewContextTool,
    argumentsIn: "body",
    pathArguments: { id: { argument: "handoff_id", type: "string" } },
    ifMatch: true,
  },
  {
    operationId: "reviewSessionEvent",
    method: "post",
    path: "/sessions/{id}/events/{sequence}/review",
    tag: "review",
    summary: "Approve or reject a quarantined session event (If-Match: 1, the version of every event)",
    tool: reviewContextTool,
    argumentsIn: "body",
    pathArguments: {
      id: { argument: "session_id", type: "string" },
      sequence: { argument: "sequence", type: "integer" },
    },
    ifMatch: true,
  },
  {
    operationId: "getAuditLog",
    method: "get",
    path: "/audit-log",
    tag: "audit",
    summary: "Read your organisation's audit log, newest first",
    tool: getAuditLogTool,
    argumentsIn: "query",
    paging: "before_seq",
  },
];
