// The store's gRPC transport for review: ReviewService handlers translating proto messages to review domain calls and back.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  reviewDecisionFromProto,
  trustStateFromProto,
  trustStateToProto,
  type ServiceImplementation,
} from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import { toEntryMessage, toPrincipal } from "./messages.js";
import type { QueueItem } from "./model/review-ports.js";
import type { ReviewService } from "./review/review.js";

const optionalTimestamp = (date: Date | undefined) => (date === undefined ? undefined : timestampFromDate(date));

/** One queue item as its message: an entry, a handoff or a session event. */
function toQueueItemMessage(item: QueueItem) {
  if (item.type === "entry") return { item: { case: "entry" as const, value: toEntryMessage(item.entry) } };
  if (item.type === "handoff") {
    const { handoff } = item;
    return {
      item: {
        case: "handoff" as const,
        value: {
          id: handoff.id,
          creator: handoff.creator,
          recipientKind: handoff.recipientKind,
          recipient: handoff.recipient,
          title: handoff.title,
          text: handoff.text,
          status: handoff.status,
          version: handoff.version,
          trustState: trustStateToProto(handoff.trust.state),
          trustReasons: handoff.trust.reasons,
          createdAt: timestampFromDate(handoff.createdAt),
          updatedAt: timestampFromDate(handoff.updatedAt),
          updatedBy: handoff.updatedBy,
          reviewedBy: handoff.reviewedBy ?? "",
          reviewedAt: optionalTimestamp(handoff.reviewedAt),
          reviewNote: handoff.reviewNote ?? "",
          artifacts: handoff.artifacts,
        },
      },
    };
  }
  const { event } = item;
  return {
    item: {
      case: "sessionEvent" as const,
      value: {
        sessionId: event.sessionId,
        sequence: event.seq,
        eventKind: event.eventKind,
        payload: event.payload,
        sessionOwner: event.sessionOwner,
        namespace: event.namespace,
        writtenBy: event.writtenBy,
        writtenAt: timestampFromDate(event.writtenAt),
        trustState: trustStateToProto(event.trust.state),
        trustReasons: event.trust.reasons,
        reviewedBy: event.reviewedBy ?? "",
        reviewedAt: optionalTimestamp(event.reviewedAt),
        reviewNote: event.reviewNote ?? "",
      },
    },
  };
}

/** The ReviewService implementation over the review domain. */
export function createReviewHandlers(review: ReviewService): ServiceImplementation<typeof storeV1.ReviewService> {
  return {
    async listReviewQueue(request) {
      const result = await review.listQueue(toPrincipal(request.principal), {
        states: request.states.map((state, index) => trustStateFromProto(state, `states[${index}]`)),
        threadId: request.threadId,
        limit: request.limit,
        offset: request.offset,
      });
      return {
        entries: result.items.flatMap((item) => (item.type === "entry" ? [toEntryMessage(item.entry)] : [])),
        items: result.items.map(toQueueItemMessage),
        hasMore: result.hasMore,
      };
    },

    async reviewEntry(request) {
      const outcome = await review.review(toPrincipal(request.principal), {
        id: request.id,
        handoffId: request.handoffId,
        sessionId: request.sessionId,
        sequence: request.sequence,
        decision: reviewDecisionFromProto(request.decision, "decision"),
        note: request.note,
        expectedVersion: request.expectedVersion,
      });
      return {
        id: outcome.id,
        version: outcome.version,
        previousState: trustStateToProto(outcome.previousState),
        trustState: trustStateToProto(outcome.state),
        reviewedBy: outcome.reviewedBy,
        reviewedAt: timestampFromDate(outcome.reviewedAt),
        memory: outcome.memory,
        handoff: outcome.handoff,
        sessionEvent:
          outcome.sessionEvent === undefined
            ? undefined
            : {
                sessionId: outcome.sessionEvent.sessionId,
                sequence: outcome.sessionEvent.seq,
                eventKind: outcome.sessionEvent.eventKind,
              },
      };
    },
  };
}
