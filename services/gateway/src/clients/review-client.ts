/** Review as the tools ask for it: the queue and decisions over ReviewService, proto built and read here. */
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  reviewDecisionToProto,
  trustStateToProto,
  type ReviewDecisionName,
  type TrustStateName,
} from "@context-hub/common";
import type { Principal } from "../principal.js";
import type { ReviewServiceClient } from "./peers.js";
import { fromProtoTrustState } from "./proto-enums.js";
import { toReviewItemView } from "./trust-views.js";

/** The review client over a ReviewService connection. */
export function createReviewClient(store: ReviewServiceClient) {
  return {
    /** One page of the entries (memories' quarantined values among them) waiting for a reviewer in the given states (all waiting states when none are given). */
    async listQueue(
      principal: Principal,
      request: { states: TrustStateName[]; threadId: string | undefined; limit: number; offset: number },
    ) {
      const reply = await store.listReviewQueue({
        principal,
        states: request.states.map(trustStateToProto),
        threadId: request.threadId ?? "",
        limit: request.limit,
        offset: request.offset,
      });
      return { entries: reply.entries.map(toReviewItemView), hasMore: reply.hasMore };
    },

    /** Approves or rejects the entry at the version the reviewer read. */
    async review(
      principal: Principal,
      request: { id: string; decision: ReviewDecisionName; note: string | undefined; expectedVersion: number },
    ) {
      const reply = await store.reviewEntry({
        principal,
        id: request.id,
        decision: reviewDecisionToProto(request.decision),
        note: request.note ?? "",
        expectedVersion: request.expectedVersion,
      });
      return {
        id: reply.id,
        version: reply.version,
        previousState: fromProtoTrustState(reply.previousState),
        trustState: fromProtoTrustState(reply.trustState),
        reviewedBy: reply.reviewedBy,
        reviewedAt: reply.reviewedAt === undefined ? null : timestampDate(reply.reviewedAt).toISOString(),
        memory:
          reply.memory === undefined
            ? null
            : {
                namespace: reply.memory.namespace,
                key: reply.memory.key,
                owner: reply.memory.owner,
                version: reply.memory.version,
              },
      };
    },
  };
}

export type ReviewClient = ReturnType<typeof createReviewClient>;
