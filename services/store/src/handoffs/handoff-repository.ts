/**
 * Handoffs in SQL. Every statement that reads a handoff composes the handoff
 * predicate, so who may see one is decided by the database before any ORDER
 * BY or LIMIT, as the access predicate does for entries.
 */
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements, type AuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import { createIdempotencyStatements, findRecordedCall } from "../idempotency/idempotency-repository.js";
import type { IdempotencyStatements, RecordedCall } from "../idempotency/idempotency.js";
import { createUuidV7 } from "../model/ids.js";
import type { Principal } from "../model/principal.js";
import { handoffPredicate, recipientPredicate } from "../filters/handoff-predicate.js";
import type { Trust, TrustState } from "../model/trust.js";
import type { PartTrust } from "../screen/part-screen.js";
import type {
  HandoffContent,
  HandoffLink,
  HandoffPriority,
  HandoffRecord,
  HandoffRole,
  HandoffStatus,
  RecipientKind,
} from "./handoff-model.js";

interface HandoffRow {
  id: string;
  creator: string;
  recipient_kind: RecipientKind;
  recipient: string;
  title: string;
  summary: string;
  next_steps: string[];
  open_questions: string[];
  links: HandoffLink[];
  priority: HandoffPriority;
  status: HandoffStatus;
  holder: string;
  outcome: string;
  cancel_reason: string;
  content_hash: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  updated_by: string;
  trust: TrustState;
  trust_reasons: string[];
}

const columns =
  "h.id, h.creator, h.recipient_kind, h.recipient, h.title, h.summary, h.next_steps, h.open_questions, h.links, h.priority, h.status, h.holder, h.outcome, h.cancel_reason, h.content_hash, h.version, h.created_at, h.updated_at, h.updated_by, h.trust, h.trust_reasons";

function toRecord(row: HandoffRow): HandoffRecord {
  return {
    id: row.id,
    creator: row.creator,
    recipient: { kind: row.recipient_kind, name: row.recipient },
    title: row.title,
    summary: row.summary,
    nextSteps: row.next_steps,
    openQuestions: row.open_questions,
    links: typeof row.links === "string" ? (JSON.parse(row.links) as HandoffLink[]) : row.links,
    priority: row.priority,
    status: row.status,
    holder: row.holder,
    outcome: row.outcome,
    cancelReason: row.cancel_reason,
    contentHash: row.content_hash,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    trust: { state: row.trust, reasons: row.trust_reasons },
  };
}

/** A handoff with what the caller is to it. */
export interface StoredHandoff extends HandoffRecord {
  isCreator: boolean;
  isRecipient: boolean;
}

/** The state a transition leaves. */
export interface HandoffChange {
  status: HandoffStatus;
  holder: string;
  outcome: string;
  cancelReason: string;
  /** The handoff's trust after the change (a stored note's screen findings added). */
  trust: Trust;
}

/** The statements of one handoff write transaction. */
export interface HandoffWriteScope {
  idempotency: IdempotencyStatements;
  audit: AuditStatements;
  insert(principal: Principal, content: HandoffContent, contentHash: string, trust: PartTrust): Promise<HandoffRecord>;
  /** The handoff, locked until the transaction ends, if the caller may see it. */
  lock(principal: Principal, id: string): Promise<StoredHandoff | undefined>;
  /** Moves the handoff to `change` if it is still at `version`; undefined when it is not. */
  transition(
    principal: Principal,
    id: string,
    version: number,
    change: HandoffChange,
  ): Promise<HandoffRecord | undefined>;
}

