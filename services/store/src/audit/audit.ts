/**
 * The audit log: one record per mutation and per denied access, appended
 * per tenant to a hash chain (each record's hash covers the previous
 * record's hash and everything in the record), so a changed, removed or
 * reordered record breaks the chain at that point. Records of a mutation
 * are written in the mutation's own transaction; records of a denial in a
 * transaction of their own (the refused call wrote nothing). No transport
 * or SQL here: persistence sits behind `AuditRepository`.
 */
import { createHash } from "node:crypto";
import { ContextHubError, currentRequestContext, invalidArgument, isContextHubError } from "@context-hub/common";
import { requirePrincipal, type Principal, type Scope } from "../model/principal.js";

export type JsonScalar = null | boolean | number | string;
export type AuditDetails = { [key: string]: JsonScalar | JsonScalar[] | AuditDetails };

/** What was done (or attempted). */
export type AuditAction =
  | "entry.create"
  | "entry.fold"
  | "entry.update"
  | "entry.restore"
  | "entry.delete"
  | "entry.review"
  | "entry.share"
  | "entry.unshare"
  | "thread.share"
  | "thread.unshare"
  | "grant.read"
  | "entry.read"
  | "review.read"
  | "audit.read"
  | "history.purge"
  | "memory.put"
  | "memory.delete"
  | "memory.mirror"
  | "memory.review"
  | "handoff.create"
  | "handoff.accept"
  | "handoff.complete"
  | "handoff.cancel"
  | "handoff.review"
  | "session.start"
  | "session.append"
  | "session.end"
  | "session_event.review"
  | "artifact.put"
  | "artifact.delete"
  | "collection.create"
  | "collection.update"
  | "collection.delete"
  | "collection.members"
  | "collection.share"
  | "collection.unshare"
  | "resource.publish"
  | "resource.unpublish"
  | "key.create"
  | "key.revoke";

export type AuditOutcome = "ok" | "denied";

/** One thing to record, as the code that did it describes it. */
export interface AuditEvent {
  /** The subject that acted (`operator` for operator RPCs). */
  actor: string;
  action: AuditAction;
  outcome: AuditOutcome;
  /** Entry ids (or, for thread grants, the thread id; for collection changes and grants, the collection id). */
  targetIds: string[];
  /** Content hashes of the targets before and after, where content is involved. */
  beforeHashes: string[];
  afterHashes: string[];
  details: AuditDetails;
}

/** A stored record: the event with its place in the tenant's chain. */
export interface AuditRecord extends AuditEvent {
  tenant: string;
  /** 1, 2, 3, … within the tenant, without gaps. */
  seq: number;
  id: string;
  at: Date;
  requestId: string;
  previousHash: string;
  hash: string;
}

/** The previous hash of a tenant's first record. */
export const genesisHash = "0".repeat(64);

/** JSON with object keys sorted, so a record hashes the same however its details were ordered or stored. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The hash of a record: hex SHA-256 over the previous hash and every field, in a fixed order. */
export function auditHash(record: Omit<AuditRecord, "hash">): string {
  const fields = [
    record.previousHash,
    record.tenant,
    record.seq,
    record.id,
    record.at.toISOString(),
    record.actor,
    record.action,
    record.outcome,
    record.targetIds,
    record.beforeHashes,
    record.afterHashes,
    record.requestId,
    record.details,
  ];
  return createHash("sha256").update(canonicalJson(fields), "utf8").digest("hex");
}

/** The request id of the call being served, for the record; empty outside a request. */
export function currentRequestId(): string {
  return currentRequestContext()?.requestId ?? "";
}

/** The detail key under which a record keeps the id the caller sent (its X-Request-Id), apart from the request id the gateway gave the call. */
export const clientRequestIdDetail = "client_request_id";

/**
 * An event's details as recorded: with the caller's own request id, when
 * the call carried one, under its own label. The record's `requestId` is
 * always the id the gateway generated, so a caller cannot make its records
 * share an id with someone else's.
 */
export function recordedDetails(
  details: AuditDetails,
  clientRequestId: string | undefined = currentRequestContext()?.clientRequestId,
): AuditDetails {
  return clientRequestId === undefined ? details : { ...details, [clientRequestIdDetail]: clientRequestId };
}

