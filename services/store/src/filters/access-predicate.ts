import type { SqlParams } from "../db/sql-database.js";
import { isAdmin, type Principal } from "../model/principal.js";
import { reviewOpenStates } from "../model/trust.js";

/**
 * `read` decides what a caller may see; `write` what it may change or
 * delete; `review` what a reviewer may see and judge: with the
 * `context:review` scope, what `read` allows and, whoever wrote them, the
 * tenant's entries that wait for a reviewer (quarantined, or rejected by
 * one), so a review queue shows what waits without opening anything else;
 * without the scope, what `read` allows.
 */
export type AccessMode = "read" | "write" | "review";

const aliasPattern = /^[a-z_][a-z0-9_]{0,30}$/;

/**
 * How the tenant equality is written, with the same truth either way.
 * `indexed`: an index condition, which the planner may intersect with another
 * index's matches (the full-text index's, say). `per-row`: `(… = …) IS TRUE`,
 * no index condition, checked on each row the other index found. For a tenant
 * holding most of `entries`, intersecting with its index only reads every one
 * of its entries' keys to drop the few rows of other tenants (see
 * `dominantTenantShare` in full-text-statement.ts).
 */
export type TenantMatch = "indexed" | "per-row";

/**
 * THE access predicate (invariant I-1): a SQL boolean over the `entries` row
 * aliased `alias`, true exactly when `principal` may read (or write) it. Every
 * query that reads entries, or anything hanging off them, composes this into
 * its WHERE clause, so access is decided by the database before any ORDER BY
 * or LIMIT and no code filters rows after the fact.
 *
 * Read: the row is in the caller's tenant, and the caller is a tenant admin,
 * or owns it, or it is `tenant`-visible, or it is `shared` and its owner
 * granted the caller's subject or one of the caller's groups access on the
 * entry or on its whole thread.
 *
 * Write: in the caller's tenant, and admin, or owner, or (the row is not
 * `private` and its owner granted `write` as above). A write grant on a
 * private entry gives nothing: private means the owner alone.
 *
 * Review: as read, or, when the caller holds `context:review`, any entry of
 * the caller's tenant in a state open to review (`reviewOpenStates`). Review
 * mode needs the `trust_state` column, so it judges `entries` rows only.
 *
 * Any row with the columns `id`, `tenant`, `thread_id`, `owner` and
 * `visibility` can be judged: a tombstone (whose entry grants are gone with
 * the entry) is visible by owner, tenant visibility or a thread grant.
 *
 * Read also opens a `shared` entry that is a member of a collection its
 * owner granted the caller `read` on (`collectionPredicate`): the grant's
 * grantor is the entry's owner, so a collection shares only its owner's own
 * entries, never another's entry its owner merely can see. Collection
 * grants are read-only; write ignores them.
 *
 * A grant counts only when its grantor is the entry's current owner, so no
 * one can grant access to what they do not own. Values travel only as
 * parameters added to `params`; `alias` must be a plain identifier.
 */
