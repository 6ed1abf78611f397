/**
 * The session service: logs of what an agent did in one working session,
 * as events numbered 1, 2, 3, … per session.
 *
 * A session is seen by its owner and by whoever may read its namespace
 * (the owner's thread grants on it, as memories' namespaces are shared);
 * to anyone else it and a session that does not exist get one and the same
 * answer. Its owner, and those granted write on the namespace, append to it
 * and end it. An append locks the session row and numbers its events after
 * the session's last one in the same transaction, so concurrent appenders
 * get distinct, consecutive numbers and a failed append leaves no gap. An
 * event sent with an idempotency key is stored once: sent again, it answers
 * with the number it got the first time. No SQL or transport here.
 *
 * Each event's kind and payload pass the entries' write-time screen before
 * the append's transaction opens; an event with findings is stored
 * quarantined (`payload:<rule>`, …), and every read shows its trust state.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { createIdempotentRunner, type IdempotencyExpiry, type Outcome } from "../idempotency/idempotency.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { screenRecords } from "../screen/part-screen.js";
import type { WriteScreen } from "../screen/write-screen.js";
import { decodeSessionCursor, encodeSessionCursor } from "./session-cursor.js";
import {
  isSessionId,
  screenedPartsOf,
  sessionLimits,
  sessionNotFound,
  validateEvents,
  validateListing,
  validateRead,
  validateStart,
  validateSummary,
  type AppendEventsRequest,
  type AppendResult,
  type AppendedEvent,
  type EndSessionRequest,
  type EventPage,
  type ListSessionsRequest,
  type ReadEventsRequest,
  type SessionPage,
  type SessionEvent,
  type SessionRecord,
  type SessionStart,
  type ScreenedEvent,
  type StartSessionRequest,
} from "./session-model.js";
import type { SessionRepository, SessionWriteScope, StoredSession } from "./session-repository.js";

export interface SessionService {
  start(principal: Principal | undefined, request: StartSessionRequest): Promise<Outcome<SessionRecord>>;
  get(principal: Principal | undefined, id: string): Promise<SessionRecord>;
  append(principal: Principal | undefined, request: AppendEventsRequest): Promise<AppendResult>;
  read(principal: Principal | undefined, request: ReadEventsRequest): Promise<EventPage>;
  list(principal: Principal | undefined, request: ListSessionsRequest): Promise<SessionPage>;
  end(principal: Principal | undefined, request: EndSessionRequest): Promise<SessionRecord>;
}

function recordOf(session: StoredSession): SessionRecord {
  const { writable: _writable, ...record } = session;
  return record;
}

/** The session locked for a change the caller must be allowed to make; throws the one not-found answer otherwise. */
async function lockWritable(scope: SessionWriteScope, caller: Principal, id: string): Promise<StoredSession> {
  const session = isSessionId(id) ? await scope.lock(caller, id) : undefined;
  if (session === undefined) throw sessionNotFound(id);
  if (!session.writable)
    throw new ContextHubError(
      "PERMISSION_DENIED",
      `you may read session ${JSON.stringify(id)} but not change it: only its owner ${JSON.stringify(session.owner)} and those granted write on namespace ${JSON.stringify(session.namespace)} may`,
    );
  return session;
}

function endedConflict(session: SessionRecord): ContextHubError {
  return new ContextHubError("VERSION_CONFLICT", `session ${JSON.stringify(session.id)} has ended`, {
    remedy: "an ended session takes no more events and keeps its summary; start a new session with start_session",
    details: { status: session.status, last_seq: session.lastSeq },
  });
}

/** Events whose keys stored them before, checked to be the same events; throws when a key is reused for another. */
async function earlierEvents(
  scope: SessionWriteScope,
  sessionId: string,
  events: readonly ScreenedEvent[],
): Promise<Map<string, number>> {
  const keys = events.flatMap((event) => (event.idempotencyKey === undefined ? [] : [event.idempotencyKey]));
  const stored = new Map((await scope.keyed(sessionId, keys)).map((event) => [event.idempotencyKey, event]));
  const seqs = new Map<string, number>();
  events.forEach((event, index) => {
    const earlier = event.idempotencyKey === undefined ? undefined : stored.get(event.idempotencyKey);
    if (earlier === undefined) return;
    if (earlier.payloadHash !== event.payloadHash)
      throw invalidArgument(
        `events[${index}].idempotency_key ${JSON.stringify(earlier.idempotencyKey)} already logged event ${earlier.seq} with a different kind or payload`,
        "use a new idempotency key for a different event, or resend the first event exactly",
      );
    seqs.set(earlier.idempotencyKey, earlier.seq);
  });
  return seqs;
}