/** How one tenant's chain stands. */
export interface ChainReport {
  tenant: string;
  records: number;
  intact: boolean;
  /** The first record that does not fit (when not intact). */
  broken: { seq: number; id: string; problem: string } | undefined;
}

/**
 * Walks a tenant's records in seq order and reports the first that does
 * not fit: a gap or repeat in seq (a record removed or inserted), a previous
 * hash that is not the hash of the record before it (removed, reordered or
 * re-chained), or a hash that does not match the record's content (edited).
 * Truncating the newest records leaves a valid shorter chain: compare the
 * head (the last hash) with one kept elsewhere to catch that.
 */
export async function verifyChain(
  tenant: string,
  pages: AsyncIterable<readonly AuditRecord[]>,
): Promise<ChainReport & { headHash: string }> {
  let expectedSeq = 1;
  let previous = genesisHash;
  let count = 0;
  for await (const page of pages) {
    for (const record of page) {
      const problem =
        record.seq !== expectedSeq
          ? `expected record ${expectedSeq} here, found ${record.seq}: records are missing or out of order`
          : record.previousHash !== previous
            ? `its previous_hash is not the hash of record ${expectedSeq - 1}`
            : auditHash(record) !== record.hash
              ? "its content does not match its hash: the record was changed"
              : undefined;
      if (problem !== undefined)
        return {
          tenant,
          records: count,
          intact: false,
          broken: { seq: record.seq, id: record.id, problem },
          headHash: previous,
        };
      previous = record.hash;
      expectedSeq += 1;
      count += 1;
    }
  }
  return { tenant, records: count, intact: true, broken: undefined, headHash: previous };
}

/** Filters of a log listing; absent fields do not filter. */
export interface AuditFilter {
  action: string | undefined;
  actor: string | undefined;
  targetId: string | undefined;
  from: Date | undefined;
  to: Date | undefined;
  outcome: AuditOutcome | undefined;
}

export interface AuditPage {
  records: AuditRecord[];
  hasMore: boolean;
}

/** Persistence of the log. Every listing is bounded to one tenant. */
export interface AuditRepository {
  /** Appends `events` of `tenant` in a transaction of their own (denials: the refused call wrote nothing). */
  appendStandalone(tenant: string, events: readonly AuditEvent[], requestId: string): Promise<void>;
  /** One page of `tenant`'s records matching `filter` with seq below `beforeSeq` (when given), newest first. */
  list(tenant: string, filter: AuditFilter, page: { limit: number; beforeSeq: number | undefined }): Promise<AuditPage>;
  /** Every tenant that has records. */
  tenants(): Promise<string[]>;
  /** `tenant`'s records in seq order, a page at a time. */
  chain(tenant: string): AsyncIterable<AuditRecord[]>;
}

/** Records that calls were refused, and lets them fail as they would have. */
export interface DenialRecorder {
  /**
   * Runs `fn`; if it fails with PERMISSION_DENIED, records the denial (the
   * caller, `action`, `targetIds`, the error's message) before rethrowing.
   * Nothing is recorded for a caller without a usable principal: such a
   * call never reached a tenant. `action` and `targetIds` may be read only
   * then, for a call that learns what it acts on as it runs.
   */
  guard<T>(
    principal: Principal | undefined,
    action: AuditAction | (() => AuditAction),
    targetIds: readonly string[] | (() => readonly string[]),
    fn: () => Promise<T>,
  ): Promise<T>;
  /** Records denials that a call reported per item instead of failing. */
  recordItems(
    principal: Principal,
    action: AuditAction,
    denied: readonly { targetId: string; message: string }[],
  ): Promise<void>;
}

const maxTargets = 100;

function denialEvent(
  principal: Principal,
  action: AuditAction,
  targetIds: readonly string[],
  message: string,
): AuditEvent {
  return {
    actor: principal.subject,
    action,
    outcome: "denied",
    targetIds: targetIds.slice(0, maxTargets),
    beforeHashes: [],
    afterHashes: [],
    details: { reason: message },
  };
}

