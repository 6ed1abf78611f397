/**
 * Every operation of `/api/v1`, each a route onto one tool: its request is
 * assembled into the tool's arguments (path, query or body, and the
 * Idempotency-Key and If-Match headers), validated by the tool's own input
 * schema and run by the tool's own handler; the OpenAPI document is built
 * from this table and the same schemas.
 */
import type { z } from "zod";
import { ContextHubError, isErrorCode } from "@context-hub/common";
import type { ToolDefinition } from "../mcp/tool-definition.js";
import { entryOutput, historyOutput } from "../mcp/output-schemas.js";
import { storeContextBatchTool, storeContextTool } from "../mcp/tools/store-tools.js";
import { getContextByIdsTool, getStatisticsTool, listThreadsTool, searchContextTool } from "../mcp/tools/read-tools.js";
import {
  deleteContextBatchTool,
  deleteContextTool,
  updateContextBatchTool,
  updateContextTool,
} from "../mcp/tools/change-tools.js";
import { grepContextTool, navigateContextTool, readContextRangeTool } from "../mcp/tools/navigation-tools.js";
import { deepSearchTool, findItemsTool } from "../mcp/tools/library-search-tools.js";
import { reasonTool } from "../mcp/tools/reason-tool.js";
import { whoamiTool } from "../mcp/tools/identity-tools.js";
import { ftsSearchContextTool, hybridSearchContextTool, semanticSearchContextTool } from "../mcp/tools/search-tools.js";
import { getContextHistoryTool, restoreContextVersionTool } from "../mcp/tools/history-tools.js";
import { shareContextTool, unshareContextTool } from "../mcp/tools/sharing-tools.js";
import { listReviewQueueTool, reviewContextTool } from "../mcp/tools/review-tools.js";
import { getAuditLogTool } from "../mcp/tools/audit-tools.js";
import {
  deleteMemoryTool,
  getMemoryHistoryTool,
  getMemoryTool,
  listMemoriesTool,
  putMemoryTool,
} from "../mcp/tools/memory-tools.js";
import {
  acceptHandoffTool,
  cancelHandoffTool,
  completeHandoffTool,
  createHandoffTool,
  getHandoffTool,
  listHandoffsTool,
} from "../mcp/tools/handoff-tools.js";
import {
  appendSessionEventsTool,
  endSessionTool,
  getSessionTool,
  listSessionsTool,
  readSessionEventsTool,
  startSessionTool,
} from "../mcp/tools/session-tools.js";
import {
  appendArtifactUploadTool,
  beginArtifactUploadTool,
  commitArtifactUploadTool,
  deleteArtifactTool,
  getArtifactTool,
  listArtifactsTool,
  putArtifactTool,
} from "../mcp/tools/artifact-tools.js";
import { createApiKeyOperation, listApiKeysOperation, revokeApiKeyOperation } from "./api-key-operations.js";

/** What an operation answers: status, body (none for 204) and the entry version to send as ETag. */
export interface RestReply {
  status: number;
  body?: unknown;
  /** The version of the entry (or of the version) the body shows; sent as ETag, compared with If-None-Match. */
  version?: number;
  /** The created resource, as a path under /api/v1. */
  location?: string;
}

export interface RestOperation {
  operationId: string;
  method: "get" | "post" | "put" | "patch" | "delete";
  /** OpenAPI form, under /api/v1: `/entries/{id}`. */
  path: string;
  tag: string;
  summary: string;
  tool: ToolDefinition;
  /** Where the tool's arguments come from besides the path: query parameters, a JSON body, or nowhere. */
  argumentsIn: "query" | "body" | "none";
  /** Each path parameter, its type and the tool argument it fills (none: `fixedArguments` uses it). */
  pathArguments?: Record<string, { argument?: string; type: "string" | "integer" }>;
  /** Arguments REST sets itself from the path parameters, beyond the one-to-one ones. */
  fixedArguments?: (path: Record<string, string>) => Record<string, unknown>;
  /** Paged by an opaque cursor standing for the tool's `offset` or `before_seq`. */
  paging?: "offset" | "before_seq";
  /** If-Match carries the entry version the tool takes as expected_version. */
  ifMatch?: true;
  /** The reply carries a version (`RestReply.version`), sent as ETag; on a GET, If-None-Match can answer 304. */
  etag?: true;
  /** Shapes the tool's result; by default 200 with the result (and next_cursor when paged). */
  reply?: (result: Record<string, unknown>, path: Record<string, string>) => RestReply;
  /** The schema of the reply body when `reply` changes it; null for no body. */
  replySchema?: z.ZodType | null;
  /** The status of a successful reply when it is not 200. */
  status?: number;
}

