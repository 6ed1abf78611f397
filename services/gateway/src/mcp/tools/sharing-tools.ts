import { storeV1 } from "@context-hub/proto";
import { resolveIdempotency } from "../../idempotency.js";
import { shareContextInput, unshareContextInput } from "../input-schemas.js";
import { shareOutput, unshareOutput } from "../output-schemas.js";
import { additiveTool, defineTool, destructiveTool } from "../tool-definition.js";

const toPermission = (permission: "read" | "write" | undefined) =>
  permission === "read" ? storeV1.Permission.READ : permission === "write" ? storeV1.Permission.WRITE : storeV1.Permission.UNSPECIFIED;

function toGrantees(args: { subjects?: string[] | undefined; groups?: string[] | undefined }) {
  return [...(args.subjects ?? []).map((name) => ({ kind: storeV1.GranteeKind.SUBJECT, name })), ...(args.groups ?? []).map((name) => ({ kind: storeV1.GranteeKind.GROUP, name }))];
}

export const shareContextTool = defineTool({
  name: "share_context",
  title: "Share context",
  description: [
    "Give people or groups in your organisation read or write access to entries you own, or to all your entries in a thread (including ones you store there later).",
    "Shared entries stay invisible to everyone else. Undo with unshare_context.",
  ].join(" "),
  inputSchema: shareContextInput,
  outputSchema: shareOutput,
  annotations: additiveTool,
  scope: "context:write",
  async handler(args, { principal, peers }) {
    const idempotency = await resolveIdempotency(peers, principal, "share_context", args);
    const reply = await peers.store.share({
      principal,
      entryIds: args.context_ids ?? [],
      threadId: args.thread_id ?? "",
      grantees: toGrantees(args),
      permission: toPermission(args.permission),
      ...(idempotency === undefined ? {} : { idempotency }),
    });
    return {
      grants: reply.grants.map((grant) => ({
        grant_id: grant.id,
        context_id: grant.entryId === "" ? null : grant.entryId,
        thread_id: grant.threadId === "" ? null : grant.threadId,
        grantee_kind: grant.grantee?.kind === storeV1.GranteeKind.GROUP ? "group" : "subject",
        grantee: grant.grantee?.name ?? "",
        permission: grant.permission === storeV1.Permission.WRITE ? "write" : "read",
      })),
      now_shared_ids: reply.nowSharedIds,
      message: `Granted ${args.permission} access to ${toGrantees(args).length} grantee(s).`,
    };
  },
});

export const unshareContextTool = defineTool({
  name: "unshare_context",
  title: "Stop sharing context",
  description: "Revoke access you granted with share_context, on entries or on a thread, for the named subjects and groups (all of them when none are named). Takes effect immediately.",
  inputSchema: unshareContextInput,
  outputSchema: unshareOutput,
  annotations: destructiveTool,
  scope: "context:write",
  async handler(args, { principal, peers }) {
    const idempotency = await resolveIdempotency(peers, principal, "unshare_context", args);
    const reply = await peers.store.unshare({
      principal,
      entryIds: args.context_ids ?? [],
      threadId: args.thread_id ?? "",
      grantees: toGrantees(args),
      permission: toPermission(args.permission),
      ...(idempotency === undefined ? {} : { idempotency }),
    });
    return { revoked_count: reply.revokedCount, message: `Revoked ${reply.revokedCount} grant(s).` };
  },
});
