/** What one REST operation is: the route onto its tool, how its arguments are assembled and how its reply is shaped. */
import { ContextHubError } from "@context-hub/common";
import type { z } from "zod";
import type { ToolDefinition } from "../mcp/tool-definition.js";

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

/** The error a missing entry and a hidden one both give (I-2): it names only the id the caller sent. */
export const entryNotFound = (id: string) =>
  new ContextHubError("ENTRY_NOT_FOUND", `no entry matches id ${JSON.stringify(id)}`, { details: { id } });