const entryPath = { id: { argument: "context_id", type: "string" } } as const;
const versionPath = { ...entryPath, version: { argument: "version", type: "integer" } } as const;

/** The error a missing entry and a hidden one both give (I-2): it names only the id the caller sent. */
export const entryNotFound = (id: string) =>
  new ContextHubError("ENTRY_NOT_FOUND", `no entry matches id ${JSON.stringify(id)}`, { details: { id } });

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

/** A memory reply (put_memory, get_memory), with the memory's version as ETag. */
const memoryReply = (result: Record<string, unknown>): RestReply => ({
  status: 200,
  body: result,
  version: (result.memory as { version: number }).version,
});

const memoryPath = { key: { argument: "key", type: "string" } } as const;

/** A handoff reply, with the handoff's version as ETag; `created` adds its Location. */
const handoffReply =
  (status: number) =>
  (result: Record<string, unknown>): RestReply => {
    const handoff = result.handoff as { id: string; version: number };
    return {
      status,
      body: result,
      version: handoff.version,
      ...(status === 201 ? { location: `/handoffs/${handoff.id}` } : {}),
    };
  };

const handoffPath = { id: { argument: "handoff_id", type: "string" } } as const;
const sessionPath = { id: { argument: "session_id", type: "string" } } as const;
const artifactPath = { sha256: { argument: "sha256", type: "string" } } as const;
const uploadPath = { id: { argument: "upload_id", type: "string" } } as const;

