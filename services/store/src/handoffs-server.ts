// The store's gRPC transport for handoffs: HandoffsService handlers translating proto messages to handoff domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { trustStateToProto, type ServiceImplementation } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { HandoffService } from "./handoffs/handoffs.js";
import type { HandoffRecord } from "./handoffs/handoff-model.js";
import { idempotentResponse, toPrincipal } from "./messages.js";

function toHandoffMessage(handoff: HandoffRecord): MessageInitShape<typeof storeV1.HandoffSchema> {
  return {
    id: handoff.id,
    creator: handoff.creator,
    recipient: { kind: handoff.recipient.kind, name: handoff.recipient.name },
    title: handoff.title,
    summary: handoff.summary,
    nextSteps: handoff.nextSteps,
    openQuestions: handoff.openQuestions,
    links: handoff.links,
    priority: handoff.priority,
    status: handoff.status,
    holder: handoff.holder,
    outcome: handoff.outcome,
    cancelReason: handoff.cancelReason,
    version: handoff.version,
    createdAt: timestampFromDate(handoff.createdAt),
    updatedAt: timestampFromDate(handoff.updatedAt),
    updatedBy: handoff.updatedBy,
    trustState: trustStateToProto(handoff.trust.state),
    trustReasons: handoff.trust.reasons,
  };
}

const createResponse = idempotentResponse(storeV1.CreateHandoffResponseSchema, (handoff: HandoffRecord) => ({
  handoff: toHandoffMessage(handoff),
}));

/** The HandoffsService implementation over the handoff domain. */
export function createHandoffsHandlers(
  handoffs: HandoffService,
): ServiceImplementation<typeof storeV1.HandoffsService> {
  return {
    async createHandoff(request) {
      const outcome = await handoffs.create(toPrincipal(request.principal), {
        recipient:
          request.recipient === undefined ? undefined : { kind: request.recipient.kind, name: request.recipient.name },
        title: request.title,
        summary: request.summary,
        nextSteps: request.nextSteps,
        openQuestions: request.openQuestions,
        links: request.links.map((link) => ({ type: link.type, ref: link.ref })),
        priority: request.priority,
        idempotency: createResponse.key(request.idempotency),
      });
      return createResponse.respond(outcome);
    },

    async getHandoff(request) {
      return { handoff: toHandoffMessage(await handoffs.get(toPrincipal(request.principal), request.id)) };
    },

    async listHandoffs(request) {
      const page = await handoffs.list(toPrincipal(request.principal), {
        role: request.role,
        status: request.status,
        order: request.order,
        limit: request.limit,
        cursor: request.cursor,
      });
      return { handoffs: page.handoffs.map(toHandoffMessage), nextCursor: page.nextCursor };
    },

    async acceptHandoff(request) {
      const handoff = await handoffs.accept(toPrincipal(request.principal), {
        id: request.id,
        note: "",
        expectedVersion: request.expectedVersion,
      });
      return { handoff: toHandoffMessage(handoff) };
    },

    async completeHandoff(request) {
      const handoff = await handoffs.complete(toPrincipal(request.principal), {
        id: request.id,
        note: request.outcome,
        expectedVersion: request.expectedVersion,
      });
      return { handoff: toHandoffMessage(handoff) };
    },

    async cancelHandoff(request) {
      const handoff = await handoffs.cancel(toPrincipal(request.principal), {
        id: request.id,
        note: request.reason,
        expectedVersion: request.expectedVersion,
      });
      return { handoff: toHandoffMessage(handoff) };
    },
  };
}