export function accessPredicate(
  principal: Principal,
  alias: string,
  params: SqlParams,
  mode: AccessMode = "read",
  tenantMatch: TenantMatch = "indexed",
): string {
  if (!aliasPattern.test(alias))
    throw new Error(`access predicate alias ${JSON.stringify(alias)} is not a plain identifier`);
  if (principal.tenant === "" || principal.subject === "")
    throw new Error("access predicate needs a principal with a tenant and a subject");
  const tenantParam = params.add(principal.tenant);
  const tenant =
    tenantMatch === "indexed" ? `${alias}.tenant = ${tenantParam}` : `(${alias}.tenant = ${tenantParam}) IS TRUE`;
  if (isAdmin(principal)) return `(${tenant})`;
  if (mode === "review") {
    const readable = accessPredicate(principal, alias, params, "read", tenantMatch);
    if (!principal.scopes.includes("context:review")) return readable;
    return `((${tenant} AND ${alias}.trust_state = ANY(${params.add([...reviewOpenStates])}::text[])) OR ${readable})`;
  }

  const subject = params.add(principal.subject);
  const groups = params.add([...principal.groups]);
  const grant = `${alias}_grant`;
  const permission = mode === "write" ? ` AND ${grant}.permission = 'write'` : "";
  const grantTo = (target: string) =>
    `EXISTS (SELECT 1 FROM grants ${grant} WHERE ${target} AND ${grant}.tenant = ${alias}.tenant AND ${grant}.grantor = ${alias}.owner${permission}` +
    ` AND ((${grant}.grantee_kind = 'subject' AND ${grant}.grantee = ${subject}) OR (${grant}.grantee_kind = 'group' AND ${grant}.grantee = ANY(${groups}::text[]))))`;
  const member = `${alias}_member`;
  const inGrantedCollection =
    mode === "write"
      ? ""
      : ` OR ${grantTo(`${grant}.collection_id IN (SELECT ${member}.collection_id FROM collection_members ${member} WHERE ${member}.entry_id = ${alias}.id)`)}`;
  const granted = `(${grantTo(`${grant}.entry_id = ${alias}.id`)} OR ${grantTo(`${grant}.thread_id = ${alias}.thread_id`)}${inGrantedCollection})`;
  const grantable = mode === "write" ? `${alias}.visibility <> 'private'` : `${alias}.visibility = 'shared'`;
  const open = mode === "write" ? "" : ` OR ${alias}.visibility = 'tenant'`;
  return `(${tenant} AND (${alias}.owner = ${subject}${open} OR (${grantable} AND ${granted})))`;
}

/**
 * Who may see what is left of a deleted entry (its tombstone and, until they
 * are purged, its kept versions): its owner alone, in the owner's tenant. A
 * SQL boolean over the `tombstones` row aliased `alias`; admins are not
 * owners here, so a deleted entry's text is readable by nobody else.
 */
export function deletedEntryPredicate(principal: Principal, alias: string, params: SqlParams): string {
  if (!aliasPattern.test(alias))
    throw new Error(`deleted entry predicate alias ${JSON.stringify(alias)} is not a plain identifier`);
  if (principal.tenant === "" || principal.subject === "")
    throw new Error("deleted entry predicate needs a principal with a tenant and a subject");
  return `(${alias}.tenant = ${params.add(principal.tenant)} AND ${alias}.owner = ${params.add(principal.subject)})`;
}

/**
 * Who may see or change a collection: a SQL boolean over the `collections`
 * row aliased `alias`. Read: a live collection of the caller's tenant that
 * the caller owns, or whose owner granted the caller's subject or one of its
 * groups `read` on it, or any when the caller is a tenant admin. Write: the
 * owner or a tenant admin (collection grants never give write). A deleted
 * collection is seen by nobody.
 */
export function collectionPredicate(
  principal: Principal,
  alias: string,
  params: SqlParams,
  mode: "read" | "write" = "read",
): string {
  if (!aliasPattern.test(alias))
    throw new Error(`collection predicate alias ${JSON.stringify(alias)} is not a plain identifier`);
  if (principal.tenant === "" || principal.subject === "")
    throw new Error("collection predicate needs a principal with a tenant and a subject");
  const live = `${alias}.tenant = ${params.add(principal.tenant)} AND ${alias}.deleted_at IS NULL`;
  if (isAdmin(principal)) return `(${live})`;
  const subject = params.add(principal.subject);
  if (mode === "write") return `(${live} AND ${alias}.owner = ${subject})`;
  const grant = `${alias}_grant`;
  const granted =
    `EXISTS (SELECT 1 FROM grants ${grant} WHERE ${grant}.collection_id = ${alias}.id AND ${grant}.tenant = ${alias}.tenant AND ${grant}.grantor = ${alias}.owner` +
    ` AND ((${grant}.grantee_kind = 'subject' AND ${grant}.grantee = ${subject}) OR (${grant}.grantee_kind = 'group' AND ${grant}.grantee = ANY(${params.add([...principal.groups])}::text[]))))`;
  return `(${live} AND (${alias}.owner = ${subject} OR ${granted}))`;
}
