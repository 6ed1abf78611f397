/**
 * Session logs in SQL. Every statement that reads a session or its events
 * composes the access predicate over the `sessions` row, with the namespace
 * standing in for the thread and every session `shared`, so a session is
 * seen by its owner and by whoever its owner's thread grants on the
 * namespace reach, decided by the database before any ORDER BY or LIMIT.
 */
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements, type AuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { createIdempotencyStatements, findRecordedCall } from "../idempotency/idempotency-repository.js";
import type { IdempotencyStatements, RecordedCall } from "../idempotency/idempotency.js";
import { createUuidV7 } from "../model/ids.js";
import type { Principal } from "../model/principal.js";
import type { TrustState } from "../model/trust.js";
import type {
  SessionEvent,
  SessionRecord,
  SessionRole,
  SessionStart,
  SessionStatus,
  ScreenedEvent,
} from "./session-model.js";

/**
 * The `sessions` rows as the access predicate judges them: the namespace is
 * the thread its grants name, and a session is `shared`, so it reaches no
 * further than its owner's grants on the namespace.
 */
const sessionRows = "(SELECT sessions.*, sessions.namespace AS thread_id, 'shared'::text AS visibility FROM sessions)";

interface SessionRow {
  id: string;
  owner: string;
  namespace: string;
  thread: string;
  surface: string;
  agent: string;
  status: SessionStatus;
  summary: string;
  last_seq: number;
  started_at: Date;
  updated_at: Date;
  ended_at: Date | null;
}

interface EventRow {
  seq: number;
  kind: string;
  payload: string;
  idempotency_key: string | null;
  written_by: string;
  written_at: Date;
  trust: TrustState;
  trust_reasons: string[];
}

const columns =
  "s.id, s.owner, s.namespace, s.thread, s.surface, s.agent, s.status, s.summary, s.last_seq, s.started_at, s.updated_at, s.ended_at";

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    owner: row.owner,
    namespace: row.namespace,
    thread: row.thread,
    surface: row.surface,
    agent: row.agent,
    status: row.status,
    summary: row.summary,
    lastSeq: Number(row.last_seq),
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at ?? undefined,
  };
}

function toEvent(row: EventRow): SessionEvent {
  return {
    seq: Number(row.seq),
    kind: row.kind,
    payload: row.payload,
    idempotencyKey: row.idempotency_key ?? "",
    writtenBy: row.written_by,
    writtenAt: row.written_at,
    trust: { state: row.trust, reasons: row.trust_reasons },
  };
}

/** A session with whether the caller may append to it and end it. */
export interface StoredSession extends SessionRecord {
  writable: boolean;
}

/** An event an idempotency key stored before. */
export interface KeyedEvent {
  seq: number;
  kind: string;
  payloadHash: string;
  idempotencyKey: string;
}

/** The statements of one session write transaction. */
export interface SessionWriteScope {
  idempotency: IdempotencyStatements;
  audit: AuditStatements;
  insert(principal: Principal, start: SessionStart): Promise<SessionRecord>;
  /** The session, locked until the transaction ends, if the caller may see it. */
  lock(principal: Principal, id: string): Promise<StoredSession | undefined>;
  /** The events of a locked session stored under any of `keys`. */
  keyed(sessionId: string, keys: readonly string[]): Promise<KeyedEvent[]>;
  /** Stores `events` as seq `firstSeq`, `firstSeq + 1`, … and moves the session's last_seq past them. */
  append(
    principal: Principal,
    sessionId: string,
    firstSeq: number,
    events: readonly ScreenedEvent[],
  ): Promise<SessionRecord>;
  end(sessionId: string, summary: string): Promise<SessionRecord>;
}