async function appendIn(
  scope: SessionWriteScope,
  caller: Principal,
  sessionId: string,
  events: readonly ScreenedEvent[],
): Promise<AppendResult> {
  const session = await lockWritable(scope, caller, sessionId);
  const earlier = await earlierEvents(scope, session.id, events);
  const fresh = events.filter((event) => event.idempotencyKey === undefined || !earlier.has(event.idempotencyKey));
  if (fresh.length > 0 && session.status === "ended") throw endedConflict(session);
  if (session.lastSeq + fresh.length > sessionLimits.eventsPerSession)
    throw invalidArgument(
      `session ${JSON.stringify(session.id)} holds ${session.lastSeq} events; a session holds at most ${sessionLimits.eventsPerSession}`,
      "end it and start a new session",
    );
  const firstSeq = session.lastSeq + 1;
  const updated = fresh.length === 0 ? recordOf(session) : await scope.append(caller, session.id, firstSeq, fresh);
  let next = firstSeq;
  const appended: AppendedEvent[] = events.map((event) => {
    const seq = event.idempotencyKey === undefined ? undefined : earlier.get(event.idempotencyKey);
    return {
      seq: seq ?? next++,
      kind: event.kind,
      idempotencyKey: event.idempotencyKey ?? "",
      duplicate: seq !== undefined,
      trust: event.trust,
    };
  });
  const quarantined = appended
    .filter((event) => !event.duplicate && event.trust.state === "quarantined")
    .map((event) => event.seq);
  if (fresh.length > 0)
    scope.audit.record(caller.tenant, {
      actor: caller.subject,
      action: "session.append",
      outcome: "ok",
      targetIds: [session.id],
      beforeHashes: [],
      afterHashes: fresh.map((event) => event.payloadHash),
      details: {
        first_seq: firstSeq,
        last_seq: updated.lastSeq,
        count: fresh.length,
        ...(quarantined.length === 0 ? {} : { quarantined_seqs: quarantined }),
      },
    });
  return { session: updated, events: appended };
}

async function endIn(
  scope: SessionWriteScope,
  caller: Principal,
  sessionId: string,
  summary: string,
): Promise<SessionRecord> {
  const session = await lockWritable(scope, caller, sessionId);
  if (session.status === "ended") {
    // Ending it again as it was ended answers as the first end did: a retry after a lost reply is not a conflict.
    if (session.summary === summary) return recordOf(session);
    throw endedConflict(session);
  }
  const ended = await scope.end(session.id, summary);
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "session.end",
    outcome: "ok",
    targetIds: [session.id],
    beforeHashes: [],
    afterHashes: [],
    details: { last_seq: ended.lastSeq, summary_chars: summary.length },
  });
  return ended;
}

async function startIn(scope: SessionWriteScope, caller: Principal, start: SessionStart): Promise<SessionRecord> {
  const session = await scope.insert(caller, start);
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "session.start",
    outcome: "ok",
    targetIds: [session.id],
    beforeHashes: [],
    afterHashes: [],
    details: { namespace: start.namespace, thread: start.thread, surface: start.surface, agent: start.agent },
  });
  return session;
}

/**
 * The leading events whose payloads fit in a page's size, at least one, so a
 * page of large payloads stays bounded.
 */
function withinPageSize(events: readonly SessionEvent[]): SessionEvent[] {
  let chars = 0;
  const fitting = events.findIndex((event, index) => {
    chars += event.payload.length;
    return index > 0 && chars > sessionLimits.eventPageChars;
  });
  return fitting === -1 ? [...events] : events.slice(0, fitting);
}

/** The session service over its repository. */
export function createSessionService(
  repository: SessionRepository,
  denials: DenialRecorder,
  screen: WriteScreen,
  expiry?: IdempotencyExpiry,
): SessionService {
  const runner = createIdempotentRunner(repository, expiry);
  const targets = (id: string) => (isSessionId(id) ? [id] : []);
  const find = async (caller: Principal, id: string) => {
    const session = isSessionId(id) ? await repository.find(caller, id) : undefined;
    if (session === undefined) throw sessionNotFound(id);
    return session;
  };
  return {
    start(principal, request) {
      return denials.guard(principal, "session.start", [], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "StartSession",
          request.idempotency,
          () => validateStart(request, caller.subject),
          (start, scope) =>
            scope === undefined
              ? repository.transaction((tx) => startIn(tx, caller, start))
              : startIn(scope, caller, start),
        );
      });
    },

    get: async (principal, id) => find(requirePrincipal(principal, "context:read"), id),

    append(principal, request) {
      return denials.guard(principal, "session.append", targets(request.sessionId), async () => {
        const caller = requirePrincipal(principal, "context:write");
        // Checked and screened before the transaction opens: bad input, or a screen over its budget, appends nothing.
        const valid = validateEvents(request.events);
        const trusts = await screenRecords(screen, valid.map(screenedPartsOf));
        const events = valid.map((event, index) => ({ ...event, trust: trusts[index]! }));
        return repository.transaction((scope) => appendIn(scope, caller, request.sessionId, events));
      });
    },

    async read(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const read = validateRead(request);
      const session = await find(caller, request.sessionId);
      const rows = await repository.events(caller, session.id, read.afterSeq, read.kinds, read.limit);
      const page = withinPageSize(rows.slice(0, read.limit));
      const more = page.length < rows.length;
      return { session, events: page, nextAfterSeq: more ? page.at(-1)!.seq : 0 };
    },

    async list(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const listing = validateListing(request);
      const before = decodeSessionCursor(request.cursor);
      const rows = await repository.list(caller, { ...listing, before }, listing.limit);
      const page = rows.slice(0, listing.limit);
      const last = page.at(-1);
      return {
        sessions: page,
        nextCursor: rows.length > listing.limit && last !== undefined ? encodeSessionCursor(last.id) : "",
      };
    },

    end(principal, request) {
      return denials.guard(principal, "session.end", targets(request.sessionId), async () => {
        const caller = requirePrincipal(principal, "context:write");
        const summary = validateSummary(request.summary);
        return repository.transaction((scope) => endIn(scope, caller, request.sessionId, summary));
      });
    },
  };
}
