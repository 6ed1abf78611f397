/** Sharing as the tools ask for it: grants and revocations over SharingService, proto built and read here. */
import {
  granteeKindFromProto,
  granteeKindToProto,
  permissionFromProto,
  permissionToProto,
  type PermissionName,
} from "@context-hub/common";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import type { Idempotency } from "../idempotency.js";
import type { SharingServiceClient } from "./peers.js";

/** What to share or unshare: entries, a thread or a collection, with the subjects and groups concerned. */
export interface ShareRequest {
  entryIds: string[];
  threadId: string | undefined;
  collectionId?: string | undefined;
  subjects: string[];
  groups: string[];
  /** Undefined on unshare: every permission. */
  permission: PermissionName | undefined;
  idempotency: Idempotency | undefined;
}

function toProtoRequest(principal: Principal, request: ShareRequest) {
  return {
    principal,
    entryIds: request.entryIds,
    threadId: request.threadId ?? "",
    collectionId: request.collectionId ?? "",
    grantees: [
      ...request.subjects.map((name) => ({ kind: granteeKindToProto("subject"), name })),
      ...request.groups.map((name) => ({ kind: granteeKindToProto("group"), name })),
    ],
    permission: permissionToProto(request.permission),
    ...(request.idempotency === undefined ? {} : { idempotency: request.idempotency }),
  };
}

/** A grant as the tools show it. */
function toGrantView(grant: storeV1.GrantInfo) {
  return {
    grant_id: grant.id,
    context_id: grant.entryId === "" ? null : grant.entryId,
    thread_id: grant.threadId === "" ? null : grant.threadId,
    collection_id: grant.collectionId === "" ? null : grant.collectionId,
    // A grant always names its grantee's kind and permission; the store sends no other.
    grantee_kind:
      granteeKindFromProto(grant.grantee?.kind ?? 0, "grantee.kind") === "group"
        ? ("group" as const)
        : ("subject" as const),
    grantee: grant.grantee?.name ?? "",
    permission:
      permissionFromProto(grant.permission, "permission") === "write" ? ("write" as const) : ("read" as const),
  };
}

/** Which grants to list: on one entry, thread or collection (at most one), by one grantor (admins), one page. */
export interface GrantQuery {
  entryId: string | undefined;
  threadId: string | undefined;
  collectionId: string | undefined;
  grantor: string | undefined;
  limit: number;
  offset: number;
}

/** The sharing client over a SharingService connection. */
export function createSharingClient(store: SharingServiceClient) {
  return {
    /** Grants access; returns the grants made and the entries that became shared. */
    async share(principal: Principal, request: ShareRequest) {
      const reply = await store.share(toProtoRequest(principal, request));
      return {
        grants: reply.grants.map(toGrantView),
        nowSharedIds: reply.nowSharedIds,
      };
    },

    /** The grants the caller made (an admin: its tenant's), newest first, with their grantor and time. */
    async list(principal: Principal, query: GrantQuery) {
      const reply = await store.listGrants({
        principal,
        entryId: query.entryId ?? "",
        threadId: query.threadId ?? "",
        collectionId: query.collectionId ?? "",
        grantor: query.grantor ?? "",
        limit: query.limit,
        offset: query.offset,
      });
      return {
        grants: reply.grants.map((grant) => ({
          ...toGrantView(grant),
          grantor: grant.grantor,
          created_at: grant.createdAt === undefined ? null : timestampDate(grant.createdAt).toISOString(),
        })),
        hasMore: reply.hasMore,
      };
    },

    /** Revokes grants; returns how many were revoked. */
    async unshare(principal: Principal, request: ShareRequest): Promise<number> {
      const reply = await store.unshare(toProtoRequest(principal, request));
      return reply.revokedCount;
    },
  };
}

export type SharingClient = ReturnType<typeof createSharingClient>;
