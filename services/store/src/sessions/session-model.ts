/**
 * Session logs as every layer of the store speaks of them: sessions, their
 * events, the requests of the session service and the checks of those
 * requests. Pure rules, no SQL and no transport.
 */
import { createHash } from "node:crypto";
import { ContextHubError, invalidArgument } from "@context-hub/common";
import { containsNul, hasNul, validateThreadId } from "../model/field-validation.js";
import type { JsonValue } from "../model/entry-values.js";
import type { IdempotencyRequest } from "../model/idempotency-request.js";
import type { Trust } from "../model/trust.js";
import type { PartTrust, ScreenedPart } from "../screen/part-screen.js";

export type SessionStatus = "open" | "ended";

/** A session log's limits; the gateway's schemas hold callers to the same numbers. */
export const sessionLimits = {
  nameChars: 256,
  kindChars: 64,
  /** One event's payload, as JSON text. */
  payloadChars: 64_000,
  eventsPerAppend: 100,
  /** All payloads of one append together. */
  appendChars: 1_000_000,
  keyChars: 200,
  summaryChars: 20_000,
  /** Events one session may hold, so a runaway writer cannot fill the store. */
  eventsPerSession: 1_000_000,
  kindsPerRead: 20,
  defaultEventPage: 100,
  maxEventPage: 500,
  /** A page of events stops once its payloads pass this many characters (it always holds at least one event). */
  eventPageChars: 1_000_000,
  defaultSessionPage: 20,
  maxSessionPage: 100,
} as const;

/** A session and its current state. */
export interface SessionRecord {
  id: string;
  owner: string;
  namespace: string;
  thread: string;
  surface: string;
  agent: string;
  status: SessionStatus;
  summary: string;
  /** The sequence number of its newest event; 0 while it has none. */
  lastSeq: number;
  startedAt: Date;
  updatedAt: Date;
  endedAt: Date | undefined;
}

/** One logged event. `payload` is JSON text. */
export interface SessionEvent {
  seq: number;
  kind: string;
  payload: string;
  idempotencyKey: string;
  writtenBy: string;
  writtenAt: Date;
  /**
   * Quarantined when the write-time screen found instruction-shaped content in its kind or payload; verified or
   * rejected once a reviewer approved or rejected it.
   */
  trust: Trust;
}

export interface StartSessionRequest {
  surface: string;
  agent: string;
  /** Empty: the caller's own namespace (its subject). */
  namespace: string;
  /** Empty: the namespace. */
  thread: string;
  idempotency?: IdempotencyRequest<SessionRecord> | undefined;
}

/** What a session is started with, checked. */
export interface SessionStart {
  surface: string;
  agent: string;
  namespace: string;
  thread: string;
}

/** An event as a caller sends it: `payload` is JSON text, `idempotencyKey` empty for none. */
export interface EventInput {
  kind: string;
  payload: string;
  idempotencyKey: string;
}

/** An event checked and normalised: its payload in canonical JSON, hashed with its kind. */
export interface ValidEvent {
  kind: string;
  payload: string;
  payloadHash: string;
  idempotencyKey: string | undefined;
}

/** A checked event with the write-time screen's verdict on it. */
export interface ScreenedEvent extends ValidEvent {
  trust: PartTrust;
}

/** What the write-time screen reads of an event: its kind, and its payload's keys and string values each on their own. */
export function screenedPartsOf(event: ValidEvent): Record<string, ScreenedPart> {
  return { kind: { text: event.kind }, payload: { json: JSON.parse(event.payload) as unknown } };
}

export interface AppendEventsRequest {
  sessionId: string;
  events: EventInput[];
}

/** Where each sent event landed, in the order sent; `duplicate` when its key had stored it before. */
export interface AppendedEvent {
  seq: number;
  kind: string;
  idempotencyKey: string;
  duplicate: boolean;
  /** The stored event's trust (a duplicate carries the same kind and payload as the event first stored). */
  trust: Trust;
}

export interface AppendResult {
  session: SessionRecord;
  events: AppendedEvent[];
}

export interface ReadEventsRequest {
  sessionId: string;
  /** Events after this sequence number; 0 from the start. */
  afterSeq: number;
  /** Empty: every kind. */
  kinds: string[];
  limit: number;
}

export interface EventPage {
  session: SessionRecord;
  events: SessionEvent[];
  /** The after_seq of the next page; 0 when this page reached the end. */
  nextAfterSeq: number;
}

/** Whose sessions a listing shows: the caller's own, or every one the caller may see. */
export type SessionRole = "mine" | "";

export interface ListSessionsRequest {
  role: string;
  namespace: string;
  thread: string;
  status: string;
  limit: number;
  cursor: string;
}

export interface SessionPage {
  sessions: SessionRecord[];
  nextCursor: string;
}

export interface EndSessionRequest {
  sessionId: string;
  summary: string;
}

function checkText(value: string, field: string, max: number, required: boolean): string {
  if (required && value.trim() === "") throw invalidArgument(`${field} must not be empty`);
  if (value.length > max) throw invalidArgument(`${field} must be at most ${max} characters (got ${value.length})`);
  if (hasNul(value)) throw invalidArgument(`${field} must not contain NUL characters`);
  return value;
}

/** Checks a new session before any transaction opens. */
export function validateStart(request: StartSessionRequest, subject: string): SessionStart {
  const namespace = validateThreadId(request.namespace === "" ? subject : request.namespace, "namespace");
  return {
    surface: checkText(request.surface, "surface", sessionLimits.nameChars, true),
    agent: checkText(request.agent, "agent", sessionLimits.nameChars, true),
    namespace,
    thread: validateThreadId(request.thread === "" ? namespace : request.thread, "thread"),
  };
}

