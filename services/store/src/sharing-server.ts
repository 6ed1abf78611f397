// The store's gRPC transport for grants: SharingService handlers translating proto messages to sharing domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  granteeKindFromProto,
  granteeKindToProto,
  permissionFromProto,
  permissionToProto,
  type ServiceImplementation,
} from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import { idempotentResponse, toPrincipal } from "./messages.js";
import type { GrantRecord } from "./model/sharing-model.js";
import type { GranteeInput, SharingService, ShareResult, UnshareResult } from "./sharing/sharing.js";

export function toGrantees(grantees: readonly storeV1.Grantee[]): GranteeInput[] {
  return grantees.map((grantee, index) => ({
    kind: granteeKindFromProto(grantee.kind, `grantees[${index}].kind`),
    name: grantee.name,
  }));
}

export function toGrantMessage(grant: GrantRecord): MessageInitShape<typeof storeV1.GrantInfoSchema> {
  return {
    id: grant.id,
    entryId: grant.entryId ?? "",
    threadId: grant.threadId ?? "",
    collectionId: grant.collectionId ?? "",
    grantee: { kind: granteeKindToProto(grant.grantee.kind), name: grant.grantee.name },
    permission: permissionToProto(grant.permission),
    grantor: grant.grantor,
    createdAt: timestampFromDate(grant.createdAt),
  };
}

const shareResponse = idempotentResponse(storeV1.ShareResponseSchema, (result: ShareResult) => ({
  grants: result.grants.map(toGrantMessage),
  nowSharedIds: result.nowSharedIds,
}));

const unshareResponse = idempotentResponse(storeV1.UnshareResponseSchema, (result: UnshareResult) => ({
  revokedCount: result.revokedCount,
}));

/** The SharingService implementation over the sharing domain. */
export function createSharingHandlers(sharing: SharingService): ServiceImplementation<typeof storeV1.SharingService> {
  return {
    async share(request) {
      const outcome = await sharing.share(toPrincipal(request.principal), {
        entryIds: request.entryIds,
        threadId: request.threadId,
        collectionId: request.collectionId,
        grantees: toGrantees(request.grantees),
        permission: permissionFromProto(request.permission, "permission"),
        idempotency: shareResponse.key(request.idempotency),
      });
      return shareResponse.respond(outcome);
    },

    async unshare(request) {
      const outcome = await sharing.unshare(toPrincipal(request.principal), {
        entryIds: request.entryIds,
        threadId: request.threadId,
        collectionId: request.collectionId,
        grantees: toGrantees(request.grantees),
        permission: permissionFromProto(request.permission, "permission"),
        idempotency: unshareResponse.key(request.idempotency),
      });
      return unshareResponse.respond(outcome);
    },

    async listGrants(request) {
      const page = await sharing.listGrants(toPrincipal(request.principal), {
        entryId: request.entryId,
        threadId: request.threadId,
        collectionId: request.collectionId,
        grantor: request.grantor,
        limit: request.limit,
        offset: request.offset,
      });
      return { grants: page.grants.map(toGrantMessage), hasMore: page.hasMore };
    },
  };
}
