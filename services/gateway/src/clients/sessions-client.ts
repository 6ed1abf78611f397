/** Session logs as the tools ask for them, over SessionsService: proto built and read here, answers in the tools' snake_case. */
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Idempotency } from "../idempotency.js";
import type { Principal } from "../principal.js";
import type { SessionsServiceClient } from "./peers.js";
import { toWorkflowTrustFields } from "./proto-enums.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

export type SessionStatusName = "open" | "ended";

export interface StartSessionInput {
  surface: string;
  agent: string;
  namespace: string;
  thread: string;
  idempotency: Idempotency | undefined;
}

/** An event to log: its payload is JSON text. */
export interface NewEventInput {
  kind: string;
  payloadJson: string;
  idempotencyKey: string;
}

export interface ReadEventsInput {
  sessionId: string;
  afterSeq: number;
  kinds: string[];
  limit: number;
}

export interface ListSessionsInput {
  role: "mine" | "";
  namespace: string;
  thread: string;
  status: SessionStatusName | "";
  limit: number;
  cursor: string;
}

/** A session as a tool returns it: its `summary` is text an agent wrote, fenced as untrusted data like an entry's. */
function toSessionView(session: storeV1.Session) {
  return {
    id: session.id,
    owner: session.owner,
    namespace: session.namespace,
    thread: session.thread,
    surface: session.surface,
    agent: session.agent,
    status: session.status as SessionStatusName,
    summary: session.summary,
    last_seq: session.lastSeq,
    started_at: iso(session.startedAt),
    updated_at: iso(session.updatedAt),
    ended_at: iso(session.endedAt),
  };
}

export type SessionView = ReturnType<typeof toSessionView>;

/**
 * An event as a tool returns it. Its payload is `text` (JSON text) under an
 * id of its own (`<session id>:<seq>`), so the untrusted-data fence that
 * wraps every stored entry's text wraps it too.
 */
function toEventView(sessionId: string, event: storeV1.SessionEvent) {
  return {
    id: `${sessionId}:${event.seq}`,
    seq: event.seq,
    kind: event.kind,
    text: event.payloadJson,
    idempotency_key: event.idempotencyKey === "" ? null : event.idempotencyKey,
    written_by: event.writtenBy,
    written_at: iso(event.writtenAt),
    ...toWorkflowTrustFields(event),
  };
}

export type SessionEventView = ReturnType<typeof toEventView>;

/** The sessions client over a SessionsService connection. */
export function createSessionsClient(store: SessionsServiceClient) {
  return {
    /** Starts an open session owned by the caller. */
    async start(principal: Principal, input: StartSessionInput) {
      const reply = await store.startSession({
        principal,
        surface: input.surface,
        agent: input.agent,
        namespace: input.namespace,
        thread: input.thread,
        ...(input.idempotency === undefined ? {} : { idempotency: input.idempotency }),
      });
      return toSessionView(reply.session!);
    },

    /** One session the caller can see. */
    async get(principal: Principal, id: string) {
      return toSessionView((await store.getSession({ principal, id })).session!);
    },

    /** Logs a batch of events; each answer says the number it got and whether its key had stored it before. */
    async append(principal: Principal, sessionId: string, events: NewEventInput[]) {
      const reply = await store.appendSessionEvents({ principal, sessionId, events });
      return {
        session: toSessionView(reply.session!),
        events: reply.events.map((event) => ({
          seq: event.seq,
          kind: event.kind,
          idempotency_key: event.idempotencyKey === "" ? null : event.idempotencyKey,
          duplicate: event.duplicate,
          ...toWorkflowTrustFields(event),
        })),
      };
    },

    /** A page of a session's events, oldest first. */
    async read(principal: Principal, input: ReadEventsInput) {
      const reply = await store.readSessionEvents({ principal, ...input });
      const session = toSessionView(reply.session!);
      return {
        session,
        events: reply.events.map((event) => toEventView(session.id, event)),
        nextAfterSeq: reply.nextAfterSeq,
      };
    },

    /** One page of the sessions the caller can see, newest first. */
    async list(principal: Principal, input: ListSessionsInput) {
      const reply = await store.listSessions({ principal, ...input });
      return { sessions: reply.sessions.map(toSessionView), nextCursor: reply.nextCursor };
    },

    /** Ends a session, keeping its summary. */
    async end(principal: Principal, id: string, summary: string) {
      return toSessionView((await store.endSession({ principal, id, summary })).session!);
    },
  };
}

export type SessionsClient = ReturnType<typeof createSessionsClient>;