const kindPattern = /^[a-z][a-z0-9_.:-]*$/;

/** An event kind: a lowercase word such as "note", "tool_call" or "file.edit". */
export function validateKind(kind: string, field: string): string {
  if (kind.length > sessionLimits.kindChars || !kindPattern.test(kind))
    throw invalidArgument(
      `${field} must be a lowercase word of at most ${sessionLimits.kindChars} characters (letters, digits, "_", ".", ":" or "-"), such as "note" or "tool_call" (got ${JSON.stringify(kind.slice(0, 80))})`,
    );
  return kind;
}

function canonicalPayload(payload: string, field: string): string {
  if (payload.length > sessionLimits.payloadChars)
    throw invalidArgument(
      `${field} must be at most ${sessionLimits.payloadChars} characters of JSON (got ${payload.length})`,
      "store long documents with store_context and log their id",
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    throw invalidArgument(`${field} is not valid JSON`);
  }
  // Escaped in JSON text, a NUL would still break the payload for anything that reads it as PostgreSQL text or jsonb.
  if (containsNul(parsed as JsonValue)) throw invalidArgument(`${field} must not contain NUL characters`);
  return JSON.stringify(parsed);
}

/** SHA-256 of an event's kind and payload, hex: how a repeated key is told from a reused one. */
export function eventHash(kind: string, payload: string): string {
  return createHash("sha256")
    .update(JSON.stringify([kind, payload]), "utf8")
    .digest("hex");
}

/** Checks a batch of events before any transaction opens: one bad event rejects the batch and stores nothing. */
export function validateEvents(events: readonly EventInput[]): ValidEvent[] {
  if (events.length === 0) throw invalidArgument("events must hold at least one event");
  if (events.length > sessionLimits.eventsPerAppend)
    throw invalidArgument(
      `events: at most ${sessionLimits.eventsPerAppend} per append (got ${events.length})`,
      "send the rest in further appends",
    );
  const keys = new Set<string>();
  let chars = 0;
  const valid = events.map((event, index) => {
    const kind = validateKind(event.kind, `events[${index}].kind`);
    const payload = canonicalPayload(event.payload, `events[${index}].payload`);
    chars += payload.length;
    const key = checkText(event.idempotencyKey, `events[${index}].idempotency_key`, sessionLimits.keyChars, false);
    if (key !== "" && keys.has(key))
      throw invalidArgument(`events[${index}].idempotency_key ${JSON.stringify(key)} appears twice in this append`);
    if (key !== "") keys.add(key);
    return { kind, payload, payloadHash: eventHash(kind, payload), idempotencyKey: key === "" ? undefined : key };
  });
  if (chars > sessionLimits.appendChars)
    throw invalidArgument(
      `events: payloads of one append must total at most ${sessionLimits.appendChars} characters (got ${chars})`,
      "send them in several appends",
    );
  return valid;
}

/** A read's cursor and filters, checked. */
export function validateRead(request: ReadEventsRequest): { afterSeq: number; kinds: string[]; limit: number } {
  if (!Number.isInteger(request.afterSeq) || request.afterSeq < 0)
    throw invalidArgument(`after_seq must be 0 or a sequence number (got ${request.afterSeq})`);
  if (request.kinds.length > sessionLimits.kindsPerRead)
    throw invalidArgument(`kinds: at most ${sessionLimits.kindsPerRead} (got ${request.kinds.length})`);
  if (request.limit > sessionLimits.maxEventPage)
    throw invalidArgument(`limit must be 1 to ${sessionLimits.maxEventPage} (got ${request.limit})`);
  return {
    afterSeq: request.afterSeq,
    kinds: [...new Set(request.kinds.map((kind, index) => validateKind(kind, `kinds[${index}]`)))],
    limit: request.limit === 0 ? sessionLimits.defaultEventPage : request.limit,
  };
}

/** A listing's filters, checked; empty namespace and thread mean every one. */
export function validateListing(request: ListSessionsRequest): {
  role: SessionRole;
  namespace: string;
  thread: string;
  status: SessionStatus | "";
  limit: number;
} {
  if (request.role !== "mine" && request.role !== "")
    throw invalidArgument(
      `role must be "mine" or empty for every session you can see (got ${JSON.stringify(request.role)})`,
    );
  if (request.status !== "" && request.status !== "open" && request.status !== "ended")
    throw invalidArgument(`status must be "open" or "ended" (got ${JSON.stringify(request.status)})`);
  if (request.limit > sessionLimits.maxSessionPage)
    throw invalidArgument(`limit must be 1 to ${sessionLimits.maxSessionPage} (got ${request.limit})`);
  return {
    role: request.role,
    namespace: request.namespace === "" ? "" : validateThreadId(request.namespace, "namespace"),
    thread: request.thread === "" ? "" : validateThreadId(request.thread, "thread"),
    status: request.status,
    limit: request.limit === 0 ? sessionLimits.defaultSessionPage : request.limit,
  };
}

/** A summary: at most 20,000 characters, empty for none. */
export function validateSummary(summary: string): string {
  return checkText(summary, "summary", sessionLimits.summaryChars, false);
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A session id; anything not shaped like one is answered as a session that does not exist. */
export function isSessionId(id: string): boolean {
  return uuidPattern.test(id);
}

/**
 * The answer for a session that does not exist, or exists but the caller may
 * not see it: one message for both, so nobody learns what they cannot read.
 */
export function sessionNotFound(id: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no session ${JSON.stringify(id)} that you can see`, {
    remedy: "list_sessions shows the sessions you started and those in namespaces shared with you",
  });
}
