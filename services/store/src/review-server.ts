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
import type { ReviewService } from "./review/review.js";

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
      return { entries: result.entries.map(toEntryMessage), hasMore: result.hasMore };
    },

    async reviewEntry(request) {
      const outcome = await review.review(toPrincipal(request.principal), {
        id: request.id,
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
      };
    },
  };
}
