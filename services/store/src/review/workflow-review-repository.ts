/**
 * A handoff's or a session event's review in SQL, in its own transaction
 * with the audit statements. The review-mode predicate of workflow records:
 * a reviewer (the service checks `context:review`) reaches every handoff and
 * session event of its tenant whose trust waits for a reviewer (quarantined,
 * or rejected by one), whoever it is addressed to; one that does not wait is
 * reached only when the reviewer may see it anyway (the handoff predicate,
 * the access predicate over its session), so a refusal names only what the
 * reviewer could read.
 */
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements, type AuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { handoffPredicate } from "../filters/handoff-predicate.js";
import type { WorkflowReviewStatements, WorkflowReviewTarget } from "../model/review-ports.js";
import { reviewOpenStates, type TrustState } from "../model/trust.js";

/** The `sessions` rows as the access predicate judges them, as the session repository shows them to it. */
const sessionRows = "(SELECT sessions.*, sessions.namespace AS thread_id, 'shared'::text AS visibility FROM sessions)";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `id` is shaped like a handoff's or a session's id; anything else is answered as missing. */
export function isWorkflowId(id: string): boolean {
  return uuidPattern.test(id);
}

interface TargetRow {
  trust: TrustState;
  trust_reasons: string[];
  version: number;
  content_hash: string;
  writers: string[];
  session_owner?: string;
}

function toTarget(row: TargetRow): WorkflowReviewTarget {
  return {
    open: reviewOpenStates.includes(row.trust),
    trust: { state: row.trust, reasons: row.trust_reasons },
    version: Number(row.version),
    contentHash: row.content_hash,
    writers: row.writers,
    ...(row.session_owner === undefined ? {} : { sessionOwner: row.session_owner }),
  };
}

/** The statements of one workflow review transaction. */
export interface WorkflowReviewScope extends WorkflowReviewStatements {
  audit: AuditStatements;
}

function createScope(tx: SqlExecutor): WorkflowReviewScope {
  return {
    audit: createAuditStatements(tx),

    async lockHandoff(principal, id) {
      if (!isWorkflowId(id)) return undefined;
      const params = createSqlParams();
      const tenant = params.add(principal.tenant);
      const { rows } = await tx.query<TargetRow & { title: string }>(
        `SELECT h.trust, h.trust_reasons, h.version, h.content_hash, ARRAY[h.creator, h.updated_by] AS writers, h.title
         FROM handoffs h WHERE h.id = ${params.add(id)}::uuid AND h.tenant = ${tenant}
           AND (h.trust = ANY(${params.add([...reviewOpenStates])}::text[]) OR ${handoffPredicate(principal, params)})
         FOR UPDATE OF h`,
        params.values,
      );
      return rows[0] === undefined ? undefined : { ...toTarget(rows[0]), title: rows[0].title };
    },

    async lockSessionEvent(principal, sessionId, seq) {
      if (!isWorkflowId(sessionId)) return undefined;
      const params = createSqlParams();
      const { rows } = await tx.query<TargetRow & { kind: string }>(
        `SELECT v.trust, v.trust_reasons, 1 AS version, v.payload_hash AS content_hash, ARRAY[v.written_by] AS writers, v.kind,
           (SELECT o.owner FROM sessions o WHERE o.id = v.session_id AND o.tenant = v.tenant) AS session_owner
         FROM session_events v WHERE v.session_id = ${params.add(sessionId)}::uuid AND v.seq = ${params.add(seq)}
           AND v.tenant = ${params.add(principal.tenant)}
           AND (v.trust = ANY(${params.add([...reviewOpenStates])}::text[])
             OR EXISTS (SELECT 1 FROM ${sessionRows} s WHERE s.id = v.session_id AND ${accessPredicate(principal, "s", params, "read")}))
         FOR UPDATE OF v`,
        params.values,
      );
      return rows[0] === undefined ? undefined : { ...toTarget(rows[0]), eventKind: rows[0].kind };
    },

    async applyHandoff(principal, id, version, state, note) {
      const { rows } = await tx.query<{ reviewed_at: Date }>(
        `UPDATE handoffs h SET trust = $3, reviewed_by = $4, reviewed_at = now(), review_note = $5
         WHERE h.id = $1::uuid AND h.version = $2 AND h.tenant = $6 RETURNING h.reviewed_at`,
        [id, version, state, principal.subject, note, principal.tenant],
      );
      if (rows[0] === undefined) throw new Error(`the locked handoff ${id} is not at version ${version}`);
      return rows[0].reviewed_at;
    },

    async applySessionEvent(principal, sessionId, seq, state, note) {
      const { rows } = await tx.query<{ reviewed_at: Date }>(
        `UPDATE session_events v SET trust = $3, reviewed_by = $4, reviewed_at = now(), review_note = $5
         WHERE v.session_id = $1::uuid AND v.seq = $2 AND v.tenant = $6 RETURNING v.reviewed_at`,
        [sessionId, seq, state, principal.subject, note, principal.tenant],
      );
      if (rows[0] === undefined) throw new Error(`the locked session event ${sessionId}#${seq} is gone`);
      return rows[0].reviewed_at;
    },
  };
}

/** The workflow review repository over a migrated database. */
export function createWorkflowReviewRepository(db: SqlDatabase) {
  return {
    transaction<T>(fn: (scope: WorkflowReviewScope) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        const scope = createScope(tx);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
    },
  };
}

export type WorkflowReviewRepository = ReturnType<typeof createWorkflowReviewRepository>;
