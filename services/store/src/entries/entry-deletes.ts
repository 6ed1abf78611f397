/** Deletes of entries: by id (or unique prefix), or every entry of a thread the caller may change, each leaving a tombstone. */
import { invalidArgument } from "@context-hub/common";
import type { Outcome } from "../idempotency/idempotency.js";
import type { DeleteEntriesRequest, DeleteEntriesResult } from "../model/entry-model.js";
import { validateThreadId } from "../model/field-validation.js";
import { toIdQuery } from "../model/id-query.js";
import { runItems } from "../model/items.js";
import type { Principal } from "../model/principal.js";
import { deleteEntry, resolveAll, type DeleteTarget, type ResolvedId } from "./entry-changes.js";
import type { EntryRepository, EntryWriteScope } from "./entry-ports.js";
import { validateItemCount } from "./entry-validation.js";
import type { EntryWriter } from "./entry-writes.js";

/** Longest reason a delete may give. */
export const maxDeleteReasonLength = 1000;

function validateDeleteReason(reason: string | undefined): string {
  const value = reason ?? "";
  if (value.length > maxDeleteReasonLength)
    throw invalidArgument(`reason must be at most ${maxDeleteReasonLength} characters (got ${value.length})`);
  if (value.includes("\u0000")) throw invalidArgument("reason must not contain NUL characters");
  return value;
}

/** What a delete names: ids (or prefixes), or a thread; never both, never neither. */
function validateDeleteTarget(request: DeleteEntriesRequest): DeleteTarget {
  if (request.threadId !== "" && request.ids.length > 0)
    throw invalidArgument("give either ids or thread_id, not both");
  if (request.threadId !== "") return { kind: "thread", threadId: validateThreadId(request.threadId, "thread_id") };
  if (request.ids.length === 0)
    throw invalidArgument("give the ids to delete, or a thread_id to delete every entry of it you may change");
  validateItemCount(request.ids.length, "ids");
  return { kind: "ids", queries: request.ids.map((id, index) => toIdQuery(id, `ids[${index}]`)) };
}

/** Every entry of `threadId` that `caller` may change, deleted in one transaction with one audit record. */
async function deleteThread(
  writer: EntryWriter,
  caller: Principal,
  threadId: string,
  reason: string,
  scope: EntryWriteScope | undefined,
): Promise<DeleteEntriesResult> {
  const gone = await writer.within(scope, async (tx) => {
    const removed = await tx.deleteThread(caller, threadId, reason);
    if (removed.length > 0) {
      tx.audit.record(caller.tenant, {
        actor: caller.subject,
        action: "entry.delete",
        outcome: "ok",
        targetIds: removed.map((entry) => entry.id),
        beforeHashes: removed.map((entry) => entry.contentHash),
        afterHashes: [],
        details: { thread_id: threadId, reason },
      });
    }
    return removed;
  });
  return {
    results: gone.map(({ id }) => ({ requestedId: id, result: { ok: true as const, value: id } })),
    deletedCount: gone.length,
  };
}

/** The entries `target` names, deleted all together (atomic) or each on its own with a result per id. */
async function deleteIds(
  writer: EntryWriter,
  caller: Principal,
  target: Extract<DeleteTarget, { kind: "ids" }>,
  atomic: boolean,
  reason: string,
  scope: EntryWriteScope | undefined,
): Promise<DeleteEntriesResult> {
  const deleted = new Set<string>();
  const remove = async (tx: EntryWriteScope, resolved: ResolvedId) => {
    // Named twice in one call (say, by id and by prefix): deleted once, reported for both.
    if (!deleted.has(resolved.id)) await deleteEntry(tx, caller, resolved, reason);
    deleted.add(resolved.id);
    return resolved.id;
  };
  const run = async (executor: EntryWriteScope | EntryRepository, tx: EntryWriteScope | undefined) => {
    const resolved = await resolveAll(executor, caller, target.queries, atomic);
    const ids = resolved.flatMap((item) => (item.ok ? [item.value.id] : []));
    return runItems(
      resolved,
      { atomic, scope: tx, transaction: writer.transaction, prepare: (locking) => locking.lockEntries(caller, ids) },
      remove,
    );
  };
  // Atomic calls resolve inside their transaction; item-by-item calls resolve first, and each item re-checks under its row lock.
  const results = atomic
    ? await writer.within(scope, (tx) => run(tx, tx))
    : await run(scope ?? writer.repository, scope);
  return {
    results: results.map((result, index) => ({ requestedId: target.queries[index]?.input ?? "", result })),
    deletedCount: deleted.size,
  };
}

/** Deletes entries `caller` may change, by id or every such entry of a thread. */
export function deleteEntries(
  writer: EntryWriter,
  caller: Principal,
  request: DeleteEntriesRequest,
): Promise<Outcome<DeleteEntriesResult>> {
  const reason = validateDeleteReason(request.reason);
  return writer.idempotent.run(
    caller,
    "DeleteEntries",
    request.idempotency,
    () => validateDeleteTarget(request),
    (target, scope) =>
      target.kind === "thread"
        ? deleteThread(writer, caller, target.threadId, reason, scope)
        : deleteIds(writer, caller, target, request.atomic, reason, scope),
  );
}
