/**
 * The handoff predicate in SQL, shared by the handoffs' own statements, the
 * artifacts a handoff links and a reviewer's look at a handoff (who else may
 * see one decides whether a review refusal may name it).
 */
import type { SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";

/**
 * True when `principal` is among the recipients of the `handoffs` row aliased
 * `h`: the subject named, a member of the group named, or, for a namespace,
 * the creator or whoever the creator's thread grant on that namespace reaches
 * (read or write), as memories' namespaces are shared.
 */
export function recipientPredicate(principal: Principal, params: SqlParams): string {
  const subject = params.add(principal.subject);
  const groups = params.add([...principal.groups]);
  const grantee = `((g.grantee_kind = 'subject' AND g.grantee = ${subject}) OR (g.grantee_kind = 'group' AND g.grantee = ANY(${groups}::text[])))`;
  return `(h.tenant = ${params.add(principal.tenant)} AND (
    (h.recipient_kind = 'subject' AND h.recipient = ${subject})
    OR (h.recipient_kind = 'group' AND h.recipient = ANY(${groups}::text[]))
    OR (h.recipient_kind = 'namespace' AND (h.creator = ${subject} OR EXISTS (SELECT 1 FROM grants g
      WHERE g.tenant = h.tenant AND g.grantor = h.creator AND g.thread_id = h.recipient AND ${grantee})))))`;
}

/**
 * THE handoff predicate: true exactly when `principal` may see the row
 * aliased `h`: it created it or is among its recipients, in its own tenant.
 * Nobody else sees it, a tenant admin included: a handoff is addressed, not
 * published.
 */
export function handoffPredicate(principal: Principal, params: SqlParams): string {
  return `((h.tenant = ${params.add(principal.tenant)} AND h.creator = ${params.add(principal.subject)}) OR ${recipientPredicate(principal, params)})`;
}
