import { resolveIdempotency } from "../../idempotency.js";
import { listGrantsInput, shareContextInput, unshareContextInput } from "../governance-schemas.js";
import { listGrantsOutput, shareOutput, unshareOutput } from "../output-schemas.js";
import { additiveTool, defineTool, destructiveTool, readOnlyTool } from "../tool-definition.js";
import type { ShareRequest } from "../../clients/sharing-client.js";
import type { Idempotency } from "../../idempotency.js";

interface ShareArgs {
  context_ids?: string[] | undefined;
  thread_id?: string | undefined;
  collection_id?: string | undefined;
  subjects?: string[] | undefined;
  groups?: string[] | undefined;
  permission?: "read" | "write" | undefined;
}

function toShareRequest(args: ShareArgs, idempotency: Idempotency | undefined): ShareRequest {
  return {
    entryIds: args.context_ids ?? [],
    threadId: args.thread_id,
    collectionId: args.collection_id,
    subjects: args.subjects ?? [],
    groups: args.groups ?? [],
    permission: args.permission,
    idempotency,
  };
}

export const shareContextTool = defineTool({
  name: "share_context",
  title: "Share context",
  description: [
    "Give people or groups in your organisation read or write access to entries you own, or to all your entries in a thread (including ones you store there later).",
    "Or give them read access to a collection of yours (collection_id): they see it and its members that are your entries, including ones you add later.",
    "Shared entries stay invisible to everyone else. Undo with unshare_context.",
  ].join(" "),
  inputSchema: shareContextInput,
  outputSchema: shareOutput,
  annotations: additiveTool,
  scope: "context:write",
  async handler(args, { principal, peers, clients }) {
    const idempotency = await resolveIdempotency(peers, principal, "share_context", args);
    const request = toShareRequest(args, idempotency);
    const { grants, nowSharedIds } = await clients.sharing.share(principal, request);
    return {
      grants,
      now_shared_ids: nowSharedIds,
      message: `Granted ${args.permission} access to ${request.subjects.length + request.groups.length} grantee(s).`,
    };
  },
});

export const unshareContextTool = defineTool({
  name: "unshare_context",
  title: "Stop sharing context",
  description:
    "Revoke access you granted with share_context, on entries, a thread or a collection, for the named subjects and groups (all of them when none are named). Takes effect immediately.",
  inputSchema: unshareContextInput,
  outputSchema: unshareOutput,
  annotations: destructiveTool,
  scope: "context:write",
  async handler(args, { principal, peers, clients }) {
    const idempotency = await resolveIdempotency(peers, principal, "unshare_context", args);
    const revokedCount = await clients.sharing.unshare(principal, toShareRequest(args, idempotency));
    return { revoked_count: revokedCount, message: `Revoked ${revokedCount} grant(s).` };
  },
});

export const listGrantsTool = defineTool({
  name: "list_grants",
  title: "List grants",
  description:
    "List the access you have granted with share_context, newest first: on one entry, thread or collection, or all of them, with the grantee, permission and when. Administrators see every grant in the organisation.",
  inputSchema: listGrantsInput,
  outputSchema: listGrantsOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const offset = args.offset ?? 0;
    const { grants, hasMore } = await clients.sharing.list(principal, {
      entryId: args.context_id,
      threadId: args.thread_id,
      collectionId: args.collection_id,
      grantor: args.grantor,
      limit: args.limit ?? 50,
      offset,
    });
    return { grants, count: grants.length, offset, has_more: hasMore };
  },
});
