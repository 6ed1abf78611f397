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
import { toQueueItemView } from "./trust-views.js";

/** The review client over a ReviewService connection. */
export function createReviewClient(store: ReviewServiceClient) {
  return {
    /**
     * One page of the entries (memories' quarantined values among them), handoffs and session events waiting for a
     * reviewer in the given states (all waiting states when none are given), in one order.
     */
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
      return { entries: reply.items.map(toQueueItemView), hasMore: reply.hasMore };
    },

    /** Approves or rejects the entry, handoff or session event at the version the reviewer read. */
    async review(
      principal: Principal,
      request: {
        id: string | undefined;
        handoffId: string | undefined;
        sessionId: string | undefined;
        sequence: number | undefined;
        decision: ReviewDecisionName;
        note: string | undefined;
        expectedVersion: number;
      },
    ) {
      const reply = await store.reviewEntry({
        principal,
        id: request.id ?? "",
        handoffId: request.handoffId ?? "",
        sessionId: request.sessionId ?? "",
        sequence: request.sequence ?? 0,
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
        handoff: reply.handoff === undefined ? null : { id: reply.handoff.id, title: reply.handoff.title },
        sessionEvent:
          reply.sessionEvent === undefined
            ? null
            : {
                session_id: reply.sessionEvent.sessionId,
                sequence: reply.sessionEvent.sequence,
                event_kind: reply.sessionEvent.eventKind,
              },
      };
    },
  };
}

export type ReviewClient = ReturnType<typeof createReviewClient>;