/** A denial recorder over the audit repository. */
export function createDenialRecorder(repository: AuditRepository): DenialRecorder {
  return {
    async guard(principal, action, targetIds, fn) {
      try {
        return await fn();
      } catch (error) {
        // PERMISSION_DENIED is only ever raised for a well-formed principal (UNAUTHENTICATED comes first).
        if (isContextHubError(error) && error.code === "PERMISSION_DENIED" && principal !== undefined) {
          await repository.appendStandalone(
            principal.tenant,
            [
              denialEvent(
                principal,
                typeof action === "function" ? action() : action,
                typeof targetIds === "function" ? targetIds() : targetIds,
                error.message,
              ),
            ],
            currentRequestId(),
          );
        }
        throw error;
      }
    },
    async recordItems(principal, action, denied) {
      if (denied.length === 0) return;
      await repository.appendStandalone(
        principal.tenant,
        denied.map((item) => denialEvent(principal, action, [item.targetId], item.message)),
        currentRequestId(),
      );
    },
  };
}

export interface AuditLogRequest {
  filter: AuditFilter;
  limit: number;
  beforeSeq: number;
  /** Also check the caller's tenant's whole chain (`AuditPage.chain`). */
  verify?: boolean;
}

export interface AuditService {
  /**
   * One page of the caller's tenant's log, newest first (context:admin; a refusal is itself recorded), and with
   * `verify` the check of that tenant's whole chain, from its first record to its head when the check ran.
   */
  getLog(
    principal: Principal | undefined,
    request: AuditLogRequest,
  ): Promise<AuditPage & { nextBeforeSeq: number; chain?: ChainReport & { headHash: string } }>;
  /** Checks the chain of one tenant, or of every tenant with records (operator). */
  verify(tenant: string | undefined): Promise<(ChainReport & { headHash: string })[]>;
}

export const auditLimits = { defaultPage: 50, maxPage: 500, filterChars: 256 } as const;

function checkFilterText(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (value.length > auditLimits.filterChars || value.includes("\u0000"))
    throw invalidArgument(`${field} must be at most ${auditLimits.filterChars} characters without NUL`);
  return value;
}

/** The audit service over its repository. */
export function createAuditService(repository: AuditRepository, denials: DenialRecorder): AuditService {
  return {
    async getLog(principal, request) {
      return denials.guard(principal, "audit.read", [], async () => {
        const caller = requireScopes(principal, ["context:admin"]);
        if (request.limit > auditLimits.maxPage)
          throw invalidArgument(`limit must be at most ${auditLimits.maxPage} (got ${request.limit})`);
        const { filter } = request;
        if (filter.from !== undefined && filter.to !== undefined && filter.from.getTime() >= filter.to.getTime())
          throw invalidArgument("filter.from must be before filter.to");
        const page = await repository.list(
          caller.tenant,
          {
            action: checkFilterText(filter.action, "filter.action"),
            actor: checkFilterText(filter.actor, "filter.actor"),
            targetId: checkFilterText(filter.targetId, "filter.target_id"),
            from: filter.from,
            to: filter.to,
            outcome: filter.outcome,
          },
          {
            limit: request.limit === 0 ? auditLimits.defaultPage : request.limit,
            beforeSeq: request.beforeSeq === 0 ? undefined : request.beforeSeq,
          },
        );
        const last = page.records.at(-1);
        const nextBeforeSeq = page.hasMore && last !== undefined ? last.seq : 0;
        if (request.verify !== true) return { ...page, nextBeforeSeq };
        // Only the caller's own tenant, which an administrator may read whole anyway.
        return { ...page, nextBeforeSeq, chain: await verifyChain(caller.tenant, repository.chain(caller.tenant)) };
      });
    },

    async verify(tenant) {
      const tenants = tenant === undefined || tenant === "" ? await repository.tenants() : [tenant];
      const reports = [];
      for (const name of tenants) reports.push(await verifyChain(name, repository.chain(name)));
      return reports;
    },
  };
}

/** `requirePrincipal` for each scope in turn: the first one missing is the error. */
export function requireScopes(principal: Principal | undefined, scopes: readonly Scope[]): Principal {
  let caller: Principal | undefined;
  for (const scope of scopes) caller = requirePrincipal(principal, scope);
  if (caller === undefined) throw new ContextHubError("INTERNAL", "requireScopes needs at least one scope");
  return caller;
}