function createWriteScope(tx: SqlExecutor): HandoffWriteScope {
  return {
    idempotency: createIdempotencyStatements(tx),
    audit: createAuditStatements(tx),

    async insert(principal, content, contentHash, trust) {
      const { rows } = await tx.query<HandoffRow>(
        `INSERT INTO handoffs AS h (id, tenant, creator, recipient_kind, recipient, title, summary, next_steps, open_questions, links, priority, status, content_hash, trust, trust_reasons, version, created_at, updated_at, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, 'open', $12, $13, $14, 1, now(), now(), $3)
         RETURNING ${columns}`,
        [
          createUuidV7(),
          principal.tenant,
          principal.subject,
          content.recipient.kind,
          content.recipient.name,
          content.title,
          content.summary,
          content.nextSteps,
          content.openQuestions,
          JSON.stringify(content.links),
          content.priority,
          contentHash,
          trust.state,
          trust.reasons,
        ],
      );
      return toRecord(rows[0]!);
    },

    async lock(principal, id) {
      const params = createSqlParams();
      const visible = handoffPredicate(principal, params);
      const recipient = recipientPredicate(principal, params);
      const { rows } = await tx.query<HandoffRow & { is_creator: boolean; is_recipient: boolean }>(
        `SELECT ${columns}, (h.creator = ${params.add(principal.subject)}) AS is_creator, ${recipient} AS is_recipient
         FROM handoffs h WHERE h.id = ${params.add(id)}::uuid AND ${visible} FOR UPDATE`,
        params.values,
      );
      const row = rows[0];
      return row === undefined
        ? undefined
        : { ...toRecord(row), isCreator: row.is_creator, isRecipient: row.is_recipient };
    },

    async transition(principal, id, version, change) {
      const { rows } = await tx.query<HandoffRow>(
        `UPDATE handoffs AS h SET status = $3, holder = $4, outcome = $5, cancel_reason = $6, trust = $8, trust_reasons = $9,
           version = h.version + 1, updated_at = now(), updated_by = $7
         WHERE h.id = $1 AND h.version = $2 RETURNING ${columns}`,
        [
          id,
          version,
          change.status,
          change.holder,
          change.outcome,
          change.cancelReason,
          principal.subject,
          change.trust.state,
          change.trust.reasons,
        ],
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
  };
}

/** Which handoffs a listing shows. */
export interface HandoffListFilter {
  role: HandoffRole;
  status: HandoffStatus | "";
  newestFirst: boolean;
  /** Rows after this id in the listing's order. */
  after: string | undefined;
}

/** The handoff repository over a migrated database. */
export function createHandoffRepository(db: SqlDatabase) {
  return {
    findCall: (principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined> =>
      findRecordedCall(db, principal, key, notBefore),

    transaction<T>(fn: (scope: HandoffWriteScope) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        const scope = createWriteScope(tx);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
    },

    /** The handoff, if the caller may see it. */
    async find(principal: Principal, id: string): Promise<HandoffRecord | undefined> {
      const params = createSqlParams();
      const visible = handoffPredicate(principal, params);
      const { rows } = await db.query<HandoffRow>(
        `SELECT ${columns} FROM handoffs h WHERE h.id = ${params.add(id)}::uuid AND ${visible}`,
        params.values,
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },

    /** One page of the handoffs the caller can see, in id (creation) order; one more than `limit`. */
    async list(principal: Principal, filter: HandoffListFilter, limit: number): Promise<HandoffRecord[]> {
      const params = createSqlParams();
      const conditions = [
        filter.role === "to_me"
          ? recipientPredicate(principal, params)
          : filter.role === "from_me"
            ? `(h.tenant = ${params.add(principal.tenant)} AND h.creator = ${params.add(principal.subject)})`
            : handoffPredicate(principal, params),
      ];
      if (filter.status !== "") conditions.push(`h.status = ${params.add(filter.status)}`);
      if (filter.after !== undefined)
        conditions.push(`h.id ${filter.newestFirst ? "<" : ">"} ${params.add(filter.after)}::uuid`);
      const { rows } = await db.query<HandoffRow>(
        `SELECT ${columns} FROM handoffs h WHERE ${conditions.join(" AND ")}
         ORDER BY h.id ${filter.newestFirst ? "DESC" : "ASC"} LIMIT ${params.add(limit + 1)}`,
        params.values,
      );
      return rows.map(toRecord);
    },
  };
}

export type HandoffRepository = ReturnType<typeof createHandoffRepository>;