function createWriteScope(tx: SqlExecutor): SessionWriteScope {
  return {
    idempotency: createIdempotencyStatements(tx),
    audit: createAuditStatements(tx),

    async insert(principal, start) {
      const { rows } = await tx.query<SessionRow>(
        `INSERT INTO sessions AS s (id, tenant, owner, namespace, thread, surface, agent, status, started_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', now(), now()) RETURNING ${columns}`,
        [
          createUuidV7(),
          principal.tenant,
          principal.subject,
          start.namespace,
          start.thread,
          start.surface,
          start.agent,
        ],
      );
      return toRecord(rows[0]!);
    },

    async lock(principal, id) {
      const params = createSqlParams();
      const readable = accessPredicate(principal, "s", params, "read");
      const writable = accessPredicate(principal, "s", params, "write");
      const { rows } = await tx.query<SessionRow & { writable: boolean }>(
        `SELECT ${columns}, ${writable} AS writable FROM ${sessionRows} s
         WHERE s.id = ${params.add(id)}::uuid AND ${readable} FOR UPDATE`,
        params.values,
      );
      const row = rows[0];
      return row === undefined ? undefined : { ...toRecord(row), writable: row.writable };
    },

    async keyed(sessionId, keys) {
      if (keys.length === 0) return [];
      const { rows } = await tx.query<{ seq: number; kind: string; payload_hash: string; idempotency_key: string }>(
        `SELECT seq, kind, payload_hash, idempotency_key FROM session_events
         WHERE session_id = $1 AND idempotency_key = ANY($2::text[])`,
        [sessionId, [...keys]],
      );
      return rows.map((row) => ({
        seq: Number(row.seq),
        kind: row.kind,
        payloadHash: row.payload_hash,
        idempotencyKey: row.idempotency_key,
      }));
    },

    async append(principal, sessionId, firstSeq, events) {
      // Keys travel as '' for none and are stored as NULL, so the partial unique index skips them.
      // Each event's trust reasons travel comma-joined (a reason is `<part>:<rule>`, without commas): unnest takes no ragged arrays.
      await tx.query(
        `INSERT INTO session_events (session_id, seq, tenant, kind, payload, payload_hash, idempotency_key, written_by, written_at, trust, trust_reasons)
         SELECT $1, $2::integer + e.ord - 1, $3, e.kind, e.payload, e.hash, NULLIF(e.key, ''), $4, now(), e.trust, string_to_array(e.reasons, ',')
         FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS e(kind, payload, hash, key, trust, reasons, ord)`,
        [
          sessionId,
          firstSeq,
          principal.tenant,
          principal.subject,
          events.map((event) => event.kind),
          events.map((event) => event.payload),
          events.map((event) => event.payloadHash),
          events.map((event) => event.idempotencyKey ?? ""),
          events.map((event) => event.trust.state),
          events.map((event) => event.trust.reasons.join(",")),
        ],
      );
      const { rows } = await tx.query<SessionRow>(
        `UPDATE sessions AS s SET last_seq = $2, updated_at = now() WHERE s.id = $1 RETURNING ${columns}`,
        [sessionId, firstSeq + events.length - 1],
      );
      return toRecord(rows[0]!);
    },

    async end(sessionId, summary) {
      const { rows } = await tx.query<SessionRow>(
        `UPDATE sessions AS s SET status = 'ended', summary = $2, ended_at = now(), updated_at = now()
         WHERE s.id = $1 RETURNING ${columns}`,
        [sessionId, summary],
      );
      return toRecord(rows[0]!);
    },
  };
}

/** Which sessions a listing shows. */
export interface SessionListFilter {
  role: SessionRole;
  namespace: string;
  thread: string;
  status: SessionStatus | "";
  /** Rows before this id: listings run newest first. */
  before: string | undefined;
}

/** The session repository over a migrated database. */
export function createSessionRepository(db: SqlDatabase) {
  return {
    findCall: (principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined> =>
      findRecordedCall(db, principal, key, notBefore),

    transaction<T>(fn: (scope: SessionWriteScope) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        const scope = createWriteScope(tx);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
    },

    /** The session, if the caller may see it. */
    async find(principal: Principal, id: string): Promise<SessionRecord | undefined> {
      const params = createSqlParams();
      const readable = accessPredicate(principal, "s", params, "read");
      const { rows } = await db.query<SessionRow>(
        `SELECT ${columns} FROM ${sessionRows} s WHERE s.id = ${params.add(id)}::uuid AND ${readable}`,
        params.values,
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },

    /**
     * Events of a session the caller may see, oldest first, after `afterSeq`,
     * of `kinds` (all when empty); one more than `limit`.
     */
    async events(
      principal: Principal,
      id: string,
      afterSeq: number,
      kinds: readonly string[],
      limit: number,
    ): Promise<SessionEvent[]> {
      const params = createSqlParams();
      const conditions = [
        `e.session_id = ${params.add(id)}::uuid`,
        `e.seq > ${params.add(afterSeq)}`,
        `EXISTS (SELECT 1 FROM ${sessionRows} s WHERE s.id = e.session_id AND ${accessPredicate(principal, "s", params, "read")})`,
      ];
      if (kinds.length > 0) conditions.push(`e.kind = ANY(${params.add([...kinds])}::text[])`);
      const { rows } = await db.query<EventRow>(
        `SELECT e.seq, e.kind, e.payload, e.idempotency_key, e.written_by, e.written_at, e.trust, e.trust_reasons FROM session_events e
         WHERE ${conditions.join(" AND ")} ORDER BY e.seq LIMIT ${params.add(limit + 1)}`,
        params.values,
      );
      return rows.map(toEvent);
    },

    /** One page of the sessions the caller can see, newest first; one more than `limit`. */
    async list(principal: Principal, filter: SessionListFilter, limit: number): Promise<SessionRecord[]> {
      const params = createSqlParams();
      const conditions = [
        filter.role === "mine"
          ? `(s.tenant = ${params.add(principal.tenant)} AND s.owner = ${params.add(principal.subject)})`
          : accessPredicate(principal, "s", params, "read"),
      ];
      if (filter.namespace !== "") conditions.push(`s.namespace = ${params.add(filter.namespace)}`);
      if (filter.thread !== "") conditions.push(`s.thread = ${params.add(filter.thread)}`);
      if (filter.status !== "") conditions.push(`s.status = ${params.add(filter.status)}`);
      if (filter.before !== undefined) conditions.push(`s.id < ${params.add(filter.before)}::uuid`);
      const { rows } = await db.query<SessionRow>(
        `SELECT ${columns} FROM ${sessionRows} s WHERE ${conditions.join(" AND ")}
         ORDER BY s.id DESC LIMIT ${params.add(limit + 1)}`,
        params.values,
      );
      return rows.map(toRecord);
    },
  };
}

export type SessionRepository = ReturnType<typeof createSessionRepository>;
