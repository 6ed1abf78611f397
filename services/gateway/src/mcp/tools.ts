import type { z } from "zod";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { fromJson } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import { commonV1 } from "@context-hub/proto";
import type { Peers } from "../clients/peers.js";
import { toEntryListing, toEntryView } from "../entry-views.js";
import type { Principal } from "../principal.js";
import type { WritePath } from "../write-path.js";
import { toProtoSource } from "../write-path.js";
import { getContextByIdsInput, searchContextInput, storeContextInput } from "./input-schemas.js";
import { getContextByIdsOutput, searchContextOutput, writeAckOutput } from "./output-schemas.js";

/** What a tool handler can use: the verified caller and the gateway's collaborators. */
export interface ToolContext {
  principal: Principal;
  peers: Peers;
  writePath: WritePath;
}

export interface ToolDefinition<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  inputSchema: I;
  outputSchema: z.ZodObject;
  annotations: Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">>;
  /** Scope the caller needs; tools the caller lacks the scope for are not listed. */
  scope: Principal["scopes"][number];
  handler(args: z.infer<I>, context: ToolContext): Promise<Record<string, unknown>>;
}

function defineTool<I extends z.ZodType>(definition: ToolDefinition<I>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const storeContextTool = defineTool({
  name: "store_context",
  title: "Store context",
  description: [
    "Save a piece of context (a prompt, report, note, plan or image) under a thread so you or other agents can find it later.",
    "Use it when you learn something worth keeping: a decision, a finding, a user's requirement, a plan.",
    "Set source to 'user' for a person's own words and 'agent' for your output. Entries are private to you unless you set visibility.",
    "Returns the new entry's id, version and content hash once it is durably stored; storing the same text again in the same thread is folded into the existing entry.",
  ].join(" "),
  inputSchema: storeContextInput,
  outputSchema: writeAckOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scope: "context:write",
  async handler(args, { principal, writePath }) {
    const ack = await writePath.store(principal, {
      threadId: args.thread_id,
      source: args.source,
      text: args.text,
      metadata: args.metadata as never,
      tags: args.tags ?? [],
      images: (args.images ?? []).map((image) => ({ mimeType: image.mime_type, data: new Uint8Array(Buffer.from(image.data, "base64")) })),
      visibility: args.visibility ?? "private",
    });
    return {
      success: true,
      context_id: ack.id,
      thread_id: ack.threadId,
      version: ack.version,
      content_hash: ack.contentHash,
      deduplicated: ack.deduplicated,
      created_at: ack.createdAt,
      updated_at: ack.updatedAt,
      message: ack.deduplicated ? `Identical to the latest entry in this thread; folded into ${ack.id}.` : `Stored as ${ack.id}.`,
    };
  },
});

export const getContextByIdsTool = defineTool({
  name: "get_context_by_ids",
  title: "Get context by ids",
  description: [
    "Fetch the full text, metadata, summary and section outline of entries by id.",
    "Use it after a search: search results carry only a preview and a summary, and the full text may hold conditions the summary leaves out.",
    "Accepts full ids or unique prefixes of 8 to 31 hex characters. Ids you cannot see are listed under missing, exactly like ids that do not exist.",
  ].join(" "),
  inputSchema: getContextByIdsInput,
  outputSchema: getContextByIdsOutput,
  annotations: readOnly,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const reply = await peers.store.getEntries({ principal, ids: args.context_ids, includeImages: args.include_images ?? false });
    return { entries: reply.entries.map(toEntryView), missing: reply.missing };
  },
});

export const searchContextTool = defineTool({
  name: "search_context",
  title: "List context by filters",
  description: [
    "List entries that match filters (thread, source, tags, metadata values, date range, content type), newest first.",
    "Use it to load a thread's history or to browse by metadata. Each result has a 300-character preview and the summary; fetch full text with get_context_by_ids.",
    "Page with limit and offset while has_more is true.",
  ].join(" "),
  inputSchema: searchContextInput,
  outputSchema: searchContextOutput,
  annotations: readOnly,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const limit = args.limit ?? 30;
    const offset = args.offset ?? 0;
    const reply = await peers.store.listEntries({
      principal,
      filter: {
        threadId: args.thread_id ?? "",
        source: args.source === undefined ? commonV1.Source.UNSPECIFIED : toProtoSource(args.source),
        tags: args.tags ?? [],
        metadata: Object.entries(args.metadata ?? {}).map(([key, value]) => ({ key, value: fromJson(ValueSchema, value) })),
        ...(args.start_date === undefined ? {} : { createdFrom: timestampFromDate(new Date(args.start_date)) }),
        ...(args.end_date === undefined ? {} : { createdTo: timestampFromDate(new Date(args.end_date)) }),
        contentType: args.content_type ?? "",
      },
      limit,
      offset,
    });
    const results = reply.entries.map(toEntryListing);
    return { results, count: results.length, limit, offset, has_more: reply.hasMore };
  },
});

/** Every tool the gateway offers, in the order tools/list shows them. */
export const allTools: readonly ToolDefinition[] = [storeContextTool, getContextByIdsTool, searchContextTool];

export type ToolHandlerResult = CallToolResult;