/** The operations of /api/v1, in the order the OpenAPI document lists them. */
export const restOperations: readonly RestOperation[] = [
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
    operationId: "searchFullText",
    method: "post",
    path: "/search/fts",
    tag: "search",
    summary: "Full-text search",
    tool: ftsSearchContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchSemantic",
    method: "post",
    path: "/search/semantic",
    tag: "search",
    summary: "Semantic (vector) search",
    tool: semanticSearchContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchHybrid",
    method: "post",
    path: "/search/hybrid",
    tag: "search",
    summary: "Hybrid search: full text and semantic, fused",
    tool: hybridSearchContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchGrep",
    method: "post",
    path: "/search/grep",
    tag: "search",
    summary: "Find a literal string or a regular expression in entries' text, with context lines",
    tool: grepContextTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchDeep",
    method: "post",
    path: "/search/deep",
    tag: "search",
    summary: "The best entries for a question, each with its best passages",
    tool: deepSearchTool,
    argumentsIn: "body",
  },
  {
    operationId: "searchItems",
    method: "post",
    path: "/search/items",
    tag: "search",
    summary: "The entries that best match a query, named and ranked, without their text",
    tool: findItemsTool,
    argumentsIn: "body",
  },
  {
    operationId: "answerQuestion",
    method: "post",
    path: "/search/answer",
    tag: "search",
    summary: "A question answered from the best passages, every statement cited, citations checked against them",
    tool: reasonTool,
    argumentsIn: "body",
  },
  {
    operationId: "listThreads",
    method: "get",
    path: "/threads",
    tag: "threads",
    summary: "List threads holding entries you can see",
    tool: listThreadsTool,
    argumentsIn: "query",
    paging: "offset",
  },
  {
    operationId: "getStatistics",
    method: "get",
    path: "/statistics",
    tag: "threads",
    summary: "Count the entries you can see",
    tool: getStatisticsTool,
    argumentsIn: "query",
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
    operationId: "getAuditLog",
    method: "get",
    path: "/audit-log",
    tag: "audit",
    summary: "Read your organisation's audit log, newest first",
    tool: getAuditLogTool,
    argumentsIn: "query",
    paging: "before_seq",
  },
  {
    operationId: "putMemory",
    method: "put",
    path: "/memories/{key}",
    tag: "memories",
    summary: "Save a value under a key (If-Match: the version you read)",
    tool: putMemoryTool,
    argumentsIn: "body",
    pathArguments: memoryPath,
    ifMatch: true,
    etag: true,
    reply: memoryReply,
  },
  {
    operationId: "getMemory",
    method: "get",
    path: "/memories/{key}",
    tag: "memories",
    summary: "Read a memory",
    tool: getMemoryTool,
    argumentsIn: "query",
    pathArguments: memoryPath,
    etag: true,
    reply: memoryReply,
  },
  {
    operationId: "listMemories",
    method: "get",
    path: "/memories",
    tag: "memories",
    summary: "List memories (the tool's own cursor)",
    tool: listMemoriesTool,
    argumentsIn: "query",
  },
  {
    operationId: "listMemoryVersions",
    method: "get",
    path: "/memories/{key}/versions",
    tag: "memories",
    summary: "List a memory's revisions, newest first",
    tool: getMemoryHistoryTool,
    argumentsIn: "query",
    pathArguments: memoryPath,
    paging: "offset",
  },
  {
    operationId: "deleteMemory",
    method: "delete",
    path: "/memories/{key}",
    tag: "memories",
    summary: "Delete a memory (If-Match: the version you read)",
    tool: deleteMemoryTool,
    argumentsIn: "query",
    pathArguments: memoryPath,
    ifMatch: true,
  },
  {
    operationId: "createHandoff",
    method: "post",
    path: "/handoffs",
    tag: "handoffs",
    summary: "Hand work off to a person, a group or a namespace",
    tool: createHandoffTool,
    argumentsIn: "body",
    status: 201,
    etag: true,
    reply: handoffReply(201),
  },
  {
    operationId: "getHandoff",
    method: "get",
    path: "/handoffs/{id}",
    tag: "handoffs",
    summary: "Read a handoff",
    tool: getHandoffTool,
    argumentsIn: "none",
    pathArguments: handoffPath,
    etag: true,
    reply: handoffReply(200),
  },
  {
    operationId: "listHandoffs",
    method: "get",
    path: "/handoffs",
    tag: "handoffs",
    summary: "List handoffs to or from you (the tool's own cursor)",
    tool: listHandoffsTool,
    argumentsIn: "query",
  },
  {
    operationId: "acceptHandoff",
    method: "post",
    path: "/handoffs/{id}/accept",
    tag: "handoffs",
    summary: "Accept a handoff (If-Match: the version you read)",
    tool: acceptHandoffTool,
    argumentsIn: "none",
    pathArguments: handoffPath,
    ifMatch: true,
    etag: true,
    reply: handoffReply(200),
  },
  {
    operationId: "completeHandoff",
    method: "post",
    path: "/handoffs/{id}/complete",
    tag: "handoffs",
    summary: "Complete an accepted handoff with its outcome",
    tool: completeHandoffTool,
    argumentsIn: "body",
    pathArguments: handoffPath,
    ifMatch: true,
    etag: true,
    reply: handoffReply(200),
  },
  {
    operationId: "cancelHandoff",
    method: "post",
    path: "/handoffs/{id}/cancel",
    tag: "handoffs",
    summary: "Cancel a handoff you made",
    tool: cancelHandoffTool,
    argumentsIn: "body",
    pathArguments: handoffPath,
    ifMatch: true,
    etag: true,
    reply: handoffReply(200),
  },
  {
    operationId: "startSession",
    method: "post",
    path: "/sessions",
    tag: "sessions",
    summary: "Start a session log",
    tool: startSessionTool,
    argumentsIn: "body",
    status: 201,
    reply: (result) => ({
      status: 201,
      body: result,
      location: `/sessions/${(result.session as { id: string }).id}`,
    }),
  },
  {
    operationId: "getSession",
    method: "get",
    path: "/sessions/{id}",
    tag: "sessions",
    summary: "Read a session",
    tool: getSessionTool,
    argumentsIn: "none",
    pathArguments: sessionPath,
  },
  {
    operationId: "listSessions",
    method: "get",
    path: "/sessions",
    tag: "sessions",
    summary: "List sessions (the tool's own cursor)",
    tool: listSessionsTool,
    argumentsIn: "query",
  },
  {
    operationId: "appendSessionEvents",
    method: "post",
    path: "/sessions/{id}/events",
    tag: "sessions",
    summary: "Log events in a session",
    tool: appendSessionEventsTool,
    argumentsIn: "body",
    pathArguments: sessionPath,
  },
  {
    operationId: "readSessionEvents",
    method: "get",
    path: "/sessions/{id}/events",
    tag: "sessions",
    summary: "Read a session's events in order",
    tool: readSessionEventsTool,
    argumentsIn: "query",
    pathArguments: sessionPath,
  },
  {
    operationId: "endSession",
    method: "post",
    path: "/sessions/{id}/end",
    tag: "sessions",
    summary: "End a session with a summary",
    tool: endSessionTool,
    argumentsIn: "body",
    pathArguments: sessionPath,
  },
  {
    operationId: "putArtifact",
    method: "post",
    path: "/artifacts",
    tag: "artifacts",
    summary: "Store a file of up to 8 MiB (base64) by its SHA-256",
    tool: putArtifactTool,
    argumentsIn: "body",
  },
  {
    operationId: "beginArtifactUpload",
    method: "post",
    path: "/artifact-uploads",
    tag: "artifacts",
    summary: "Begin a larger file's upload in parts",
    tool: beginArtifactUploadTool,
    argumentsIn: "body",
  },
  {
    operationId: "appendArtifactUpload",
    method: "post",
    path: "/artifact-uploads/{id}/parts",
    tag: "artifacts",
    summary: "Append a part (base64) at its offset",
    tool: appendArtifactUploadTool,
    argumentsIn: "body",
    pathArguments: uploadPath,
  },
  {
    operationId: "commitArtifactUpload",
    method: "post",
    path: "/artifact-uploads/{id}/commit",
    tag: "artifacts",
    summary: "Check the upload's SHA-256 and store the file",
    tool: commitArtifactUploadTool,
    argumentsIn: "none",
    pathArguments: uploadPath,
  },
  {
    operationId: "getArtifact",
    method: "get",
    path: "/artifacts/{sha256}",
    tag: "artifacts",
    summary: "Read a file's description and a range of its bytes (the whole file: GET /artifacts/{sha256} at the root)",
    tool: getArtifactTool,
    argumentsIn: "query",
    pathArguments: artifactPath,
  },
  {
    operationId: "listArtifacts",
    method: "get",
    path: "/artifacts",
    tag: "artifacts",
    summary: "List files (the tool's own cursor)",
    tool: listArtifactsTool,
    argumentsIn: "query",
  },
  {
    operationId: "deleteArtifact",
    method: "delete",
    path: "/artifacts/{sha256}",
    tag: "artifacts",
    summary: "Delete a file from a namespace",
    tool: deleteArtifactTool,
    argumentsIn: "query",
    pathArguments: artifactPath,
  },
  {
    operationId: "whoami",
    method: "get",
    path: "/whoami",
    tag: "identity",
    summary: "Who you are to Context Hub, and what this deployment has on",
    tool: whoamiTool,
    argumentsIn: "query",
  },
  {
    operationId: "createApiKey",
    method: "post",
    path: "/api-keys",
    tag: "api-keys",
    summary: "Create an API key in your tenant (shown once)",
    tool: createApiKeyOperation,
    argumentsIn: "body",
    status: 201,
    reply: (result) => ({ status: 201, body: result, location: `/api-keys/${String(result.id)}` }),
  },
  {
    operationId: "listApiKeys",
    method: "get",
    path: "/api-keys",
    tag: "api-keys",
    summary: "List your tenant's API keys",
    tool: listApiKeysOperation,
    argumentsIn: "query",
  },
  {
    operationId: "revokeApiKey",
    method: "delete",
    path: "/api-keys/{id}",
    tag: "api-keys",
    summary: "Revoke an API key of your tenant",
    tool: revokeApiKeyOperation,
    argumentsIn: "none",
    pathArguments: { id: { argument: "id", type: "string" } },
  },
];
