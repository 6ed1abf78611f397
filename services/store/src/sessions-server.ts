// The store's gRPC transport for session logs: SessionsService handlers translating proto messages to session domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { trustStateToProto, type ServiceImplementation } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { SessionService } from "./sessions/sessions.js";
import type { SessionEvent, SessionRecord } from "./sessions/session-model.js";
import { idempotentResponse, toPrincipal } from "./messages.js";

function toSessionMessage(session: SessionRecord): MessageInitShape<typeof storeV1.SessionSchema> {
  return {
    id: session.id,
    owner: session.owner,
    namespace: session.namespace,
    thread: session.thread,
    surface: session.surface,
    agent: session.agent,
    status: session.status,
    summary: session.summary,
    lastSeq: session.lastSeq,
    startedAt: timestampFromDate(session.startedAt),
    updatedAt: timestampFromDate(session.updatedAt),
    endedAt: session.endedAt === undefined ? undefined : timestampFromDate(session.endedAt),
  };
}

function toEventMessage(event: SessionEvent): MessageInitShape<typeof storeV1.SessionEventSchema> {
  return {
    seq: event.seq,
    kind: event.kind,
    payloadJson: event.payload,
    idempotencyKey: event.idempotencyKey,
    writtenBy: event.writtenBy,
    writtenAt: timestampFromDate(event.writtenAt),
    trustState: trustStateToProto(event.trust.state),
    trustReasons: event.trust.reasons,
  };
}

const startResponse = idempotentResponse(storeV1.StartSessionResponseSchema, (session: SessionRecord) => ({
  session: toSessionMessage(session),
}));

/** The SessionsService implementation over the session domain. */
export function createSessionsHandlers(
  sessions: SessionService,
): ServiceImplementation<typeof storeV1.SessionsService> {
  return {
    async startSession(request) {
      const outcome = await sessions.start(toPrincipal(request.principal), {
        surface: request.surface,
        agent: request.agent,
        namespace: request.namespace,
        thread: request.thread,
        idempotency: startResponse.key(request.idempotency),
      });
      return startResponse.respond(outcome);
    },

    async getSession(request) {
      return { session: toSessionMessage(await sessions.get(toPrincipal(request.principal), request.id)) };
    },

    async appendSessionEvents(request) {
      const result = await sessions.append(toPrincipal(request.principal), {
        sessionId: request.sessionId,
        events: request.events.map((event) => ({
          kind: event.kind,
          payload: event.payloadJson,
          idempotencyKey: event.idempotencyKey,
        })),
      });
      return {
        session: toSessionMessage(result.session),
        events: result.events.map(({ trust, ...event }) => ({
          ...event,
          trustState: trustStateToProto(trust.state),
          trustReasons: trust.reasons,
        })),
      };
    },

    async readSessionEvents(request) {
      const page = await sessions.read(toPrincipal(request.principal), {
        sessionId: request.sessionId,
        afterSeq: request.afterSeq,
        kinds: request.kinds,
        limit: request.limit,
      });
      return {
        session: toSessionMessage(page.session),
        events: page.events.map(toEventMessage),
        nextAfterSeq: page.nextAfterSeq,
      };
    },

    async listSessions(request) {
      const page = await sessions.list(toPrincipal(request.principal), {
        role: request.role,
        namespace: request.namespace,
        thread: request.thread,
        status: request.status,
        limit: request.limit,
        cursor: request.cursor,
      });
      return { sessions: page.sessions.map(toSessionMessage), nextCursor: page.nextCursor };
    },

    async endSession(request) {
      const session = await sessions.end(toPrincipal(request.principal), {
        sessionId: request.id,
        summary: request.summary,
      });
      return { session: toSessionMessage(session) };
    },
  };
}
